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

from envs.macrafter.batched import grid_at
from envs.macrafter.draws import StepDraws, meets
from envs.macrafter.reduce import any_of, count
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


class Herd(NamedTuple):
    cow_pos: jax.Array
    cow_alive: jax.Array
    order: jax.Array  # (A + C,)
    next_order: jax.Array


def grass_spots(cfg: CrafterSettings, grid: jax.Array, pick: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(NC,) grass cells per chunk and (NC, 2) the spawn cell of each chunk: its ``pick % n``-th
    grass cell in EmCoop's x-major order (column by column, each from the top), meaningful where the
    chunk has grass. Each chunk's column is one word of bits, one per row (bit y for the chunk's y-th
    row): its grass count is the word's popcount and the chosen cell's row a count of prefixes, so
    the map is read once, row band by row band, with no transpose and no gather."""
    cs = cfg.chunk_size
    rows, cols = cfg.chunks
    h, w = grid.shape
    grass = grass_mask(grid)
    if cs > 32:  # a column of a chunk does not fit one word
        return _grass_spots_by_counts(cfg, grass, pick)
    bit = jnp.asarray(np.uint32(1) << (np.arange(h, dtype=np.uint32) % cs))  # each row's bit in its band
    marks = jnp.where(grass, bit[:, None], jnp.uint32(0))
    bands = jnp.stack([jnp.sum(marks[r * cs : (r + 1) * cs], 0, dtype=jnp.uint32) for r in range(rows)])
    words = jnp.pad(bands, ((0, 0), (0, cols * cs - w))).reshape(rows, cols, cs)  # (row, col, x)
    per_column = jax.lax.population_count(words).astype(jnp.int32)
    upto = _running_sum(per_column, -1)
    n = upto[..., -1]  # (row, col)
    k = (pick.reshape(rows, cols) % jnp.maximum(n, 1).astype(jnp.uint32)).astype(jnp.int32)
    lx = jnp.minimum(jnp.sum(upto <= k[..., None], -1, dtype=jnp.int8).astype(jnp.int32), cs - 1)
    chosen = jnp.arange(cs) == lx[..., None]  # (row, col, x): the column holding the k-th cell
    rest = k - jnp.sum(jnp.where(chosen, upto - per_column, 0), -1)  # its rank inside that column
    column = jnp.sum(jnp.where(chosen, words, jnp.uint32(0)), -1, dtype=jnp.uint32)  # (row, col)
    ly = jnp.zeros_like(rest)
    for y in range(cs):  # rows whose prefix of the column holds at most ``rest`` grass cells
        prefix = jax.lax.population_count(column & np.uint32((2 << y) - 1)).astype(jnp.int32)
        ly = ly + (prefix <= rest)
    ly = jnp.minimum(ly, cs - 1)
    x = jnp.arange(cols)[None, :] * cs + lx
    y = jnp.arange(rows)[:, None] * cs + ly
    return n.reshape(-1), jnp.stack([x, y], -1).reshape(-1, 2)


def grass_mask(grid: jax.Array) -> jax.Array:
    """The cells a cow may spawn on. EmCoop's plant is an object standing on grass: its cell counts
    as grass but holds an object."""
    return (grid == Material.GRASS) | (grid == Material.PLANT)


def _grass_spots_by_counts(cfg: CrafterSettings, grass: jax.Array, pick: jax.Array) -> tuple[jax.Array, jax.Array]:
    """`grass_spots` for chunks wider than a word, from the (H, W) grass mask: the map padded to
    whole chunks and viewed as (row, y, column, x) blocks."""
    cs = cfg.chunk_size
    rows, cols = cfg.chunks
    h, w = grass.shape
    blocks = jnp.pad(grass, ((0, rows * cs - h), (0, cols * cs - w))).reshape(rows, cs, cols, cs)
    narrow = jnp.int8 if cs < 128 else jnp.int32  # a column's count fits int8: XLA's CPU sums those fastest
    per_column = blocks.sum(1, dtype=narrow).astype(jnp.int32)  # (row, col, x)
    upto = _running_sum(per_column, -1)
    n = upto[..., -1]  # (row, col)
    k = (pick.reshape(rows, cols) % jnp.maximum(n, 1).astype(jnp.uint32)).astype(jnp.int32)
    lx = jnp.minimum(jnp.sum(upto <= k[..., None], -1, dtype=narrow).astype(jnp.int32), cs - 1)
    chosen = jnp.arange(cs) == lx[..., None]  # (row, col, x): the column holding the k-th cell
    rest = k - jnp.sum(jnp.where(chosen, upto - per_column, 0), -1)  # its rank inside that column
    column = jnp.any(blocks & chosen[:, None, :, :], -1)  # (row, y, col)
    below = _running_sum(column.astype(jnp.int32), 1) <= rest[:, None, :]
    ly = jnp.minimum(jnp.sum(below, 1, dtype=narrow).astype(jnp.int32), cs - 1)
    x = jnp.arange(cols)[None, :] * cs + lx
    y = jnp.arange(rows)[:, None] * cs + ly
    return n.reshape(-1), jnp.stack([x, y], -1).reshape(-1, 2)


def _running_sum(x: jax.Array, axis: int) -> jax.Array:
    """``jnp.cumsum`` along a short ``axis`` (a chunk's side) as unrolled adds: XLA's CPU cumsum is
    a windowed reduction that re-adds the whole prefix for every element and fuses with nothing."""
    parts = jnp.split(x, x.shape[axis], axis)
    out = [parts[0]]
    for part in parts[1:]:
        out.append(out[-1] + part)
    return jnp.concatenate(out, axis)


def chunk_of(cfg: CrafterSettings, pos: jax.Array) -> jax.Array:
    """The row-major chunk index of each (x, y)."""
    cols = cfg.chunks[1]
    return (pos[..., 1] // cfg.chunk_size) * cols + pos[..., 0] // cfg.chunk_size


def balance(
    cfg: CrafterSettings,
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
    nc = touched.size
    w = grid.shape[1]
    n_grass, spot = grass_spots(cfg, grid, draws.chunk_pick)
    cow_chunk = jnp.where(herd.cow_alive, chunk_of(cfg, herd.cow_pos), -1)
    n_cows = count(cow_chunk[None, :] == jnp.arange(nc)[:, None])  # (NC,)
    floor_ = jnp.where(n_grass < cfg.chunk_min_grass, 0, 1)
    ceil_ = jnp.asarray(ceiling)[jnp.clip(step, 0, len(ceiling) - 1)]
    live = touched.reshape(-1)
    spawn_try = live & (n_cows < floor_) & meets(draws.chunk_roll, cfg.cow_spawn_probability)
    leave_try = live & ~(n_cows < floor_) & (n_cows > ceil_) & meets(draws.chunk_roll, cfg.cow_despawn_probability)
    far = _away(seat_pos, seats, spot, cfg.cow_spawn_distance)
    spot_cell = spot[:, 1] * w + spot[:, 0]  # a real cell where the chunk has grass (else no spawn)
    cow_cell = jnp.where(herd.cow_alive, herd.cow_pos[:, 1] * w + herd.cow_pos[:, 0], -1)
    taken = any_of(cow_cell[None, :] == spot_cell[:, None])
    for a in range(seat_pos.shape[0]):  # unrolled: a reduction over the few seats is a scalar loop
        taken = taken | (seats[a] & (seat_pos[a, 1] * w + seat_pos[a, 0] == spot_cell))
    taken = taken | (grid_at(grid, spot[:, 0], spot[:, 1]) == Material.PLANT)
    spawn = spawn_try & (n_grass > 0) & far & ~taken
    left = _leave(cfg, herd, cow_chunk, n_cows, leave_try, draws, seat_pos, seats)
    # when each slot becomes free in the pass's chunk walk: -1 free before it, a despawn's chunk, nc never
    freed_at = jnp.where(herd.cow_alive, jnp.where(left.cow_alive, nc, cow_chunk), -1)
    return _spawn(left, spawn, spot, freed_at)


def _away(seat_pos: jax.Array, seats: jax.Array, cells: jax.Array, distance: int) -> jax.Array:
    """Whether every seat is at Manhattan ``distance`` or more from each of ``cells`` (N, 2)
    (unrolled over the few seats and the two axes: reductions that small are scalar loops)."""
    far = jnp.ones(cells.shape[:1], bool)
    for a in range(seat_pos.shape[0]):
        d = jnp.abs(cells[:, 0] - seat_pos[a, 0]) + jnp.abs(cells[:, 1] - seat_pos[a, 1])
        far = far & (~seats[a] | (d >= distance))
    return far


def _leave(
    cfg: CrafterSettings,
    herd: Herd,
    cow_chunk: jax.Array,
    n_cows: jax.Array,
    leave_try: jax.Array,
    draws: StepDraws,
    seat_pos: jax.Array,
    seats: jax.Array,
) -> Herd:
    """Despawns: the (pick % n)-th cow of the chunk in slot order leaves if every agent is far.
    Worked out per cow (its rank among its chunk's cows; ``cow_chunk`` -1 for an empty slot)."""
    c = herd.cow_alive.shape[0]
    k = (draws.chunk_pick % jnp.maximum(n_cows, 1).astype(jnp.uint32)).astype(jnp.int32)
    slot = jnp.arange(c)
    mates = (cow_chunk[None, :] == cow_chunk[:, None]) & (cow_chunk[:, None] >= 0)  # (C, C): alive, same chunk
    rank = count(mates & (slot[None, :] < slot[:, None]))
    mine = jnp.maximum(cow_chunk, 0)
    mine_k = k[mine]  # (C,) the pick of each cow's chunk
    tries = leave_try[mine] & (cow_chunk >= 0)
    far = _away(seat_pos, seats, herd.cow_pos, cfg.cow_despawn_distance)
    gone = tries & (rank == mine_k) & far
    n = herd.order.shape[0] - c
    return herd._replace(
        cow_alive=herd.cow_alive & ~gone,
        cow_pos=jnp.where(gone[:, None], -1, herd.cow_pos),
        order=herd.order.at[n:].set(jnp.where(gone, -1, herd.order[n:])),
    )


def _spawn(herd: Herd, spawn: jax.Array, spot: jax.Array, freed_at: jax.Array) -> Herd:
    """New cows, chunk by chunk in walk order, each into the first slot free when the walk reaches
    its chunk (free before the pass, or freed by a despawn in an earlier chunk: a later chunk's
    despawn does not free a slot for an earlier chunk's cow), with the next creation number.

    A loop over the pass's spawns (usually none or one; vmap runs the batch's longest), since the
    slot a cow takes depends on the cows placed before it."""
    c = herd.cow_alive.shape[0]
    n = herd.order.shape[0] - c
    slots = jnp.arange(c)

    def place(carry: tuple[jax.Array, Herd]) -> tuple[jax.Array, Herd]:
        waiting, h = carry
        chunk = jnp.argmax(waiting)  # the first chunk still to spawn
        open_ = ~h.cow_alive & (freed_at < chunk)
        slot = jnp.argmax(open_)
        hit = (slots == slot) & open_[slot]
        cows = h.order[n:]
        return waiting & (jnp.arange(waiting.shape[0]) != chunk), Herd(
            cow_pos=jnp.where(hit[:, None], spot[chunk], h.cow_pos),
            cow_alive=h.cow_alive | hit,
            order=h.order.at[n:].set(jnp.where(hit, h.next_order, cows)),
            next_order=h.next_order + open_[slot].astype(jnp.int32),
        )

    _, herd = jax.lax.while_loop(lambda carry: jnp.any(carry[0]), place, (spawn, herd))
    return herd


__all__ = ["Herd", "balance", "chunk_of", "cow_ceiling", "daylight_table", "grass_spots"]
