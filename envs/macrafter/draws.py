"""The random numbers of one MA-Crafter step, drawn from the step's key as raw uint32 bits.

EmCoop draws from one NumPy RandomState as it goes (a cow's coin, its direction, a chunk's spawn
roll, the spawn cell); we draw every number a step may need up front from the step's key, so the
JAX env stays a pure function and the NumPy reference (`envs.macrafter.reference`) replays the
exact same numbers. Bits, not floats, so both sides decide identically: a probability p is met
when ``bits < threshold(p)`` and an index among n candidates is ``bits % n``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from numpy import uint32 as np_uint32

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


def step_draws(key: jax.Array, cow_capacity: int, num_chunks: int) -> StepDraws:
    """Every random number of one step, from its key (pure; jit/vmap freely). The four streams'
    bits come from one generator call: with partitionable threefry (JAX's default) each bit depends
    only on its key and index, so the first n of a longer draw are the n-long draw itself."""
    keys = jax.random.split(key, 4)
    if not jax.config.jax_threefry_partitionable:
        c, nc = (cow_capacity,), (num_chunks,)
        sizes = (c, c, nc, nc)
        return StepDraws(*(jax.random.bits(k, n, jnp.uint32) for k, n in zip(keys, sizes, strict=True)))
    bits = jax.vmap(lambda k: jax.random.bits(k, (max(cow_capacity, num_chunks),), jnp.uint32))(keys)
    return StepDraws(
        cow_move=bits[0, :cow_capacity],
        cow_dir=bits[1, :cow_capacity],
        chunk_roll=bits[2, :num_chunks],
        chunk_pick=bits[3, :num_chunks],
    )


def meets(bits: Array, probability: float) -> Array:
    """Which draws meet ``probability`` (works on NumPy and JAX arrays alike)."""
    bound = threshold(probability)
    if bound >= 2**32:
        return bits >= np_uint32(0)
    return bits < np_uint32(bound)


__all__ = ["StepDraws", "meets", "step_draws", "threshold"]
