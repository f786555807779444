"""Cells, targets and path finding on an MA-Crafter view (the whole world or one seat's belief).

A seat's believed view (`perception`) holds ``UNKNOWN`` in the cells it has never seen, so every
reader here goes through `tile`, never ``Material(...)`` of a raw cell. Path finding is a BFS over
walkable cells that no other agent stands on; a target (a tree, a table, a teammate) is reached
when the agent stands next to it and faces it, which is where DO, MAKE_* and sharing act.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from envs.macrafter.rules import MOVES, VECTORS, WALKABLE, Action, Material
from envs.macrafter.symbolic import CrafterView, Pos

UNKNOWN = -1  # a believed cell the seat has never seen
_WALKABLE = frozenset(int(m) for m in WALKABLE)
DIRECTIONS: dict[str, Action] = {"left": Action.LEFT, "right": Action.RIGHT, "up": Action.UP, "down": Action.DOWN}
_MOVE_OF: dict[Pos, Action] = {vector: action for action, vector in VECTORS.items()}
_STEPS: tuple[tuple[Action, Pos], ...] = tuple((move, VECTORS[move]) for move in MOVES)


def tile(view: CrafterView, cell: Pos) -> int | None:
    """The cell's material value (``UNKNOWN`` if never seen), None outside the world."""
    x, y = cell
    if 0 <= x < view.width and 0 <= y < view.height:
        return view.grid[y][x]
    return None


def neighbours(cell: Pos) -> list[Pos]:
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in (VECTORS[m] for m in MOVES)]


def occupied(view: CrafterView, seat: int) -> set[Pos]:
    """Cells other live agents stand on (cows are drawn into the grid, which blocks them already)."""
    return {a.position for a in view.agents if a.alive and a.seat != seat}


def walkable(
    view: CrafterView, cell: Pos, taken: set[Pos], optimistic: bool = False, dig: frozenset[int] = frozenset()
) -> bool:
    """Whether an agent could step into ``cell`` now (``optimistic``: unseen cells count as open;
    ``dig``: materials it can mine away on its own count as open too)."""
    value = tile(view, cell)
    if value is None or cell in taken:
        return False
    return value in _WALKABLE or value in dig or (optimistic and value == UNKNOWN)


def cells_of(view: CrafterView, materials: Iterable[Material]) -> list[Pos]:
    """Every known cell holding one of ``materials``, in reading order."""
    wanted = {int(m) for m in materials}
    return [(x, y) for y, row in enumerate(view.grid) for x, value in enumerate(row) if value in wanted]


def distances(
    view: CrafterView, seat: int, optimistic: bool = False, dig: frozenset[int] = frozenset()
) -> dict[Pos, tuple[int, Action | None]]:
    """BFS from the seat's cell: each reachable cell's distance and the first move towards it."""
    start = view.agents[seat].position
    taken = occupied(view, seat)
    open_values = _WALKABLE | dig | ({UNKNOWN} if optimistic else set())
    grid, width, height = view.grid, view.width, view.height
    seen: dict[Pos, tuple[int, Action | None]] = {start: (0, None)}
    queue: deque[Pos] = deque([start])
    while queue:
        cell = queue.popleft()
        dist, first = seen[cell]
        for move, (dx, dy) in _STEPS:
            x, y = cell[0] + dx, cell[1] + dy
            inside = 0 <= x < width and 0 <= y < height
            if inside and (x, y) not in seen and grid[y][x] in open_values and (x, y) not in taken:
                seen[(x, y)] = (dist + 1, move if first is None else first)
                queue.append((x, y))
    return seen


def toward(cell: Pos, target: Pos) -> Action | None:
    """The move that faces ``target`` from ``cell`` when they are side by side, else None."""
    return _MOVE_OF.get((target[0] - cell[0], target[1] - cell[1]))


def stand_cells(view: CrafterView, seat: int, target: Pos) -> list[Pos]:
    """The cells beside ``target`` the seat could stand on (its own cell counts)."""
    me = view.agents[seat].position
    taken = occupied(view, seat)
    return [c for c in neighbours(target) if c == me or walkable(view, c, taken)]


def _way(view: CrafterView, seat: int, target: Pos, reach: dict) -> tuple[int, Action | None] | None:
    """(steps, first move) to stand beside ``target``: the turning move when already beside it."""
    turn = toward(view.agents[seat].position, target)
    if turn is not None:
        return 0, turn
    options = [reach[c] for c in neighbours(target) if c in reach]
    return min(options, key=lambda r: r[0]) if options else None


def route(
    view: CrafterView, seat: int, targets: Iterable[Pos], ordered: bool = False, dig: frozenset[int] = frozenset()
) -> tuple[int, Pos | None, Action | None]:
    """``(steps, target, first move)`` of the shortest walk to stand beside one of ``targets``
    (``ordered``: the first of them that can be reached, however far; a faced one first among
    equals): 0 steps and the turning move when already beside it, ``(-1, None, None)`` when none
    is reachable. Known walkable cells first; then through ``dig`` materials (the walk mines them);
    then through unseen cells as if open."""
    targets = list(targets)
    faced = view.agents[seat].faced_cell
    passes = ((False, frozenset()), (False, dig), (True, dig)) if dig else ((False, dig), (True, dig))
    maps: dict[tuple[bool, frozenset[int]], dict] = {}

    def reach(way: tuple[bool, frozenset[int]]) -> dict:
        if way not in maps:
            maps[way] = distances(view, seat, *way)
        return maps[way]

    if ordered:
        for target in targets:
            for way in passes:
                found = _way(view, seat, target, reach(way))
                if found is not None:
                    return found[0], target, found[1]
        return -1, None, None
    for way in passes:
        options = [(w[0], t != faced, t, w[1]) for t in targets if (w := _way(view, seat, t, reach(way))) is not None]
        if options:
            steps, _, target, move = min(options, key=lambda f: (f[0], f[1]))
            return steps, target, move
    return -1, None, None


def facing(view: CrafterView, seat: int, target: Pos) -> bool:
    return view.agents[seat].faced_cell == target


def chebyshev(a: Pos, b: Pos) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def manhattan(a: Pos, b: Pos) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


__all__ = [
    "DIRECTIONS",
    "UNKNOWN",
    "cells_of",
    "chebyshev",
    "distances",
    "facing",
    "manhattan",
    "neighbours",
    "occupied",
    "route",
    "stand_cells",
    "tile",
    "toward",
    "walkable",
]
