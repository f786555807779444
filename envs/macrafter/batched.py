"""A ``lax.cond`` that stays a real skip inside a batch.

Under ``vmap`` a ``lax.cond`` on a per-env predicate becomes a select: both branches run for every
env on every step. `when` teaches vmap a better rule: run the branch over the whole batch only if
some env needs it, then keep its result where the predicate holds. Envs of a batch that advance
in step (the usual case: reset together, finished ones held) then skip the branch on every step
none of them needs it, and results are the same as with ``lax.cond`` in every case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

C = TypeVar("C")
A = TypeVar("A")


def when(pred: jax.Array, fn: Callable[[C, A], C], carry: C, args: A) -> C:
    """``fn(carry, args)`` where ``pred`` holds, else ``carry`` (pytrees of arrays; ``fn`` keeps the
    carry's shapes and dtypes). ``fn`` must not close over traced values: pass them in ``args``."""

    @custom_vmap
    def run(pred: jax.Array, carry: C, args: A) -> C:
        return jax.lax.cond(pred, fn, lambda c, _: c, carry, args)

    @run.def_vmap
    def _batched(axis_size: int, in_batched: list, pred: jax.Array, carry: C, args: A) -> tuple[C, C]:
        def full(x: jax.Array, batched: bool) -> jax.Array:
            return x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x)))

        pred_batched, carry_batched, args_batched = in_batched
        pred = full(pred, pred_batched)
        carry = jax.tree.map(full, carry, carry_batched)
        args = jax.tree.map(full, args, args_batched)

        def keep(new: jax.Array, old: jax.Array) -> jax.Array:
            return jnp.where(pred.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

        def some(carry: C, args: A) -> C:
            return jax.tree.map(keep, jax.vmap(fn)(carry, args), carry)

        out = jax.lax.cond(jnp.any(pred), some, lambda c, _: c, carry, args)
        return out, jax.tree.map(lambda _: True, out)

    return run(pred, carry, args)


def _unbatched(value: jax.Array, reduce: Callable[[jax.Array], jax.Array]) -> jax.Array:
    """``value`` (a scalar) for one env; under ``vmap``, ``reduce`` over the batch, unbatched."""

    @custom_vmap
    def same(value: jax.Array) -> jax.Array:
        return value

    @same.def_vmap
    def _batched(axis_size: int, in_batched: list, value: jax.Array) -> tuple[jax.Array, bool]:
        return (reduce(value) if in_batched[0] else value), False

    return same(value)


def batch_max(n: jax.Array) -> jax.Array:
    """``n`` (an int scalar) for one env; under ``vmap``, the largest ``n`` of the batch, unbatched.
    A loop bound taken from it stays one loop for the whole batch (a batched bound would turn the
    loop into a run-until-all-done with a select over its whole carry on every round); each env's
    own rounds past its ``n`` must then leave it unchanged."""
    return _unbatched(n, jnp.max)


def batch_all(pred: jax.Array) -> jax.Array:
    """``pred`` (a bool scalar) for one env; under ``vmap``, whether it holds for every env of the
    batch, unbatched: a ``lax.cond`` on it stays one real branch for the whole batch."""
    return _unbatched(pred, jnp.all)


def fence(bits: jax.Array) -> jax.Array:
    """``bits`` (unsigned ints), computed once into a buffer of their own. XLA fuses a cheap
    elementwise producer into each of its consumers, recomputing it in each; for a hash of many
    rounds (the step's draws) that costs more than the reads it saves. A conditional is a fusion
    boundary XLA keeps (``optimization_barrier`` is dropped on CPU before fusion); its predicate is
    always true but not a constant, and under ``vmap`` it stays one unbatched branch."""

    @custom_vmap
    def boundary(bits: jax.Array) -> jax.Array:
        first = bits.reshape(-1)[0]
        return jax.lax.cond((first | 1) != 0, lambda b: b, jnp.zeros_like, bits)

    @boundary.def_vmap
    def _batched(axis_size: int, in_batched: list, bits: jax.Array) -> tuple[jax.Array, bool]:
        return boundary(bits), in_batched[0]

    return boundary(bits)


def cells_add(flat: jax.Array, idx: jax.Array, upd: jax.Array) -> jax.Array:
    """``flat.at[idx].add(upd)`` for a flat map and indices always in range (no bounds checks).
    Under ``vmap`` the batch's maps are one flat buffer and each env's indices are offset into it:
    XLA's batched scatter pairs every index with its env's index (a concatenate per call) and
    costs more per update than a scatter into one flat array."""

    @custom_vmap
    def add(flat: jax.Array, idx: jax.Array, upd: jax.Array) -> jax.Array:
        return flat.at[idx].add(upd, mode="promise_in_bounds")

    @add.def_vmap
    def _batched(axis_size: int, in_batched: list, flat: jax.Array, idx: jax.Array, upd: jax.Array) -> tuple:
        flat, idx, upd = (_full(x, b, axis_size) for x, b in zip((flat, idx, upd), in_batched, strict=True))
        out = add(flat.reshape(-1), _offset(idx, flat.shape[1]), upd.reshape(-1))
        return out.reshape(flat.shape), True

    return add(flat, idx, upd)


def cells_get(flat: jax.Array, idx: jax.Array) -> jax.Array:
    """``flat[idx]`` for a flat map and indices always in range, one flat gather under ``vmap``
    (as `cells_add`)."""

    @custom_vmap
    def get(flat: jax.Array, idx: jax.Array) -> jax.Array:
        return flat.at[idx].get(mode="promise_in_bounds")

    @get.def_vmap
    def _batched(axis_size: int, in_batched: list, flat: jax.Array, idx: jax.Array) -> tuple:
        flat, idx = (_full(x, b, axis_size) for x, b in zip((flat, idx), in_batched, strict=True))
        return get(flat.reshape(-1), _offset(idx, flat.shape[1])).reshape(idx.shape), True

    return get(flat, idx)


def flat_cell(shape: tuple[int, int], x: jax.Array, y: jax.Array) -> jax.Array:
    """The index of cell ``(x, y)``, both clipped into a map of ``shape`` (h, w), in the flat map."""
    h, w = shape
    return jnp.clip(y, 0, h - 1) * w + jnp.clip(x, 0, w - 1)


def grid_at(grid: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    """``grid[y, x]`` with both clipped into the map (shaped as ``x``), one flat read (`cells_get`)."""
    cell = flat_cell(grid.shape, x, y)
    return cells_get(grid.reshape(-1), cell.reshape(-1)).reshape(jnp.shape(x))


def _full(x: jax.Array, batched: bool, axis_size: int) -> jax.Array:
    """``x`` with the batch axis in front (an operand shared by the batch is broadcast to it)."""
    return x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x)))


def _offset(idx: jax.Array, size: int) -> jax.Array:
    """(N, ...) per-env indices into maps of ``size`` cells as indices into their concatenation."""
    env = jnp.arange(idx.shape[0], dtype=idx.dtype).reshape((-1,) + (1,) * (idx.ndim - 1))
    return (idx + env * size).reshape(-1)


__all__ = ["batch_all", "batch_max", "cells_add", "cells_get", "fence", "flat_cell", "grid_at", "when"]
