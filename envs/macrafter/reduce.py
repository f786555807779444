"""Counts and tests over a mask's last axis that XLA's CPU backend runs fast.

XLA on CPU rewrites a reduction over more than a few dozen elements into a windowed reduction
that it does not fuse with the reduction's input: a (C, C) comparison summed over its last axis
is first written out whole as int32 (for 1,024 envs and 64 cows, 16 MB per call), then read
again. Summed in groups of 8 as int8 (a group's count fits), the comparison fuses into the sum
and the sum vectorises: about 8 times faster for (64, 64) per env, same result.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

GROUP = 8  # a group's count fits int8; wider int8 groups or int16 sums measured slower


def _grouped(mask: jax.Array) -> jax.Array:
    """``mask`` as int8 with its last axis split into groups of `GROUP` (padded with False)."""
    n = mask.shape[-1]
    pad = -n % GROUP
    m = mask.astype(jnp.int8)
    if pad:
        m = jnp.pad(m, [(0, 0)] * (mask.ndim - 1) + [(0, pad)])
    return m.reshape(*m.shape[:-1], (n + pad) // GROUP, GROUP)


def count(mask: jax.Array) -> jax.Array:
    """How many entries of the bool ``mask``'s last axis hold, int32 (``jnp.sum(mask, -1)``)."""
    if mask.shape[-1] <= GROUP:
        return jnp.sum(mask, -1, dtype=jnp.int32)
    return jnp.sum(jnp.sum(_grouped(mask), -1, dtype=jnp.int8), -1, dtype=jnp.int32)


def any_of(mask: jax.Array) -> jax.Array:
    """Whether any entry of the bool ``mask``'s last axis holds (``jnp.any(mask, -1)``)."""
    if mask.shape[-1] <= GROUP:
        return jnp.any(mask, -1)
    return jnp.max(jnp.max(_grouped(mask), -1), -1) > 0


__all__ = ["GROUP", "any_of", "count"]
