"""How MA-Crafter draws itself: the trace's text, the web pages' records, and a GIF per episode.

The whole world is drawn (the env's truth, as a replay shows it; what one agent may see is the
perception's business, not the drawing's). Tiles are plain colours per `Material` (no texture
assets ship with the project), agents are squares in their seat's colour with a dark mark on the
side they face, and under the map each agent has an inventory strip: its seat colour, its four
vitals as bars and one tile per item it holds with the count.

Each trace line carries, besides the state before the step (``macrafter``), the step's
``capability_changes``: seat -> item -> units gained (>0) or lost (<0) between the state before
the step and the state after it, only for seats whose bag changed (``{}`` when none did). This is
EmCoop's capability change dZ per agent; the replay's third lane draws it from that field (the lane
code reads the field and knows no world).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from envs.macrafter.env import CrafterEnv
from envs.macrafter.rules import Item, Material, Vital
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, CrafterView
from proagent.domains.macrafter.constraints import capability_change
from proagent.domains.macrafter.web import CHANGES_KEY, RECORD_KEY  # the fields the page's drawing reads
from proagent.world.capabilities import Rendering
from proagent.world.kit.pictures import SEAT_COLOURS, Colour, GridCanvas

CELL = 12  # pixels per map cell in the GIF
MS_PER_FRAME = 150

# One character per material in the text; agents are their seat's digit.
MATERIAL_CHARS: dict[Material, str] = {
    Material.GRASS: ".",
    Material.SAND: ":",
    Material.WATER: "~",
    Material.TREE: "T",
    Material.STONE: "#",
    Material.COAL: "c",
    Material.IRON: "i",
    Material.DIAMOND: "D",
    Material.LAVA: "L",
    Material.PATH: "_",
    Material.TABLE: "t",
    Material.FURNACE: "f",
    Material.PLANT: "p",
    Material.RIPE_PLANT: "P",
    Material.COW: "C",
}
LEGEND = (
    "legend: "
    + ", ".join(f"{c} {m.name.lower().replace('_', ' ')}" for m, c in MATERIAL_CHARS.items())
    + ", 0-7 agents"
)

MATERIAL_COLOURS: dict[Material, Colour] = {
    Material.GRASS: (120, 190, 90),
    Material.SAND: (225, 210, 150),
    Material.WATER: (70, 130, 210),
    Material.TREE: (30, 110, 40),
    Material.STONE: (130, 130, 130),
    Material.COAL: (45, 45, 45),
    Material.IRON: (190, 140, 110),
    Material.DIAMOND: (160, 235, 240),
    Material.LAVA: (230, 90, 20),
    Material.PATH: (190, 180, 160),
    Material.TABLE: (140, 90, 40),
    Material.FURNACE: (90, 70, 70),
    Material.PLANT: (150, 210, 110),
    Material.RIPE_PLANT: (200, 60, 90),
    Material.COW: (240, 240, 235),
}
ITEM_COLOURS: dict[Item, Colour] = {
    Item.WOOD: (140, 90, 40),
    Item.STONE: (130, 130, 130),
    Item.COAL: (45, 45, 45),
    Item.IRON: (190, 140, 110),
    Item.DIAMOND: (160, 235, 240),
    Item.SAPLING: (150, 210, 110),
    Item.WOOD_PICKAXE: (185, 130, 70),
    Item.STONE_PICKAXE: (165, 165, 165),
    Item.IRON_PICKAXE: (215, 175, 150),
    Item.WOOD_SWORD: (185, 130, 70),
    Item.STONE_SWORD: (165, 165, 165),
    Item.IRON_SWORD: (215, 175, 150),
}
VITAL_COLOURS: dict[Vital, Colour] = {
    Vital.HEALTH: (220, 50, 50),
    Vital.FOOD: (230, 140, 30),
    Vital.DRINK: (60, 120, 220),
    Vital.ENERGY: (220, 200, 40),
}
# Up to eight seats: the kit's colours first (so a seat looks the same as in the other worlds).
AGENT_COLOURS: tuple[Colour, ...] = (*SEAT_COLOURS, (120, 80, 40), (230, 80, 160))
# The human page's keys beyond the arrows (macrafter.js binds them: HumanDomain.keys).
HUMAN_KEYS = (
    "Space collects every resource within reach (drink, eat a cow), Tab sleeps, T/R/F/P place a table, stone, "
    "furnace or sapling, 1-6 craft (wood, stone, iron pickaxe; wood, stone, iron sword), Q waits."
)
FACINGS: dict[tuple[int, int], str] = {(-1, 0): "left", (1, 0): "right", (0, -1): "up", (0, 1): "down"}
TOOLS: frozenset[str] = frozenset(i.name.lower() for i in Item if i >= Item.WOOD_PICKAXE)


def agent_colour(seat: int) -> Colour:
    return AGENT_COLOURS[seat % len(AGENT_COLOURS)]


def facing_name(agent: AgentState) -> str:
    return FACINGS.get(tuple(agent.facing), "nowhere")


def _held(agent: AgentState) -> str:
    items = [f"{name} {n}" if name not in TOOLS else name for name, n in agent.inventory.items() if n > 0]
    return ", ".join(items) if items else "nothing"


def agent_line(view: CrafterView, agent: AgentState) -> str:
    """One agent as text: where, facing what, its vitals and its bag."""
    faced, mate = view.material(agent.faced_cell), view.agent_at(agent.faced_cell)
    at = (
        f"agent {mate}"
        if mate is not None
        else faced.name.lower().replace("_", " ")
        if faced is not None
        else "the edge"
    )
    body = " ".join(f"{name} {value}" for name, value in agent.vitals.items())
    state = " (down)" if not agent.alive else " (asleep)" if agent.sleeping else ""
    x, y = agent.position
    return f"agent {agent.seat}{state} at ({x}, {y}) facing {facing_name(agent)} at {at}; {body}; holds {_held(agent)}"


def text(view: CrafterView) -> str:
    """The world as rows of characters (agents as their seat's digit), each agent's line, a legend."""
    rows = [[MATERIAL_CHARS[Material(m)] for m in row] for row in view.grid]
    for agent in view.agents:
        if agent.alive:
            x, y = agent.position
            rows[y][x] = str(agent.seat % 10)
    head = f"step {view.step}/{view.horizon}, score {view.score:g}{', done' if view.done else ''}"
    return "\n".join([head, *("".join(r) for r in rows), *(agent_line(view, a) for a in view.agents), LEGEND])


def record(view: CrafterView) -> dict:
    """The state as the pages draw it: `CrafterView.to_record` plus each agent's faced cell."""
    data = view.to_record()
    for entry, agent in zip(data["agents"], view.agents, strict=True):
        entry["faced"] = list(agent.faced_cell)
    return data


def rules_summary(settings: CrafterSettings) -> str:
    """The cooperative rules in one line (the page's caption): quorum and tool per resource."""
    parts = [f"{name} {rule.quorum}×{rule.tool.replace('_', ' ')}" for name, rule in settings.resources.items()]
    return f"collect (quorum × tool): {', '.join(parts)}; reach d={settings.collect_distance}"


def page_facts(env: CrafterEnv, first: CrafterView) -> dict:
    """The world's static facts and settings (the human page's info, the replay's scene)."""
    s = env.settings
    return {
        "scenario": env.scenario.name,
        "difficulty": env.scenario.difficulty,
        "target": env.scenario.target,
        "width": first.width,
        "height": first.height,
        "horizon": first.horizon,
        "num_agents": len(first.agents),
        "materials": [m.name.lower() for m in Material],
        "items": [i.name.lower() for i in Item],
        "vital_max": s.vital_max,
        "view": [s.view_width, s.view_height],
        "collect_distance": s.collect_distance,
        "item_max": s.item_max,
        "resources": {
            name: {"quorum": r.quorum, "tool": r.tool, "value": s.unit_value(name)} for name, r in s.resources.items()
        },
        "recipes": {
            name: {"needs": dict(r.needs), "stations": list(r.stations), "quorum": r.quorum}
            for name, r in s.recipes.items()
        },
        "rules": rules_summary(s),
        "help": HUMAN_KEYS,
    }


def capability_changes(before: CrafterView, after: CrafterView) -> dict[str, dict[str, int]]:
    """dZ for the trace line: the constraint module's one definition, keyed by seat as text (JSON)."""
    return {str(seat): delta for seat, delta in capability_change(before, after).items()}


def frame_extras(env: CrafterEnv, state: CrafterView, after: CrafterView, done: bool) -> dict:
    """A trace line's drawing: the state before the step, the step's dZ, the layout on step 0 and
    the final state after the last step."""
    extras: dict = {RECORD_KEY: record(state), CHANGES_KEY: capability_changes(state, after)}
    if state.step == 0:
        extras["layout"] = page_facts(env, state)
    if done:
        extras["final"] = {"state": text(after), RECORD_KEY: record(after)}
    return extras


def _map(view: CrafterView) -> np.ndarray:
    """The map: a tile per cell, agents on top with a mark on the side they face."""
    canvas = GridCanvas(view.width, view.height, CELL)
    for y, row in enumerate(view.grid):
        for x, m in enumerate(row):
            canvas.fill(x, y, MATERIAL_COLOURS[Material(m)], inset=0)
    mark = max(3, CELL // 3)
    for agent in view.agents:
        x, y = agent.position
        colour = agent_colour(agent.seat) if agent.alive else (90, 90, 90)
        canvas.fill(x, y, (0, 0, 0), inset=0)
        canvas.fill(x, y, colour, inset=1)
        if agent.alive:  # a dark square against the faced side
            dx, dy = agent.facing
            left = x * CELL + (CELL - mark - 1 if dx > 0 else 1 if dx < 0 else (CELL - mark) // 2)
            top = y * CELL + (CELL - mark - 1 if dy > 0 else 1 if dy < 0 else (CELL - mark) // 2)
            canvas.image[top : top + mark, left : left + mark] = (20, 20, 20)
    return canvas.image


STRIP = 14  # pixels per agent's inventory strip


def _strip(draw: ImageDraw.ImageDraw, agent: AgentState, top: int, vital_max: int) -> None:
    """One agent's strip: seat chip, four vital bars, then a tile and a count per item held."""
    draw.rectangle((1, top + 1, STRIP - 2, top + STRIP - 2), fill=agent_colour(agent.seat), outline=(0, 0, 0))
    x = STRIP + 2
    for vital in Vital:
        value = agent.vital(vital)
        height = round((STRIP - 4) * min(value, vital_max) / max(1, vital_max))
        draw.rectangle((x, top + 2, x + 3, top + STRIP - 3), outline=(200, 200, 200))
        if height > 0:
            draw.rectangle((x, top + STRIP - 2 - height, x + 3, top + STRIP - 3), fill=VITAL_COLOURS[vital])
        x += 5
    x += 4
    for item in Item:
        count = agent.count(item)
        if count <= 0:
            continue
        box = (x, top + 2, x + STRIP - 5, top + STRIP - 3)
        draw.rectangle(box, fill=ITEM_COLOURS[item], outline=(0, 0, 0) if item >= Item.WOOD_PICKAXE else None)
        if item >= Item.WOOD_PICKAXE:  # a tool: a diagonal handle across its tile
            draw.line((box[0], box[3], box[2], box[1]), fill=(60, 40, 20), width=2)
        draw.text((x + STRIP - 3, top + 1), str(count), fill=(0, 0, 0))
        x += STRIP + 10


def frame(view: CrafterView, vital_max: int) -> np.ndarray:
    """One picture: the map and, under it, one inventory strip per agent (at least 160 px wide)."""
    world = _map(view)
    width = max(world.shape[1], 160)
    image = Image.new("RGB", (width, world.shape[0] + STRIP * len(view.agents)), (255, 255, 255))
    image.paste(Image.fromarray(world), (0, 0))
    draw = ImageDraw.Draw(image)
    for agent in view.agents:
        _strip(draw, agent, world.shape[0] + STRIP * agent.seat, vital_max)
    return np.asarray(image)


def frames(env: CrafterEnv, states: Sequence[Any]) -> list[np.ndarray]:
    """The pictures of a run of engine states, one each (the GIF recorder writes them as they come)."""
    vital_max = env.settings.vital_max
    return [frame(env.symbolic(s), vital_max) for s in states]


RENDERING = Rendering(text, record, page_facts, frame_extras, frames, MS_PER_FRAME)

__all__ = [
    "CHANGES_KEY",
    "MATERIAL_CHARS",
    "RECORD_KEY",
    "RENDERING",
    "capability_changes",
    "frame",
    "page_facts",
    "record",
    "text",
]
