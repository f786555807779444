"""The NumPy reference's chunk balancing: EmCoop's ``env.Env._balance_chunk`` / ``_balance_object``.

Every ``balance_every`` steps each chunk that ever held an object (``engine.World._chunks``) may
spawn a cow on one of its grass cells or despawn one of its cows, both away from every player.
EmCoop draws from one RandomState as it goes; here each chunk has its own roll and pick bits
(``StepDraws.chunk_roll`` / ``chunk_pick``, chunk index ``row * columns + column``), and chunks are
visited in row-major order (EmCoop: the order its chunk dict was filled; each chunk only ever
changes itself, so the order does not change the outcome for the same draws).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.macrafter.draws import StepDraws, threshold
from envs.macrafter.rules import Material

if TYPE_CHECKING:
    from envs.macrafter.reference import Cell, World

DAY_LENGTH = 300  # env.Env._update_time: the day's period in steps (no setting names it)


def daylight(step: int) -> float:
    """``env.Env._update_time``: 1 - |cos(pi * ((step / 300) % 1 + 0.3))| ** 3, in float64."""
    progress = (step / DAY_LENGTH) % 1 + 0.3
    return float(1 - np.abs(np.cos(np.pi * progress)) ** 3)


def chunk_bounds(world: World, row: int, column: int) -> tuple[int, int, int, int]:
    """``engine.World.chunk_key``: (xmin, xmax, ymin, ymax), clipped at the map's edge."""
    size = world.settings.chunk_size
    x0, y0 = column * size, row * size
    return x0, min(x0 + size, world.settings.width), y0, min(y0 + size, world.settings.height)


def balance_chunks(world: World, draws: StepDraws) -> None:
    """The step's ``if self._step % 10 == 0: for chunk, objs in self._world.chunks.items():
    self._balance_chunk(chunk, objs)``, with the daylight of this step."""
    if world.step % world.settings.balance_every != 0:
        return
    light = daylight(world.step)
    rows, columns = world.touched.shape
    for row in range(rows):
        for column in range(columns):
            if world.touched[row, column]:
                index = row * columns + column
                balance_chunk(world, row, column, light, int(draws.chunk_roll[index]), int(draws.chunk_pick[index]))


def balance_chunk(world: World, row: int, column: int, light: float, roll: int, pick: int) -> None:
    """``_balance_chunk`` -> ``_balance_object(chunk, objs, Cow, 'grass', 5, 5, 0.01, 0.1, ...)``:
    fewer cows than ``0 if grass < 30 else 1`` -> maybe spawn; more than ``int(1.5 + daylight)``
    -> maybe despawn one. A plant is an object standing on grass in EmCoop, so a PLANT cell counts
    as grass here (and is never empty)."""
    settings = world.settings
    x0, x1, y0, y1 = chunk_bounds(world, row, column)
    cows = [
        int(cow)
        for cow in np.flatnonzero(world.cow_alive)
        if x0 <= world.cow_pos[cow, 0] < x1 and y0 <= world.cow_pos[cow, 1] < y1
    ]
    region = world.grid[y0:y1, x0:x1]
    grass = (region == Material.GRASS) | (region == Material.PLANT)
    target_min = 0 if int(grass.sum()) < settings.chunk_min_grass else 1
    target_max = int(1.5 + light)
    if len(cows) < target_min and roll < threshold(settings.cow_spawn_probability):
        xs, ys = np.nonzero(grass.T)  # EmCoop's xs/ys tiles: x outer, y inner
        if len(xs) > 0:
            index = pick % len(xs)
            spawn(world, (x0 + int(xs[index]), y0 + int(ys[index])))
    elif len(cows) > target_max and roll < threshold(settings.cow_despawn_probability):
        despawn(world, cows[pick % len(cows)])


def away_from_players(world: World, cell: Cell, distance: int) -> bool:
    """Every player (``self._players``: removed ones too, where they fell) at Manhattan >= distance."""
    for seat in range(world.capacity):
        if world.active[seat]:
            x, y = world.seat_cell(seat)
            if abs(x - cell[0]) + abs(y - cell[1]) < distance:
                return False
    return True


def spawn(world: World, cell: Cell) -> None:
    """A cow on ``cell`` if no object is there and every player is far enough; it takes the first
    free cow slot (none free: no cow, a limit of our fixed shapes that EmCoop does not have)."""
    empty = cell not in world.occupant and world.material(cell) != Material.PLANT
    if not empty or not away_from_players(world, cell, world.settings.cow_spawn_distance):
        return
    free = np.flatnonzero(~world.cow_alive)
    if len(free) > 0:
        world.add_cow(int(free[0]), cell)


def despawn(world: World, cow: int) -> None:
    """The picked cow leaves if every player is far enough from it."""
    cell = (int(world.cow_pos[cow, 0]), int(world.cow_pos[cow, 1]))
    if away_from_players(world, cell, world.settings.cow_despawn_distance):
        world.remove_cow(cow)


__all__ = ["DAY_LENGTH", "balance_chunks", "daylight"]
