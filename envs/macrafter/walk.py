"""The cows' part of EmCoop's object updates, in JAX: ``objects.Cow.update`` for every cow that may
move this step, in creation order (`envs.macrafter.update.update_objects` runs the cows older than
the seats before them and the younger after them).

A cow's coin, direction and target are fixed for the step, so the cows that may move are queued once
(`plan_walk`); what can change until a cow's turn (another cow's mark, a seat standing there, a seat's
placement) is read at its turn (`walk_cows`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.batched import batch_all, batch_max, cells_add, cells_get, fence
from envs.macrafter.draws import StepDraws, meets
from envs.macrafter.reduce import count
from envs.macrafter.state import COW_MARK

if TYPE_CHECKING:
    from envs.macrafter.update import ActTables, World


class Walk(NamedTuple):
    """The step's cows that may move, queued in creation order: the older than the seats first."""

    cells: jax.Array  # (C,) by queue place: the flat cell a cow leaves, shifted by `CELL_BITS`, | the one it enters
    older: jax.Array  # () how many queued cows are older than the seats (the queue's head)
    count: jax.Array  # () how many are queued
    place: jax.Array  # (C,) by slot: the cow's queue place, C for a cow not queued
    to_x: jax.Array  # (C,) by slot: the column it would enter
    to_y: jax.Array  # (C,) the row


Words = tuple[jax.Array, ...]  # uint32 words of one bit per cow slot (`moved_bit`)
CELL_BITS = 12  # a flat cell of the largest map (64 x 64) fits 12 bits: a queued move's two cells fit one int32


def plan_walk(at: ActTables, wd: World, cow_order: jax.Array, draws: StepDraws, older: jax.Array) -> Walk:
    """``Cow.update`` decides a move from its coin, its direction and its target cell: inside,
    walkable, free of seats and of every other cow as things stand when the cow's turn comes. The
    coin, the direction and the inside test are fixed for the step; a target's material changes
    only by a seat's placement (never to a walkable one), so a cow whose target is not walkable now
    never moves. The others are queued once, for both groups: the rest is read at each cow's turn
    (`walk_cows`). Columns and rows are worked on apart (a minor axis of 2 is slow on CPU) and a
    move's two cells are queued packed in one int32 (one scatter, one read per round)."""
    live = wd.cow_alive
    c = live.shape[0]
    h, w = wd.grid.shape
    assert h * w <= 1 << CELL_BITS, "a flat cell must fit CELL_BITS"
    heading = (draws.cow_dir % 4).astype(jnp.int32)
    from_x, from_y = wd.cow_pos[:, 0], wd.cow_pos[:, 1]
    x = from_x + jnp.where(heading == 0, -1, jnp.where(heading == 1, 1, 0))
    y = from_y + jnp.where(heading == 2, -1, jnp.where(heading == 3, 1, 0))
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    dst = jnp.where(inside, y * w + x, 0)
    cell = cells_get(wd.grid.reshape(-1), dst) & (COW_MARK - 1)  # the mark masked off
    due = live & (cow_order >= 0) & meets(draws.cow_move, at.cow_move_probability)
    queued = due & inside & _in_set(at.cow_walk, cell)
    place = _queue_places(queued, cow_order)  # each queued cow's place, c for the rest
    packed = ((from_y * w + from_x) << CELL_BITS) | dst  # only queued cows' are kept: their cells are real
    return Walk(
        cells=jnp.zeros(c, jnp.int32).at[place].set(packed, mode="drop"),
        older=jnp.sum(queued & older, dtype=jnp.int32),
        count=jnp.sum(queued, dtype=jnp.int32),
        place=place,
        to_x=x,
        to_y=y,
    )


WALK_BLOCK = 4  # queued cows decided per round of `walk_cows`


def walk_cows(
    at: ActTables, plan: Walk, wd: World, flat: jax.Array, moved: Words, first: jax.Array | int, count: jax.Array
) -> tuple[jax.Array, Words]:
    """The ``count`` queued cows from place ``first`` on, one after the other on the flat grid with
    the cows marked (`marked`): each moves when its target is still walkable (a seat may have placed
    something there), no seat of ``wd`` stands there and no cow is marked there now; it moves its
    own mark. That is exactly the one-by-one update. ``moved`` records who moved: bit ``q`` of its
    uint32 words for the cow at queue place ``q`` (`moved_bit`).

    A round takes `WALK_BLOCK` cows: one read of their targets and one write of their marks (a round's
    cost is mostly the latency of its one read and its one write). Within the round each cow sees
    the map as the earlier cows of its block left it: an earlier cow that moved took its mark from
    its own cell and put it on its target, and a cell's material never changes during the walk."""
    c, b = plan.cells.shape[0], WALK_BLOCK
    w = wd.grid.shape[1]
    seats = jnp.where(wd.in_world, wd.pos[:, 1] * w + wd.pos[:, 0], -1)
    queue = jnp.concatenate([plan.cells, jnp.zeros(b, plan.cells.dtype)])  # a block past the end reads zeros

    def decide(r: jax.Array, q: jax.Array, flat: jax.Array) -> tuple[jax.Array, jax.Array]:
        """(the block's packed cells, whether each of its cows moves) for the cows at places ``q`` on
        (a place past this env's ``count`` does not move)."""
        packed = jax.lax.dynamic_slice(queue, (jnp.minimum(q, c),), (b,))
        src, dst = packed >> CELL_BITS, packed & ((1 << CELL_BITS) - 1)
        now = fence(cells_get(flat, dst)).astype(jnp.int32)  # the reads apart, all in flight at once
        moves = []
        for j in range(b):
            cow = now[j] >= COW_MARK
            for i in range(j):  # the block's earlier cows, in their order
                cow = jnp.where(moves[i] & (dst[j] == src[i]), False, cow)
                cow = jnp.where(moves[i] & (dst[j] == dst[i]), True, cow)
            seat_there = functools.reduce(jnp.logical_or, [dst[j] == seats[a] for a in range(seats.shape[0])])
            walkable = _in_set(at.cow_walk, now[j] & (COW_MARK - 1))
            moves.append((b * r + j < count) & ~cow & walkable & ~seat_there)
        # one int of bits, not a stack: each element of a stack would recompute the chain before it
        return packed, functools.reduce(jnp.bitwise_or, [m.astype(jnp.int32) << j for j, m in enumerate(moves)])

    def settle(flat: jax.Array, moved: Words, q: jax.Array, packed: jax.Array, bits: jax.Array) -> tuple:
        """Write a decided block's marks and record its moves (``bits``: bit j for its j-th cow)."""
        step = jnp.where((bits >> jnp.arange(b)) & 1 == 1, jnp.int8(COW_MARK), jnp.int8(0))
        cells = jnp.concatenate([packed >> CELL_BITS, packed & ((1 << CELL_BITS) - 1)])
        flat = cells_add(flat, cells, jnp.concatenate([-step, step]))
        q32 = q.astype(jnp.uint32)
        for j in range(b):
            qj, bit = q32 + j, ((bits >> j) & 1).astype(jnp.uint32)
            moved = tuple(m | jnp.where(qj >> 5 == k, bit << (qj & 31), jnp.uint32(0)) for k, m in enumerate(moved))
        return flat, moved

    def one(r: jax.Array, carry: tuple) -> tuple:
        """Settle the last round's block, then decide this round's: each decision is computed once,
        into the loop's carry (read by both the marks' write and the record, XLA would recompute the
        whole chain of decisions in each)."""
        flat, moved, last_q, last_packed, last_move = carry
        flat, moved = settle(flat, moved, last_q, last_packed, last_move)
        q = first + b * r
        return (flat, moved, q, *decide(r, q, flat))

    rounds = (batch_max(count) + b - 1) // b  # the batch's longest stretch
    none = (jnp.asarray(first, jnp.int32), jnp.zeros(b, jnp.int32), jnp.int32(0))
    flat, moved, *last = jax.lax.fori_loop(0, rounds, one, (flat, moved, *none))
    return settle(flat, moved, *last)


def _words(c: int) -> int:
    """How many uint32 words hold one bit per cow slot."""
    return -(-c // 32)


def no_moves(c: int) -> Words:
    """The record of who moved for ``c`` cow slots, before any cow walks: words carried apart (a
    minor axis of 2 is slow on CPU)."""
    return tuple(jnp.uint32(0) for _ in range(_words(c)))


def moved_bit(words: Words, place: jax.Array) -> jax.Array:
    """Bit ``place`` of ``words`` for each entry of ``place`` (False past the words' bits), by a select
    over the few words (no gather)."""
    out = jnp.zeros(place.shape, jnp.uint32)
    for k in range(len(words)):
        shifted = words[k] >> (place.astype(jnp.uint32) & 31)
        out = jnp.where(place >> 5 == k, shifted, out)
    return (out & 1).astype(bool)


def _in_set(members: np.ndarray, mat: jax.Array) -> jax.Array:
    """``members[mat]`` for a bool table of materials, as a shift of one constant bit set (no gather)."""
    if len(members) > 31:  # more materials than bits: the table itself
        return jnp.asarray(members)[jnp.clip(mat, 0, len(members) - 1)] & (mat >= 0)
    bits = sum(1 << i for i in np.flatnonzero(members).tolist())
    return ((jnp.int32(bits) >> jnp.clip(mat, 0, 31)) & 1).astype(bool) & (mat >= 0) & (mat < 32)


def _queue_places(wants: jax.Array, cow_order: jax.Array) -> jax.Array:
    """Each wanting cow's place in creation order among the wanting cows (``c`` for the others).
    Slot order is creation order for the world's first cows (and mostly for later ones): then the
    place is the count of wanting cows in lower slots (a prefix sum). A spawn into a
    freed lower slot breaks that; then (for the whole batch, only when some env needs it) the
    place counts the wanting cows with smaller creation numbers."""
    c = wants.shape[0]
    below = jax.lax.associative_scan(jnp.add, wants.astype(jnp.int32)) - wants  # wanting cows in lower slots
    key = jnp.where(wants, cow_order, -1)
    # in order: each wanting cow is younger than every wanting cow in a lower slot (a running max, no scatter)
    newest = jax.lax.associative_scan(jnp.maximum, key)
    in_order = jnp.all(~wants[1:] | (key[1:] > newest[:-1]))

    def by_order(key: jax.Array) -> jax.Array:
        return count((key[None, :] >= 0) & (key[None, :] < key[:, None]))

    place = jax.lax.cond(batch_all(in_order), lambda _: below, by_order, key)
    return jnp.where(wants, place, c)


__all__ = ["CELL_BITS", "WALK_BLOCK", "Walk", "Words", "moved_bit", "no_moves", "plan_walk", "walk_cows"]
