"""Shortest paths on the kitchen grid, shared by the skill checks and the controller.

Grids are tiny (at most a few hundred cells), so a plain BFS per decision costs microseconds and
needs no caching beyond the layout's static neighbour lists.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from envs import Action, Direction, KitchenMap, Pos
from envs.overcooked.actions import DIRECTION_VECTORS


@dataclass(frozen=True, slots=True)
class Route:
    target: Pos  # the cell to interact with
    stand: Pos  # the floor cell to stand on
    facing: Direction  # the orientation needed at ``stand`` to face ``target``
    first_action: Action  # first primitive action (a move, or a turn when already standing there)
    length: int  # moves until standing at ``stand``


def _step(pos: Pos, d: Direction) -> Pos:
    dx, dy = DIRECTION_VECTORS[d]
    return (pos[0] + dx, pos[1] + dy)


def spots(kitchen: KitchenMap, target: Pos) -> list[tuple[Pos, Direction]]:
    """Floor cells next to ``target`` and the facing that makes ``target`` interactable."""
    out = []
    for d in Direction:
        stand = _step(target, d)
        if kitchen.is_floor(stand):
            out.append((stand, _opposite(d)))
    return out


def _opposite(d: Direction) -> Direction:
    return {
        Direction.UP: Direction.DOWN,
        Direction.DOWN: Direction.UP,
        Direction.LEFT: Direction.RIGHT,
        Direction.RIGHT: Direction.LEFT,
    }[d]


def distances(
    kitchen: KitchenMap, start: Pos, blocked: frozenset[Pos] = frozenset()
) -> dict[Pos, tuple[int, Action | None]]:
    """BFS over floor cells: distance and first move from ``start`` to every reachable cell."""
    out: dict[Pos, tuple[int, Action | None]] = {start: (0, None)}
    queue = deque([start])
    while queue:
        pos = queue.popleft()
        dist, first = out[pos]
        for d in Direction:
            nxt = _step(pos, d)
            if nxt in out or nxt in blocked or not kitchen.is_floor(nxt):
                continue
            out[nxt] = (dist + 1, first if first is not None else Action(int(d)))
            queue.append(nxt)
    return out


def best_route(
    kitchen: KitchenMap, start: Pos, facing: Direction, targets: tuple[Pos, ...], blocked: frozenset[Pos] = frozenset()
) -> Route | None:
    """The nearest way to interact with any of ``targets`` (ties: the order of ``targets``)."""
    dist = distances(kitchen, start, blocked)
    best: Route | None = None
    best_cost = 0
    for target in targets:
        for stand, need in spots(kitchen, target):
            if stand not in dist:
                continue
            length, first = dist[stand]
            if first is None:  # already there: interact, or turn to face the target
                first = Action.INTERACT if facing == need else Action(int(need))
            cost = length + (first != Action.INTERACT)  # the final turn-or-interact counts everywhere
            if best is None or cost < best_cost:
                best, best_cost = Route(target, stand, need, first, length), cost
    return best


def reachable_targets(kitchen: KitchenMap, start: Pos, targets: tuple[Pos, ...]) -> tuple[Pos, ...]:
    """Targets some free cell next to them can be walked to (teammate ignored: it moves)."""
    dist = distances(kitchen, start)
    return tuple(t for t in targets if any(stand in dist for stand, _ in spots(kitchen, t)))
