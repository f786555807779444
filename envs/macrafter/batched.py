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


def batch_max(n: jax.Array) -> jax.Array:
    """``n`` (an int scalar) for one env; under ``vmap``, the largest ``n`` of the batch, unbatched.
    A loop bound taken from it stays one loop for the whole batch (a batched bound would turn the
    loop into a run-until-all-done with a select over its whole carry on every round); each env's
    own rounds past its ``n`` must then leave it unchanged."""

    @custom_vmap
    def bound(n: jax.Array) -> jax.Array:
        return n

    @bound.def_vmap
    def _batched(axis_size: int, in_batched: list, n: jax.Array) -> tuple[jax.Array, bool]:
        return (jnp.max(n) if in_batched[0] else n), False

    return bound(n)


def batch_all(pred: jax.Array) -> jax.Array:
    """``pred`` (a bool scalar) for one env; under ``vmap``, whether it holds for every env of the
    batch, unbatched: a ``lax.cond`` on it stays one real branch for the whole batch."""

    @custom_vmap
    def every(pred: jax.Array) -> jax.Array:
        return pred

    @every.def_vmap
    def _batched(axis_size: int, in_batched: list, pred: jax.Array) -> tuple[jax.Array, bool]:
        return (jnp.all(pred) if in_batched[0] else pred), False

    return every(pred)


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


__all__ = ["batch_all", "batch_max", "fence", "when"]
