"""The random numbers of one MA-Crafter step, drawn from the step's key as raw uint32 bits.

EmCoop draws from one NumPy RandomState as it goes (a cow's coin, its direction, a chunk's spawn
roll, the spawn cell); we draw every number a step may need up front from the step's key, so the
JAX env stays a pure function and the NumPy reference (`envs.macrafter.reference`) replays the
exact same numbers. Bits, not floats, so both sides decide identically: a probability p is met
when ``bits < threshold(p)`` and an index among n candidates is ``bits % n``.
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from numpy import uint32 as np_uint32

from envs.macrafter.batched import fence, when

Array = Any


class StepDraws(NamedTuple):
    cow_move: Array  # (C,) uint32: does the cow try to move
    cow_dir: Array  # (C,) uint32: which way (% 4)
    chunk_roll: Array  # (NC,) uint32: the chunk's spawn or despawn roll
    chunk_pick: Array  # (NC,) uint32: which grass cell / which cow


def threshold(probability: float) -> int:
    """The uint32 bound under which a draw meets ``probability`` (exactly 0 never, 1 always)."""
    if probability >= 1.0:
        return 2**32
    return int(probability * 2**32)


# Jitted: called eagerly (a reference replay, a benchmark's draws), the fences' custom batching rules would
# compile every operation anew on every call (about 0.1 s a step); inside a traced step the jit is inlined.
@partial(jax.jit, static_argnames=("cow_capacity", "num_chunks"))
def step_draws(key: jax.Array, cow_capacity: int, num_chunks: int, balancing: jax.Array | None = None) -> StepDraws:
    """Every random number of one step, from its key (pure; jit/vmap freely): the bits of
    ``jax.random.bits`` on the four keys of ``jax.random.split(key, 4)``, one stream each. Given
    ``balancing`` (whether the step balances the cows), the chunks' two streams are computed only
    where it holds (in a batch: on the steps some env balances) and are zeros elsewhere: only a
    balancing pass reads them, and most steps do not balance."""
    key = jnp.asarray(key)
    if not jax.config.jax_threefry_partitionable or key.dtype != jnp.uint32 or key.shape != (2,):
        keys = jax.random.split(key, 4)
        sizes = (cow_capacity, cow_capacity, num_chunks, num_chunks)
        return StepDraws(*(jax.random.bits(k, (n,), jnp.uint32) for k, n in zip(keys, sizes, strict=True)))
    # The same bits, computed here: partitionable threefry hashes each index with the key, so the
    # streams are (2, n) hashes, unrolled (JAX's CPU lowering loops over the rounds, which costs
    # more than the hash at these sizes).
    split = jnp.stack(_threefry(key[0], key[1], jnp.zeros(4, jnp.uint32), jnp.arange(4, dtype=jnp.uint32)))
    split = fence(split)  # once, not once per element of the streams
    cows = _streams(split[:, :2], cow_capacity)
    if balancing is None:
        chunks = _streams(split[:, 2:], num_chunks)
    else:
        blank = jnp.zeros((2, num_chunks), jnp.uint32)
        chunks = when(balancing, lambda _, keys: _streams(keys, num_chunks), blank, split[:, 2:])
    return StepDraws(cows[0], cows[1], chunks[0], chunks[1])


def _streams(keys: jax.Array, n: int) -> jax.Array:
    """(S, n) the first ``n`` bits of each stream keyed by the columns of ``keys`` (2, S)."""
    hi, lo = _threefry(keys[0][:, None], keys[1][:, None], jnp.zeros((1, n), jnp.uint32), _iota(n)[None, :])
    return fence(hi ^ lo)  # computed once: left fusable, XLA copies the hash into every consumer of a stream


_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _iota(n: int) -> jax.Array:
    return jnp.arange(n, dtype=jnp.uint32)


def _threefry(k1: jax.Array, k2: jax.Array, x1: jax.Array, x2: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Threefry-2x32 with 20 rounds (Salmon et al., 2011), as JAX's generator computes it."""
    ks = (k1, k2, k1 ^ k2 ^ np_uint32(0x1BD11BDA))
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            x1 = x1 + x2
            x2 = x1 ^ ((x2 << np_uint32(r)) | (x2 >> np_uint32(32 - r)))
        x1 = x1 + ks[(group + 1) % 3]
        x2 = x2 + ks[(group + 2) % 3] + np_uint32(group + 1)
    return x1, x2


def meets(bits: Array, probability: float) -> Array:
    """Which draws meet ``probability`` (works on NumPy and JAX arrays alike)."""
    bound = threshold(probability)
    if bound >= 2**32:
        return bits >= np_uint32(0)
    return bits < np_uint32(bound)


__all__ = ["StepDraws", "meets", "step_draws", "threshold"]
