"""The actor-critic shared by both seats, with two interchangeable observation encoders.

- ``cnn``: the OvercookedV2 paper's encoder (App. A.2): conv 32@5x5, 32@3x3, 32@3x3, zero padding,
  ReLU. Spatial convolutions are cheap on a GPU but dominate a CPU step.
- ``fast``: a 1x1 convolution (a per-cell linear map of the sparse 30-channel cell encoding down to
  a few features) and then the same dense torso over the flattened grid. The dense layer sees the
  whole (small) kitchen at once, so no spatial receptive field is lost; it is several times
  cheaper on CPU (see benchmarks/train_speed.py).

Both feed Dense(fc) -> LayerNorm -> ReLU -> Dense(fc) -> ReLU, then a policy head (6 logits) and a
value head. This module needs only flax and jax: loading a partner must not need optax.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen.initializers import constant
from pydantic import BaseModel, ConfigDict, Field

Encoder = Literal["cnn", "fast"]
NUM_ACTIONS = 6


class NetworkConfig(BaseModel):
    """What is needed to rebuild a policy from its parameters; stored in every manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    encoder: Encoder = "fast"
    fc_dim: int = Field(64, ge=1)
    cnn_features: int = Field(32, ge=1, description="channels of each paper-CNN layer")
    fast_features: int = Field(16, ge=1, description="channels of the fast encoder's 1x1 conv")


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


class SameConv(nn.Module):
    """A stride-1 convolution with zero "SAME" padding (nn.Conv's ``padding="SAME"``).

    On CPU it runs as shifted slices + one dot (im2col by hand): XLA:CPU executes a convolution
    op inside a loop (the PPO minibatch scan) orders of magnitude slower than the same dot. On
    GPU it is the plain convolution (cuDNN). Same parameters either way, so a checkpoint trained
    on one backend plays on the other.
    """

    features: int
    kernel: int

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        k, c = self.kernel, x.shape[-1]
        w = self.param("kernel", orthogonal(np.sqrt(2)), (k, k, c, self.features))
        b = self.param("bias", constant(0.0), (self.features,))
        if jax.default_backend() != "cpu":
            flat = x.reshape(-1, *x.shape[-3:])
            y = jax.lax.conv_general_dilated(flat, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return y.reshape(*x.shape[:-1], self.features) + b
        h, wd, p = x.shape[-3], x.shape[-2], k // 2
        padded = jnp.pad(x, [(0, 0)] * (x.ndim - 3) + [(p, p), (p, p), (0, 0)])
        patches = jnp.stack([padded[..., i : i + h, j : j + wd, :] for i in range(k) for j in range(k)], axis=-2)
        return jnp.einsum("...pc,pcf->...f", patches, w.reshape(k * k, c, self.features)) + b


class PaperCNN(nn.Module):
    features: int = 32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        for kernel in (5, 3, 3):
            x = nn.relu(SameConv(self.features, kernel)(x))
        return x.reshape(*x.shape[:-3], -1)


class FastEncoder(nn.Module):
    """A 1x1 convolution, written as a Dense over the channel axis (the same map): XLA:CPU runs a
    convolution inside a loop (the PPO minibatch scan) about 6x slower than the equivalent dot."""

    features: int = 16

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.Dense(self.features, kernel_init=orthogonal(np.sqrt(2)))(x)
        x = nn.relu(x)
        return x.reshape(*x.shape[:-3], -1)


class ActorCritic(nn.Module):
    """obs (..., H, W, C) -> (logits (..., 6), value (...))."""

    config: NetworkConfig

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        cfg = self.config
        x = obs.astype(jnp.float32)
        if cfg.encoder == "cnn":
            x = PaperCNN(cfg.cnn_features)(x)
        else:
            x = FastEncoder(cfg.fast_features)(x)
        x = nn.Dense(cfg.fc_dim, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x)
        x = nn.relu(nn.LayerNorm()(x))
        x = nn.Dense(cfg.fc_dim, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x)
        x = nn.relu(x)
        logits = nn.Dense(NUM_ACTIONS, kernel_init=orthogonal(0.01), bias_init=constant(0.0))(x)
        value = nn.Dense(1, kernel_init=orthogonal(1.0), bias_init=constant(0.0))(x)
        return logits, jnp.squeeze(value, -1)


def init_params(config: NetworkConfig, obs_shape: tuple[int, ...], key: jax.Array):
    """Fresh parameters for one observation of ``obs_shape`` (H, W, C)."""
    return ActorCritic(config).init(key, jnp.zeros(obs_shape, jnp.float32))
