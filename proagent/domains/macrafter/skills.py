"""MA-Crafter's skills (EmCoop's action concepts), one `SkillDef` each, and the skill book.

The planner names ``noop(steps)``, ``move(dir, steps)``, ``navigate(target, id)``,
``collect(resource)``, ``craft(item)``, ``place(object)``, ``sleep()`` or ``share(id, item, qty)``;
the controller (`controller.py`) grounds it into one primitive action per step. A skill's
arguments are one canonical text (``move(left, 3)`` holds ``"left, 3"``), so ``str(skill)`` is what
the model writes and parses back; the parser reads looser texts too (``share(id=1, item=wood, qty=2)``,
``navigate(player 2)``, ``collect(wood)``). Checks are worded for the failure explainer
and read only what the seat knows: its own bag and vitals, the cells it has seen, the rules'
numbers (quorum and tool per resource, recipes) from the state's settings; never a teammate's bag.

Definitions:

- ``noop(n)`` (``wait(n)`` is its other name): do nothing for n steps.
- ``move(dir, n)``: n steps one way; it fails when something stands in the way (moving into it
  only turns the agent).
- ``navigate(target)`` / ``navigate(agent, k)``: BFS over walkable cells around agents to stand
  beside the nearest known target (or teammate k) and face it; done there, or after
  `NAVIGATE_TIMEOUT` steps wherever it got.
- ``collect(r)``: go beside the best known cell of r (one a teammate already works on first) and
  press DO until this agent took part in a successful collection (trees, stone, coal, iron,
  diamond) or its drink or food is full (water, cow); it gives up after `COLLECT_TIMEOUT` steps.
- ``craft(item)``: go beside the recipe's station and craft until this agent made the item; it
  gives up after `CRAFT_TIMEOUT` steps, or at once when a press failed for want of a station or
  ingredients (a craft that cannot succeed is not pressed again and again).
- ``place(object)``: face a free cell it may go on and place it.
- ``sleep()``: sleep until awake again (a sleeper acts on nothing until its energy is full).
- ``share(k, item, q)``: hand teammate k q units of an item (or of food, drink, energy; all it
  holds if fewer) in one step, at any distance (EmCoop's share).
"""

from __future__ import annotations

from envs.macrafter.events import CrafterEvent, CrafterEventKind
from envs.macrafter.rules import SHARE_GOODS
from envs.macrafter.symbolic import CrafterView
from proagent.domains.macrafter.navigation import DIRECTIONS, facing, occupied, tile, walkable
from proagent.domains.macrafter.parsing import read_skill
from proagent.domains.macrafter.targets import (
    AGENT,
    COLLECTABLE,
    CRAFT_ACTIONS,
    PLACE_ACTIONS,
    PLACED_MATERIAL,
    PLACES,
    RESOURCE_OF_ITEM,
    RESOURCES,
    collect_targets,
    craft_spots,
    known_cells,
    place_cost,
    tool_ok,
    way_to,
)
from proagent.world.kit.skills import ArgChoices, ArgRange, SkillDef, TableSkillBook, after_steps, no_failures
from proagent.world.types import WAIT, Skill, UndoState

MAX_WAIT = 10
MAX_MOVE = 5
NAVIGATE_TIMEOUT = 64
MAX_SHARE_SKILL = 5  # share(id, item, qty) names 1..5 (the env takes up to rules.MAX_SHARE in one action)
COLLECT_TIMEOUT = 48  # walking there included
CRAFT_TIMEOUT = 12  # walking to the station included
ITEMS = SHARE_GOODS  # what share(id, item, qty) may hand over
NOOP = "noop"


def args_of(skill: Skill) -> list[str]:
    """The canonical argument text split into its parts (``"1, wood, 2"`` -> ["1", "wood", "2"])."""
    return [part.strip() for part in str(skill.arg).split(",")] if skill.arg is not None else []


def _what_is(view: CrafterView, cell: tuple[int, int], seat: int) -> str:
    other = view.agent_at(cell)
    if other is not None and other != seat:
        return f"agent {other}"
    value = tile(view, cell)
    return "the edge of the world" if value is None else view.names[value] if value >= 0 else "an unseen cell"


# ---- noop / move -------------------------------------------------------------------------------
def _move_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    way = args_of(skill)[0]
    dx, dy = _VECTOR[way]
    x, y = view.agents[seat].position
    nxt = (x + dx, y + dy)
    if walkable(view, nxt, occupied(view, seat)):
        return []
    return [f"{_what_is(view, nxt, seat)} is {way} of you: moving there only turns you to face it"]


def _move_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    return steps >= int(args_of(skill)[1])


# ---- navigate ----------------------------------------------------------------------------------
def navigate_goals(view: CrafterView, seat: int, skill: Skill) -> list[tuple[int, int]]:
    """The cells navigate(...) may end beside: every known cell of the target, or teammate k's."""
    parts = args_of(skill)
    if parts[0] == AGENT:
        other = int(parts[1])
        if other >= len(view.agents) or not view.agents[other].alive:
            return []
        where = view.agents[other].position
        return [where] if tile(view, where) is not None else []  # a teammate never seen is nowhere known
    return known_cells(view, parts[0])


def _navigate_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    parts = args_of(skill)
    if parts[0] == AGENT:
        other = int(parts[1])
        if other == seat:
            return ["navigate(agent, k) names a teammate, and you are agent " + str(seat)]
        if other >= len(view.agents):
            return [f"there is no agent {other} (agents are 0..{len(view.agents) - 1})"]
        if not view.agents[other].alive:
            return [f"agent {other} is down"]
    goals = navigate_goals(view, seat, skill)
    if not goals and parts[0] == AGENT:
        return [f"agent {parts[1]} has not been seen yet: explore, or ask where it is"]
    if not goals:
        return [f"no {parts[0]} is in sight or remembered: explore with move(dir, steps) to find one"]
    if way_to(view, seat, goals)[0] < 0:
        return [f"no path leads next to a {parts[0]} you know of"]
    return []


def _navigate_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    if steps >= NAVIGATE_TIMEOUT:
        return True
    return any(facing(view, seat, goal) for goal in navigate_goals(view, seat, skill))


# ---- collect -----------------------------------------------------------------------------------
def _collect_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    name = str(skill.arg)
    me, s = view.agents[seat], view.settings
    if name in RESOURCES:
        rule = s.resources[name]
        if rule.quorum > len(view.agents):
            return [f"collect({name}) needs {rule.quorum} agents acting together and the team has {len(view.agents)}"]
        if not tool_ok(view, seat, name):
            together = f" and {rule.quorum} agents acting on it together" if rule.quorum > 1 else ""
            return [f"collect({name}) needs a {rule.tool} (you hold none){together}"]
    elif name == "water" and me.vitals.get("drink", 0) >= s.vital_max:
        return [f"you are not thirsty (drink {s.vital_max} of {s.vital_max})"]
    elif name == "cow" and me.vitals.get("food", 0) >= s.vital_max:
        return [f"you are not hungry (food {s.vital_max} of {s.vital_max})"]
    cells = collect_targets(view, seat, name)
    if not cells:
        return [f"no {name} is in sight or remembered: explore with move(dir, steps) to find one"]
    if way_to(view, seat, cells[:8])[0] < 0:
        return [f"no path leads next to a {name} you know of"]
    return []


def collected(view: CrafterView, seat: int, target: str) -> bool:
    """Whether the last step's collection of ``target`` succeeded with this seat in it."""
    return any(
        a.kind == "collect" and a.target == target and a.outcome == "ok" and seat in a.capable
        for a in view.attempts
    )


def _collect_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    name, me, full = str(skill.arg), view.agents[seat], view.settings.vital_max
    if steps >= COLLECT_TIMEOUT:
        return True
    if name in RESOURCES:  # a collection in the step before the skill began is not this skill's
        return steps > 0 and collected(view, seat, name)
    if name == "water":
        return me.vitals.get("drink", 0) >= full
    return me.vitals.get("food", 0) >= full or (steps > 0 and collected(view, seat, "cow"))


# ---- craft -------------------------------------------------------------------------------------
def _craft_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    item = str(skill.arg)
    recipe = view.settings.recipes[item]
    if recipe.quorum > len(view.agents):
        return [f"craft({item}) needs {recipe.quorum} agents crafting together and the team has {len(view.agents)}"]
    missing = [s for s in recipe.stations if not known_cells(view, s)]
    if missing:
        return [f"craft({item}) needs a {' and a '.join(missing)} nearby: none is in sight or remembered (place one)"]
    me = view.agents[seat]
    lacking = {k: v for k, v in recipe.needs.items() if me.count(k) < v}
    if lacking:
        needs = ", ".join(f"{v} {k} (you have {me.count(k)})" for k, v in lacking.items())
        return [f"craft({item}) needs {needs}"]
    if not craft_spots(view, seat, recipe.stations):
        return [f"no free cell near the {' and '.join(recipe.stations)} to craft from"]
    return []


def crafted(view: CrafterView, seat: int, item: str) -> bool:
    """Whether the seat's last action made ``item``."""
    return (
        bool(view.last_actions)
        and view.last_actions[seat] == int(CRAFT_ACTIONS[item])
        and view.results[seat] == "ok"
    )


def _craft_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    """Made it; or gave up: at the time limit, or at once when a press failed for want of a station
    or ingredients (pressing again cannot help; waiting for crafters under a quorum can)."""
    if steps >= CRAFT_TIMEOUT or (steps > 0 and crafted(view, seat, str(skill.arg))):
        return True
    pressed = bool(view.last_actions) and view.last_actions[seat] == int(CRAFT_ACTIONS[str(skill.arg)])
    return steps > 0 and pressed and view.results[seat] in ("no_station", "missing_items")


# ---- place / sleep -----------------------------------------------------------------------------
def _place_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    obj, me = str(skill.arg), view.agents[seat]
    lacking = {k: v for k, v in place_cost(view, obj).items() if me.count(k) < v}
    if lacking:
        needs = ", ".join(f"{v} {k} (you have {me.count(k)})" for k, v in lacking.items())
        return [f"place({obj}) needs {needs}"]
    return []


def _place_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    return steps > 0 and tile(view, view.agents[seat].faced_cell) == int(PLACED_MATERIAL[str(skill.arg)])


def _sleep_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    energy, full = view.agents[seat].vitals.get("energy", 0), view.settings.vital_max
    return (
        [f"you are not tired (energy {energy} of {full})"] if energy >= full and not view.agents[seat].sleeping else []
    )


def _sleep_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    return steps > 0 and not view.agents[seat].sleeping


# ---- share -------------------------------------------------------------------------------------
def _share_failures(view: CrafterView, seat: int, skill: Skill) -> list[str]:
    other, item, _ = args_of(skill)
    k, me = int(other), view.agents[seat]
    if k == seat:
        return ["share names a teammate, and you are agent " + str(seat)]
    if k >= len(view.agents):
        return [f"there is no agent {k} (agents are 0..{len(view.agents) - 1})"]
    if not view.agents[k].alive:
        return [f"agent {k} is down"]
    have = me.vitals.get(item, 0) if item in ("food", "drink", "energy") else me.count(item)
    if have <= 0:
        return [f"{skill} hands over {item}, and you have none"]
    return []


def _share_done(view: CrafterView, seat: int, skill: Skill, steps: int) -> bool:
    return steps > 0


_VECTOR = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def skill_rows() -> tuple[SkillDef, ...]:
    """The table: one row per skill."""
    return (
        SkillDef(
            NOOP,
            "noop(steps)",
            f"do nothing for 1 to {MAX_WAIT} steps (wait(steps) means the same)",
            "steps",
            no_failures,
            after_steps,
        ),
        SkillDef(
            "move",
            "move(dir, steps)",
            f"walk 1 to {MAX_MOVE} steps left, right, up or down; walking into something only turns you to face it",
            "move",
            _move_failures,
            _move_done,
        ),
        SkillDef(
            "navigate",
            "navigate(target, id)",
            "walk around obstacles and agents to stand beside the nearest"
            f" known target ({', '.join(PLACES)}) facing it; navigate(agent, k) goes to teammate k; gives up"
            f" after {NAVIGATE_TIMEOUT} steps",
            "navigate",
            _navigate_failures,
            _navigate_done,
        ),
        SkillDef(
            "collect",
            "collect(resource)",
            "go beside the resource and press DO until it is collected: DO takes every resource within"
            " reach, and tree (wood), stone, coal, iron, diamond need their quorum of agents pressing DO within"
            " reach in the same step, each holding the exact tool; water drinks, cow eats; gives up after"
            f" {COLLECT_TIMEOUT} steps",
            "collect",
            _collect_failures,
            _collect_done,
        ),
        SkillDef(
            "craft",
            "craft(item)",
            "go beside the recipe's station and craft until the item is made (from your own bag); gives up"
            f" after {CRAFT_TIMEOUT} steps",
            "craft",
            _craft_failures,
            _craft_done,
        ),
        SkillDef(
            "place",
            "place(object)",
            "place a table (wood), a furnace (stone), a stone or a plant (a sapling, on grass) on a free"
            " cell in front of you",
            "place",
            _place_failures,
            _place_done,
        ),
        SkillDef(
            "sleep",
            "sleep()",
            "sleep until your energy is restored (you act on nothing meanwhile)",
            None,
            _sleep_failures,
            _sleep_done,
        ),
        SkillDef(
            "share",
            "share(id, item, qty)",
            f"hand teammate id 1 to {MAX_SHARE_SKILL} units of an item (or of your food, drink or energy; all you"
            " hold if fewer), at any distance, in one step",
            "share",
            _share_failures,
            _share_done,
        ),
    )


def _skill_of_event(event: CrafterEvent) -> Skill | None:
    """The skill a teammate's event completes (belief correction)."""
    kind, item = event.kind, event.item or ""
    if kind == CrafterEventKind.COLLECT and item in RESOURCE_OF_ITEM:
        return Skill("collect", RESOURCE_OF_ITEM[item])
    if kind == CrafterEventKind.CRAFT and item in CRAFT_ACTIONS:
        return Skill("craft", item)
    if kind == CrafterEventKind.PLACE:
        placed = "plant" if item == "sapling" else item
        return Skill("place", placed) if placed in PLACE_ACTIONS else None
    if kind == CrafterEventKind.SHARE and event.other is not None and item in ITEMS:
        return Skill("share", f"{event.other}, {item}, {max(1, min(event.qty, MAX_SHARE_SKILL))}")
    if kind == CrafterEventKind.DRINK:
        return Skill("collect", "water")
    if kind == CrafterEventKind.EAT:
        return Skill("collect", "cow")
    return Skill("sleep") if kind == CrafterEventKind.SLEEP else None


def _own_cell(view: CrafterView, seat: int) -> UndoState:
    """An undo cycle walks away and back: the agent's cell is the loop guard's view."""
    return UndoState(view.agents[seat].position)


class MACrafterSkillBook(TableSkillBook):
    """The table read every way the agent needs it, with MA-Crafter's argument parser."""

    def __init__(self, num_agents: int) -> None:
        seats = range(num_agents)
        ranges: dict[str, ArgRange | ArgChoices] = {
            "steps": ArgRange(1, MAX_WAIT),
            "move": ArgChoices(tuple(f"{d}, {n}" for d in DIRECTIONS for n in range(1, MAX_MOVE + 1))),
            "navigate": ArgChoices((*PLACES, *(f"{AGENT}, {k}" for k in seats))),
            "collect": ArgChoices(tuple(COLLECTABLE)),
            "craft": ArgChoices(tuple(CRAFT_ACTIONS)),
            "place": ArgChoices(tuple(PLACE_ACTIONS)),
            "share": ArgChoices(
                tuple(f"{k}, {i}, {q}" for k in seats for i in ITEMS for q in range(1, MAX_SHARE_SKILL + 1))
            ),
        }
        progress = frozenset({"collect", "craft", "place", "share"})
        super().__init__(skill_rows(), ranges, progress, _own_cell, _skill_of_event, aliases={WAIT: NOOP})
        self.num_agents = num_agents

    def parse(self, text: str) -> Skill:
        """A skill from free text; SkillParseError says what was wrong (`parsing.read_skill`)."""
        return read_skill(text, self)


def skill_book_for(view: CrafterView) -> MACrafterSkillBook:
    return MACrafterSkillBook(len(view.agents))


__all__ = [
    "COLLECT_TIMEOUT",
    "CRAFT_TIMEOUT",
    "MAX_MOVE",
    "MAX_SHARE_SKILL",
    "MAX_WAIT",
    "NAVIGATE_TIMEOUT",
    "NOOP",
    "MACrafterSkillBook",
    "args_of",
    "collected",
    "crafted",
    "navigate_goals",
    "skill_book_for",
]
