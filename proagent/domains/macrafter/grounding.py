"""What one MA-Crafter agent's prompt may hold (``ground``), its memory line, and the map's text.

Only the seat's own knowledge goes in: its view window as text rows (``@`` itself, digits the
teammates in view), the visible things with their offsets from it (``3 left, 2 up``) and the steps
a walk there takes, the things it remembers out of view (where and when it saw them), its own
bag, tools and vitals, the teammates it sees now and each teammate's last skill it witnessed, the
team score and the clock, and the quorum and tool rules from the world's settings. Never the
whole map, never a teammate's bag: those are what the agents must find out or tell each other.
A language model is poor at grid arithmetic, so offsets and walking distances are precomputed.
Cows wander: one remembered out of view is where it was last seen, and is listed as such.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.macrafter.rules import Material
from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.navigation import UNKNOWN, distances, neighbours, tile
from proagent.domains.macrafter.perception import SeatView, seat_view
from proagent.domains.macrafter.targets import PLACES, RESOURCES, tool_ok
from proagent.world.types import TeammateView

SYMBOLS: dict[Material, str] = {
    Material.GRASS: ".",
    Material.SAND: ":",
    Material.WATER: "~",
    Material.TREE: "T",
    Material.STONE: "S",
    Material.COAL: "C",
    Material.IRON: "I",
    Material.DIAMOND: "D",
    Material.LAVA: "L",
    Material.PATH: "_",
    Material.TABLE: "B",
    Material.FURNACE: "F",
    Material.PLANT: "p",
    Material.RIPE_PLANT: "P",
    Material.COW: "c",
}
LEGEND = ", ".join(f"{s} {m.name.lower()}" for m, s in SYMBOLS.items()) + ", @ you, digits teammates, # outside"
_THINGS = {int(m): m.name.lower() for m in SYMBOLS if m not in (Material.GRASS, Material.SAND, Material.PATH)}


def offset(me: Pos, cell: Pos) -> str:
    """``3 left, 2 up`` from ``me`` to ``cell`` (``here`` when equal)."""
    dx, dy = cell[0] - me[0], cell[1] - me[1]
    parts = [
        f"{abs(dx)} {'right' if dx > 0 else 'left'}" if dx else "",
        f"{abs(dy)} {'down' if dy > 0 else 'up'}" if dy else "",
    ]
    return ", ".join(p for p in parts if p) or "here"


def window_rows(view: SeatView) -> list[str]:
    """The view window as text rows, top to bottom (cells outside the world are ``#``)."""
    state, me = view.believed, view.believed.agents[view.seat].position
    w, h = state.settings.view_width, state.settings.view_height
    rows = []
    for y in range(me[1] - h // 2, me[1] + h // 2 + 1):
        row = ""
        for x in range(me[0] - w // 2, me[0] + w // 2 + 1):
            value = tile(state, (x, y))
            agent = state.agent_at((x, y)) if view.in_view((x, y)) else None
            if (x, y) == me:
                row += "@"
            elif agent is not None and agent in view.visible:
                row += str(agent)
            else:
                row += "#" if value is None or value == UNKNOWN else SYMBOLS[Material(value)]
        rows.append(row)
    return rows


def _steps(reach: dict, cell: Pos, me: Pos) -> int | None:
    """Steps to stand beside ``cell`` (None: no known way)."""
    if abs(cell[0] - me[0]) + abs(cell[1] - me[1]) == 1:
        return 0
    found = [reach[c][0] for c in neighbours(cell) if c in reach]
    return min(found) if found else None


def _things(view: SeatView, reach: dict, seen: bool) -> list[dict]:
    """One entry per kind of thing in view (``seen``) or remembered out of view: how many, the
    nearest one's offset and walk, and (remembered) when it was last seen."""
    state, me = view.believed, view.believed.agents[view.seat].position
    found: dict[str, list[Pos]] = {}
    for y, row in enumerate(state.grid):
        for x, value in enumerate(row):
            if value in _THINGS and view.in_view((x, y)) == seen:
                found.setdefault(_THINGS[value], []).append((x, y))
    out = []
    for name, cells in sorted(found.items()):
        nearest = min(cells, key=lambda c: (abs(c[0] - me[0]) + abs(c[1] - me[1]), c))
        entry = {"name": name, "count": len(cells), "nearest": offset(me, nearest), "steps": _steps(reach, nearest, me)}
        if not seen:
            entry["seen_step"] = view.seen_step.get(nearest)
        out.append(entry)
    return out


def _teammates(view: SeatView, teammates: Sequence[TeammateView]) -> list[dict]:
    state, me = view.believed, view.believed.agents[view.seat].position
    out = []
    for t in teammates:
        visible = t.seat in view.visible
        agent = state.agents[t.seat]
        out.append(
            {
                "seat": t.seat,
                "visible": visible,
                "where": offset(me, agent.position) if visible else None,
                "last_seen": view.last_seen.get(t.seat),
                "sleeping": agent.sleeping if visible else None,
                "last_skill": t.last_skill,
                "last_action": t.last_action if visible else None,
            }
        )
    return out


def _facing_text(view: SeatView, seat: int) -> str:
    believed = view.believed
    me = believed.agents[seat]
    ahead = tile(believed, me.faced_cell)
    mate_ahead = believed.agent_at(me.faced_cell)
    if mate_ahead is not None and mate_ahead in view.visible:
        return f"agent {mate_ahead}"
    if ahead is None:
        return "the edge of the world"
    return believed.names[ahead] if ahead >= 0 else "unknown"


def _rules(state: CrafterView, seat: int) -> list[dict]:
    s = state.settings
    return [
        {
            "resource": r,
            "quorum": s.resources[r].quorum,
            "tool": s.resources[r].tool,
            "you_can": tool_ok(state, seat, r),
            "value": s.unit_value(r),
        }
        for r in RESOURCES
    ]


def ground_facts(state: CrafterView | SeatView, seat: int, teammates: Sequence[TeammateView], score: float) -> dict:
    """Everything a seat may know, as JSON-able data for the templates."""
    view = seat_view(state, seat)
    believed = view.believed
    me = believed.agents[seat]
    reach = distances(believed, seat)
    facts = {
        "step": believed.step,
        "horizon": believed.horizon,
        "steps_left": believed.horizon - believed.step,
        "score": score,
        "me": {
            "seat": seat,
            "facing": _facing_text(view, seat),
            "sleeping": me.sleeping,
            "inventory": {k: v for k, v in me.inventory.items() if v > 0},
            "vitals": dict(me.vitals),
            "tools": [t for t in ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe") if me.count(t) > 0],
        },
        "view": {"rows": window_rows(view), "legend": LEGEND},
        "visible": _things(view, reach, seen=True),
        "remembered": _things(view, reach, seen=False),
        "teammates": _teammates(view, teammates),
        "rules": _rules(believed, seat),
        "targets": list(PLACES),
    }
    return facts


def memory_line(facts: dict) -> str:
    """One line of memory: the bag and what was in view."""
    bag = ", ".join(f"{v} {k}" for k, v in facts["me"]["inventory"].items()) or "nothing"
    seen = ", ".join(t["name"] for t in facts["visible"]) or "nothing of note"
    return f"you held {bag}; in view: {seen}"


def render_world(state: CrafterView) -> str:
    """The whole world as text (the trace's state line; not a prompt): rows top to bottom."""
    rows = [[SYMBOLS[Material(v)] for v in row] for row in state.grid]
    for agent in state.agents:
        if agent.alive:
            rows[agent.position[1]][agent.position[0]] = str(agent.seat % 10)
    header = f"step {state.step}/{state.horizon} score {state.score}"
    return "\n".join([header, *("".join(r) for r in rows)])


__all__ = [
    "LEGEND",
    "SYMBOLS",
    "ground_facts",
    "memory_line",
    "offset",
    "render_world",
    "window_rows",
]
