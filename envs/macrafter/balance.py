"""EmCoop's cow balancing (``env._balance_chunk``), in JAX: every ``balance_every`` steps, each
chunk that ever held an object may gain a cow (none there, enough grass, a roll) or lose one
(more than the daylight allows, a roll), away from every agent.

EmCoop walks its chunk dictionary in the order chunks were first touched and draws from one
random stream as it goes; we walk the chunks row by row and give each its own two draws
(`envs.macrafter.draws`), so a new cow may take another slot and creation number than EmCoop
would give it. The rules (who may spawn, where, when) are EmCoop's.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.draws import StepDraws, meets
from envs.macrafter.rules import Material
from envs.macrafter.settings import CrafterSettings


def daylight_table(horizon: int) -> np.ndarray:
    """EmCoop's ``_update_time`` daylight at each step 0..horizon (float64, as EmCoop computes it)."""
    steps = np.arange(horizon + 1, dtype=np.float64)
    progress = (steps / 300) % 1 + 0.3
    return 1 - np.abs(np.cos(np.pi * progress)) ** 3


def cow_ceiling(horizon: int) -> np.ndarray:
    """``int(1.5 + daylight)`` per step: the most cows a chunk keeps before one may leave."""
    return np.asarray([math.floor(1.5 + d) for d in daylight_table(horizon)], np.int32)


def chunk_cells(cfg: CrafterSettings) -> np.ndarray:
    """(NC, cs*cs, 2) each chunk's cells (x, y) in x-major order (EmCoop's mask order) at index
    ``x_local * cs + y_local`` (the layout of `chunk_blocks`), (-1, -1) where a chunk at the map's
    edge is smaller."""
    cs = cfg.chunk_size
    rows, cols = cfg.chunks
    out = np.full((rows * cols, cs * cs, 2), -1, np.int32)
    for r in range(rows):
        for c in range(cols):
            for lx in range(cs):
                for ly in range(cs):
                    x, y = c * cs + lx, r * cs + ly
                    if x < cfg.width and y < cfg.height:
                        out[r * cols + c, lx * cs + ly] = (x, y)
    return out


class Herd(NamedTuple):
    cow_pos: jax.Array
    cow_alive: jax.Array
    order: jax.Array  # (A + C,)
    next_order: jax.Array


def kth_true(mask: jax.Array, k: jax.Array) -> jax.Array:
    """The index of the k-th True (from 0) along the last axis, in two levels of blocks of about
    sqrt(n): XLA's cumsum on CPU costs the square of its length, so a 144-cell chunk is counted as
    12 columns of 12 cells (288 adds a chunk, not 20,736)."""
    n = mask.shape[-1]
    side = math.isqrt(n - 1) + 1
    padded = jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, side * side - n)])
    blocks = padded.reshape(*mask.shape[:-1], side, side)
    per_block = blocks.sum(-1)
    before = jnp.cumsum(per_block, -1) - per_block  # Trues before each block
    block = jnp.sum((jnp.cumsum(per_block, -1) <= k[..., None]).astype(jnp.int32), -1)
    block = jnp.minimum(block, side - 1)
    rest = k - jnp.take_along_axis(before, block[..., None], -1)[..., 0]
    inner = jnp.take_along_axis(blocks, block[..., None, None], -2)[..., 0, :]
    offset = jnp.sum((jnp.cumsum(inner, -1) <= rest[..., None]).astype(jnp.int32), -1)
    return block * side + jnp.minimum(offset, side - 1)


def chunk_blocks(cfg: CrafterSettings, grid: jax.Array) -> jax.Array:
    """(NC, cs*cs) each chunk's materials in `chunk_cells` order (-1 beyond the map's edge), by
    padding and reshaping the grid: no gather, which keeps the batched step fast."""
    cs = cfg.chunk_size
    rows, cols = cfg.chunks
    h, w = grid.shape
    padded = jnp.pad(grid, ((0, rows * cs - h), (0, cols * cs - w)), constant_values=-1)
    blocks = padded.reshape(rows, cs, cols, cs).transpose(0, 2, 3, 1)  # (row, col, x, y): x-major
    return blocks.reshape(rows * cols, cs * cs)


def chunk_of(cfg: CrafterSettings, pos: jax.Array) -> jax.Array:
    """The row-major chunk index of each (x, y)."""
    cols = cfg.chunks[1]
    return (pos[..., 1] // cfg.chunk_size) * cols + pos[..., 0] // cfg.chunk_size


def balance(
    cfg: CrafterSettings,
    cells: np.ndarray,
    ceiling: np.ndarray,
    herd: Herd,
    grid: jax.Array,
    touched: jax.Array,
    seat_pos: jax.Array,
    seats: jax.Array,
    step: jax.Array,
    draws: StepDraws,
) -> Herd:
    """One balancing pass (call it on steps divisible by ``balance_every``). ``seats`` marks every
    seat of the team (removed ones too: EmCoop measures from all its players)."""
    nc = cells.shape[0]
    h, w = grid.shape
    cx, cy = jnp.asarray(cells[..., 0]), jnp.asarray(cells[..., 1])
    cell = chunk_blocks(cfg, grid)
    # EmCoop's plant is an object standing on grass: its cell counts as grass but holds an object
    grass = (cell == Material.GRASS) | (cell == Material.PLANT)  # (NC, cs*cs)
    n_grass = grass.sum(-1)
    cow_chunk = jnp.where(herd.cow_alive, chunk_of(cfg, herd.cow_pos), -1)
    in_chunk = cow_chunk[None, :] == jnp.arange(nc)[:, None]  # (NC, C)
    n_cows = in_chunk.sum(-1)
    floor_ = jnp.where(n_grass < cfg.chunk_min_grass, 0, 1)
    ceil_ = jnp.asarray(ceiling)[jnp.clip(step, 0, len(ceiling) - 1)]
    live = touched.reshape(-1)
    spawn_try = live & (n_cows < floor_) & meets(draws.chunk_roll, cfg.cow_spawn_probability)
    leave_try = live & ~(n_cows < floor_) & (n_cows > ceil_) & meets(draws.chunk_roll, cfg.cow_despawn_probability)
    # the spawn cell: the (pick % grass)-th grass cell in x-major order
    k = (draws.chunk_pick % jnp.maximum(n_grass, 1).astype(jnp.uint32)).astype(jnp.int32)
    idx = kth_true(grass, k)
    spot = jnp.stack([cx[jnp.arange(nc), idx], cy[jnp.arange(nc), idx]], -1)  # (NC, 2)
    far = _away(seat_pos, seats, spot, cfg.cow_spawn_distance)
    taken = jnp.any(herd.cow_alive[None] & jnp.all(herd.cow_pos[None] == spot[:, None], -1), -1)
    taken = taken | jnp.any(seats[None] & jnp.all(seat_pos[None] == spot[:, None], -1), -1)
    taken = taken | (grid[jnp.clip(spot[:, 1], 0, h - 1), jnp.clip(spot[:, 0], 0, w - 1)] == Material.PLANT)
    spawn = spawn_try & (n_grass > 0) & far & ~taken
    herd = _leave(cfg, herd, in_chunk, n_cows, leave_try, draws, seat_pos, seats)
    return _spawn(herd, spawn, spot)


def _away(seat_pos: jax.Array, seats: jax.Array, cells: jax.Array, distance: int) -> jax.Array:
    """Whether every seat is at Manhattan ``distance`` or more from each of ``cells`` (N, 2)."""
    d = jnp.abs(cells[:, None, :] - seat_pos[None, :, :]).sum(-1)
    return jnp.all(~seats[None] | (d >= distance), -1)


def _leave(
    cfg: CrafterSettings,
    herd: Herd,
    in_chunk: jax.Array,
    n_cows: jax.Array,
    leave_try: jax.Array,
    draws: StepDraws,
    seat_pos: jax.Array,
    seats: jax.Array,
) -> Herd:
    """Despawns: the (pick % n)-th cow of the chunk in slot order leaves if every agent is far."""
    k = (draws.chunk_pick % jnp.maximum(n_cows, 1).astype(jnp.uint32)).astype(jnp.int32)
    pick = kth_true(in_chunk, k)  # (NC,) slot
    far = _away(seat_pos, seats, herd.cow_pos[pick], cfg.cow_despawn_distance)
    c = herd.cow_alive.shape[0]
    gone = jnp.any((leave_try & far)[:, None] & (pick[:, None] == jnp.arange(c)[None, :]), 0)  # no scatter
    n = herd.order.shape[0] - c
    return herd._replace(
        cow_alive=herd.cow_alive & ~gone,
        cow_pos=jnp.where(gone[:, None], -1, herd.cow_pos),
        order=herd.order.at[n:].set(jnp.where(gone, -1, herd.order[n:])),
    )


def _spawn(herd: Herd, spawn: jax.Array, spot: jax.Array) -> Herd:
    """New cows into the first free slots, in chunk order, with the next creation numbers."""
    c = herd.cow_alive.shape[0]
    n = herd.order.shape[0] - c
    free = ~herd.cow_alive
    free_rank = jnp.cumsum(free) - 1  # rank of each free slot
    want = jnp.cumsum(spawn) - 1  # rank of each spawning chunk
    fits = spawn & (want < free.sum())
    # slot s takes the chunk whose rank equals its free rank
    match = free[None, :] & (free_rank[None, :] == want[:, None]) & fits[:, None]  # (NC, C)
    filled = jnp.any(match, 0)
    src = jnp.argmax(match, 0)
    new_order = herd.next_order + jnp.where(filled, want[src], 0)
    return Herd(
        cow_pos=jnp.where(filled[:, None], spot[src], herd.cow_pos),
        cow_alive=herd.cow_alive | filled,
        order=herd.order.at[n:].set(jnp.where(filled, new_order, herd.order[n:])),
        next_order=herd.next_order + fits.sum().astype(jnp.int32),
    )


__all__ = ["Herd", "balance", "chunk_blocks", "chunk_cells", "chunk_of", "cow_ceiling", "daylight_table"]
