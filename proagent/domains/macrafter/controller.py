"""Gamma for MA-Crafter: a skill grounded into one primitive action per step.

Every skill that acts on something first walks there (BFS around obstacles and agents, through
unseen cells only when no known path exists) and turns to face it; then it presses the skill's
own action each step (DO, MAKE_*, PLACE_*, SLEEP, a share) until the skill book says it is done.
The controller steers on the state it is given: for ProAgent the seat's belief (what it saw and
remembers), for a scripted partner the state it plays from.
"""

from __future__ import annotations

import random

from envs.macrafter.rules import MAX_AGENTS, MOVES, VECTORS, Action, Material, share_action
from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.navigation import (
    DIRECTIONS,
    distances,
    facing,
    occupied,
    tile,
    walkable,
)
from proagent.domains.macrafter.skills import MACrafterSkillBook, args_of, navigate_goals
from proagent.domains.macrafter.targets import (
    CRAFT_ACTIONS,
    PLACE_ACTIONS,
    collect_targets,
    craft_spots,
    diggable,
    near_stations,
    way_to,
)
from proagent.world.kit.skills import TableSkillBook
from proagent.world.types import Skill

_VECTORS = {way: VECTORS[action] for way, action in DIRECTIONS.items()}
_MOVE_IDS = frozenset(int(m) for m in MOVES)
_PLACEABLE = {
    "table": {Material.GRASS, Material.SAND, Material.PATH},
    "furnace": {Material.GRASS, Material.SAND, Material.PATH},
    "stone": {Material.GRASS, Material.SAND, Material.PATH, Material.WATER, Material.LAVA},
    "plant": {Material.GRASS},
}


def approach(view: CrafterView, seat: int, targets: list[Pos], ordered: bool = False) -> tuple[int, Pos | None]:
    """The action that brings the seat beside one of ``targets`` facing it (NOOP when it already is,
    or when none can be reached), and that target (``ordered``: the first reachable one)."""
    steps, target, move = way_to(view, seat, targets, ordered)
    if target is None or move is None:
        return int(Action.NOOP), None
    if steps == 0 and facing(view, seat, target):
        return int(Action.NOOP), target
    here = view.agents[seat].position
    ahead = (here[0] + VECTORS[move][0], here[1] + VECTORS[move][1])
    if steps > 0 and tile(view, ahead) in diggable(view, seat) and facing(view, seat, ahead):
        return int(Action.DO), target  # mine the stone in the way
    return int(move), target


def act_on(view: CrafterView, seat: int, targets: list[Pos], action: Action) -> int:
    """Walk to the first reachable target (in the given order), face it, then press ``action``."""
    move, target = approach(view, seat, targets, ordered=True)
    if target is not None and facing(view, seat, target):
        return int(action)
    return move


def _step_towards_open(view: CrafterView, seat: int, open_on: set[Material], stay_near: tuple[str, ...] = ()) -> int:
    """A move after which the faced cell is one of ``open_on`` (the move steps into a free cell and
    faces the next one); ``stay_near`` keeps the new cell near those stations."""
    x, y = view.agents[seat].position
    taken = occupied(view, seat)
    wanted = {int(m) for m in open_on}
    for way, action in DIRECTIONS.items():
        dx, dy = _VECTORS[way]
        first, second = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
        if not walkable(view, first, taken) or tile(view, second) not in wanted or second in taken:
            continue
        if stay_near and not near_stations(view, first, stay_near):
            continue
        return int(action)
    for way, action in DIRECTIONS.items():  # nothing lines up: wander one step
        dx, dy = _VECTORS[way]
        if walkable(view, (x + dx, y + dy), taken):
            return int(action)
    return int(Action.NOOP)


class MACrafterController:
    """Gamma(skill, state) for one seat."""

    def __init__(self, book: TableSkillBook, seat: int, seed: int = 0) -> None:
        self.book = book
        self.seat = seat
        self._rng = random.Random(seed * MAX_AGENTS + seat)
        self._last: tuple[Pos, int] | None = None
        self._trail: tuple[Pos, ...] = ()  # the cells of the last two steps

    def act(self, view: CrafterView, skill: Skill) -> int:
        """The skill's action. Agents walking into each other's way can lock step: the same move
        from the same cell that did not go through, or stepping back and forth between two cells
        as teammates do the same; such a move is dropped half the time, which breaks the lock."""
        action = self._action(view, skill)
        here = view.agents[self.seat].position
        blocked = self._last == (here, action)
        shuttling = len(self._trail) == 2 and self._trail[0] == here != self._trail[1]
        if action in _MOVE_IDS and (blocked or shuttling) and self._rng.random() < 0.5:
            action = int(Action.NOOP)
        self._last, self._trail = (here, action), (*self._trail[-1:], here)
        return action

    def _action(self, view: CrafterView, skill: Skill) -> int:
        name = self.book.aliases.get(skill.name, skill.name)
        if name == "move":
            return int(DIRECTIONS[args_of(skill)[0]])
        if name == "navigate":
            return approach(view, self.seat, navigate_goals(view, self.seat, skill))[0]
        if name == "collect":
            return self._collect(view, str(skill.arg))
        if name == "craft":
            return self._craft(view, str(skill.arg))
        if name == "place":
            return self._place(view, str(skill.arg))
        if name == "sleep":
            return int(Action.SLEEP)
        if name == "share":
            other, item, qty = args_of(skill)
            return share_action(int(other), item, int(qty))  # EmCoop: any distance, all at once
        return int(Action.NOOP)  # noop (wait)

    def _collect(self, view: CrafterView, name: str) -> int:
        """Walk beside the best target, face it and press DO (a DO takes every resource in reach,
        so standing beside the target is enough; facing it keeps the quorum on one cell)."""
        return act_on(view, self.seat, collect_targets(view, self.seat, name)[:8], Action.DO)

    def _craft(self, view: CrafterView, item: str) -> int:
        stations = view.settings.recipes[item].stations
        me = view.agents[self.seat].position
        if near_stations(view, me, stations):
            return int(CRAFT_ACTIONS[item])
        spots = set(craft_spots(view, self.seat, stations))
        reach = distances(view, self.seat)
        best = min((reach[c] for c in spots if c in reach), key=lambda r: r[0], default=None)
        return int(Action.NOOP) if best is None or best[1] is None else int(best[1])

    def _place(self, view: CrafterView, obj: str) -> int:
        """Place on the faced cell when it takes the object (and no object stands there); else step
        so that such a cell lies ahead. A furnace needs no table (EmCoop's ``data.yaml``)."""
        ahead = view.agents[self.seat].faced_cell
        if tile(view, ahead) in {int(m) for m in _PLACEABLE[obj]} and view.agent_at(ahead) is None:
            return int(PLACE_ACTIONS[obj])
        return _step_towards_open(view, self.seat, _PLACEABLE[obj])


__all__ = ["MACrafterController", "MACrafterSkillBook", "act_on", "approach"]
