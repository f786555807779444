"""Parameter initializers shared by every network family of the RL program."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp


def orthogonal(scale: float) -> Callable[..., jax.Array]:
    """flax's ``orthogonal`` initializer (same normal draw, same Haar-orthogonal matrix up to float
    rounding), with the QR done by Gram-Schmidt in plain jnp instead of LAPACK.

    Why: jaxlib 0.10's CPU LAPACK kernels split a batch over XLA's intra-op thread pool and block
    until the pieces finish. When two such calls run at once (a population init vmaps one batched
    QR per layer, and independent layers run concurrently) on a 2-thread pool, both threads wait
    for pieces that no free thread can run: the program never finishes. That hung CI three times
    (gdb: both pool threads in ``lapack_sgeqrf_ffi`` -> ``ParallelBatchMap`` ->
    ``BlockingCounter::Wait``). jaxlib 0.11 drops that path, but it needs Python 3.12.
    """

    def init(key: jax.Array, shape: tuple[int, ...], dtype: Any = jnp.float32) -> jax.Array:
        cols = shape[-1]
        rows = math.prod(shape) // cols
        tall = (rows, cols) if rows >= cols else (cols, rows)
        q = _orthonormal_columns(jax.random.normal(key, tall, jnp.float32))
        q = q if rows >= cols else q.T
        return (scale * q).reshape(shape).astype(dtype)

    return init


def _orthonormal_columns(a: jax.Array) -> jax.Array:
    """Q of a = QR with R's diagonal positive, for a tall (n, m) matrix: classical Gram-Schmidt
    with one re-orthogonalisation pass (as accurate as Householder for these random matrices)."""

    def column(j: jax.Array, q: jax.Array) -> jax.Array:
        v = a[:, j]
        for _ in range(2):
            v = v - q @ (q.T @ v)  # columns not filled yet are zero
        return q.at[:, j].set(v / jnp.sqrt(jnp.sum(v * v)))

    return jax.lax.fori_loop(0, a.shape[1], column, jnp.zeros_like(a))
