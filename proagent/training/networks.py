"""The actor-critic networks of the RL program: a grid family (``NetworkConfig``: two
interchangeable observation encoders, optionally recurrent) for image-like observations, and an
MLP family (``MlpConfig``) for vector observations, and the pointer family (``PointerConfig``,
``proagent.training.pointer_network``) for grid observations whose actions name items and cells.
A world's RL spec picks one; ``Network`` is any of the three configs, as a manifest stores it.

Grid family:

- ``cnn``: the OvercookedV2 paper's encoder (App. A.2): conv 32@5x5, 32@3x3, 32@3x3, zero padding,
  ReLU. Spatial convolutions are cheap on a GPU but dominate a CPU step.
- ``fast``: a 1x1 convolution (a per-cell linear map of the sparse 30-channel cell encoding down to
  a few features) and then the same dense torso over the flattened grid. The dense layer sees the
  whole (small) kitchen at once, so no spatial receptive field is lost; it is several times
  cheaper on CPU (see benchmarks/train_speed.py).

Both feed Dense(fc) -> LayerNorm -> ReLU -> Dense(fc) -> ReLU, then a policy head (one logit per
action) and a value head.

With ``memory`` > 0 the policy is the OvercookedV2 paper's recurrent network (App. C.1.1), for
partial views where an agent must remember what it saw (the recipe an indicator showed): the
``pointwise`` 1x1 convolutions (128, 128, 8 in the paper) turn each sparse cell into a few
features, optional ``spatial`` 3x3 convolutions follow (16, 32, 32 in the paper), then Dense(fc) ->
LayerNorm -> GRU(memory) -> Dense(fc) -> heads. Every policy is driven through one interface,
``policy_fns``: ``step(params, hidden, obs) -> (hidden, logits, value)``, where a feedforward
policy's hidden state is ``None``, so the training program, evaluation and partners never branch
on the kind of network. This module needs only flax and jax: loading a partner must not need optax.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen.initializers import constant
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from proagent.training.initializers import orthogonal
from proagent.training.pointer_network import PointerActorCritic, PointerConfig

Encoder = Literal["cnn", "fast", "pointwise"]
NUM_ACTIONS = 6  # the grid family's default head (Overcooked's six actions)


class NetworkConfig(BaseModel):
    """What is needed to rebuild a policy from its parameters; stored in every manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    encoder: Encoder = "fast"
    fc_dim: int = Field(64, ge=1)
    cnn_features: int = Field(32, ge=1, description="channels of each paper-CNN layer")
    fast_features: int = Field(16, ge=1, description="channels of the fast encoder's 1x1 conv")
    pointwise: tuple[int, ...] = Field((128, 128, 8), description="'pointwise' encoder: channels of its 1x1 convs")
    spatial: tuple[int, ...] = Field((), description="'pointwise' encoder: channels of 3x3 convs after them")
    memory: int = Field(0, ge=0, description="GRU hidden size; 0 = feedforward (no memory)")

    @property
    def recurrent(self) -> bool:
        return self.memory > 0


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


# The OvercookedV2 paper's network for its coordination layouts (App. C.1.1, Tables 7-11).
V2_PAPER_NETWORK = NetworkConfig(
    encoder="pointwise", pointwise=(128, 128, 8), spatial=(16, 32, 32), fc_dim=128, memory=128
)
# Its CPU-sized sibling (same structure, no 3x3 convs: a 5x5 view is small enough for the dense
# layer to see whole): ~2.5x the paper network's env-steps/s on 2 cores (benchmarks/train_speed.py).
V2_CPU_NETWORK = NetworkConfig(encoder="pointwise", pointwise=(32, 8), spatial=(), fc_dim=64, memory=64)


class PointwiseEncoder(nn.Module):
    """The V2 paper's encoder: 1x1 convolutions (Dense over channels, as in ``FastEncoder``), then
    optional stride-1 3x3 convolutions, flattened."""

    pointwise: tuple[int, ...]
    spatial: tuple[int, ...]

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        for features in self.pointwise:
            x = nn.relu(nn.Dense(features, kernel_init=orthogonal(np.sqrt(2)))(x))
        for features in self.spatial:
            x = nn.relu(SameConv(features, 3)(x))
        return x.reshape(*x.shape[:-3], -1)


class ActorCritic(nn.Module):
    """obs (..., H, W, C) -> (logits (..., num_actions), value (...))."""

    config: NetworkConfig
    num_actions: int = NUM_ACTIONS

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        cfg = self.config
        x = _torso(cfg, obs)
        x = nn.Dense(cfg.fc_dim, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x)
        return _heads(nn.relu(x), self.num_actions)


def _torso(cfg: NetworkConfig, obs: jax.Array) -> jax.Array:
    """The encoder, then Dense(fc) -> LayerNorm -> ReLU. Called inside a compact ``__call__``, so
    its layers are the caller's (same names as when they were written inline: checkpoints load)."""
    x = obs.astype(jnp.float32)
    if cfg.encoder == "pointwise":
        x = PointwiseEncoder(cfg.pointwise, cfg.spatial)(x)
    elif cfg.encoder == "cnn":
        x = PaperCNN(cfg.cnn_features)(x)
    else:
        x = FastEncoder(cfg.fast_features)(x)
    x = nn.Dense(cfg.fc_dim, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x)
    return nn.relu(nn.LayerNorm()(x))


def _heads(x: jax.Array, num_actions: int) -> tuple[jax.Array, jax.Array]:
    logits = nn.Dense(num_actions, kernel_init=orthogonal(0.01), bias_init=constant(0.0))(x)
    value = nn.Dense(1, kernel_init=orthogonal(1.0), bias_init=constant(0.0))(x)
    return logits, jnp.squeeze(value, -1)


class RecurrentActorCritic(nn.Module):
    """(hidden (B, memory), obs (B, H, W, C)) -> (hidden, logits (B, num_actions), value (B,))."""

    config: NetworkConfig
    num_actions: int = NUM_ACTIONS

    @nn.compact
    def __call__(self, hidden: jax.Array, obs: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        cfg = self.config
        x = _torso(cfg, obs)
        # flax's default recurrent initializer is its LAPACK orthogonal (see ``orthogonal``)
        cell = nn.GRUCell(cfg.memory, kernel_init=orthogonal(1.0), recurrent_kernel_init=orthogonal(1.0))
        hidden, x = cell(hidden, x)
        x = nn.relu(nn.Dense(cfg.fc_dim, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x))
        return hidden, *_heads(x, self.num_actions)


class _RecurrentTorso(nn.Module):
    """``RecurrentActorCritic``'s layers before its GRU, on their own: created in the same order,
    they get the same parameter names, so ``replay`` runs them on the full's parameters."""

    config: NetworkConfig

    @nn.compact
    def __call__(self, obs: jax.Array) -> jax.Array:
        return _torso(self.config, obs)


class _RecurrentHeads(nn.Module):
    """``RecurrentActorCritic``'s layers after its GRU (its ``Dense_1..3`` are ``Dense_0..2`` here)."""

    config: NetworkConfig
    num_actions: int

    @nn.compact
    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = nn.relu(nn.Dense(self.config.fc_dim, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x))
        return _heads(x, self.num_actions)


def _recurrent_replay(config: NetworkConfig, num_actions: int) -> Callable:
    """``replay`` of the recurrent network with only the GRU cell inside the time scan: the torso
    (encoder, Dense, LayerNorm) and the heads depend on one step alone, so they run once over all
    (B, T) steps. Why: the PPO loss replays every minibatch over its whole rollout, and a scan
    whose body is the whole network launches a few dozen small kernels per step, which left a GPU
    idle (the paper's recipe ran at a few thousand env steps/s on an H200). Same function as
    stepping (``test_replay_equals_stepping_with_resets``)."""
    torso, heads = _RecurrentTorso(config), _RecurrentHeads(config, num_actions)
    cell = nn.GRUCell(config.memory)

    def replay(params: Any, seq: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        hidden, obs, done = seq
        p = params["params"]
        head_names = ("Dense_1", "Dense_2", "Dense_3")
        torso_params = {k: v for k, v in p.items() if k not in ("GRUCell_0", *head_names)}
        x = torso.apply({"params": torso_params}, obs)  # (B, T, fc)

        def one(hidden: jax.Array, xs: tuple[jax.Array, jax.Array]):
            x_t, done_t = xs
            hidden, out = cell.apply({"params": p["GRUCell_0"]}, hidden, x_t)
            return reset_hidden(hidden, done_t), out

        _, outs = jax.lax.scan(one, hidden, (jnp.swapaxes(x, 0, 1), jnp.swapaxes(done, 0, 1)))
        renamed = {f"Dense_{i}": p[name] for i, name in enumerate(head_names)}
        return heads.apply({"params": renamed}, jnp.swapaxes(outs, 0, 1))

    return replay


class MlpConfig(BaseModel):
    """The MLP family (vector observations): what rebuilds a policy from its parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hidden: int = Field(64, ge=1)
    layers: int = Field(2, ge=1)

    @property
    def recurrent(self) -> bool:
        return False


class MlpActorCritic(nn.Module):
    """obs (..., D) -> (logits (..., num_actions), value (...)): separate tanh MLP torsos for the
    policy and the value (purejaxrl's IPPO)."""

    config: MlpConfig
    num_actions: int

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = self.config.hidden

        def torso(x: jax.Array) -> jax.Array:
            for _ in range(self.config.layers):
                x = jnp.tanh(nn.Dense(h, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x))
            return x

        obs = obs.astype(jnp.float32)
        logits = nn.Dense(self.num_actions, kernel_init=orthogonal(0.01), bias_init=constant(0.0))(torso(obs))
        value = nn.Dense(1, kernel_init=orthogonal(1.0), bias_init=constant(0.0))(torso(obs))
        return logits, value[..., 0]


def _family(value: Any) -> str:
    """Which family a stored network config is: the MLP's and the pointer's fields are their own
    ("hidden", "blocks")."""
    if isinstance(value, MlpConfig) or (isinstance(value, dict) and "hidden" in value):
        return "mlp"
    if isinstance(value, PointerConfig) or (isinstance(value, dict) and "blocks" in value):
        return "pointer"
    return "grid"


# a network config of either family, as manifests and training configs store it (no tag field:
# the shipped manifests' network dicts load as they are)
Network = Annotated[
    Annotated[NetworkConfig, Tag("grid")] | Annotated[MlpConfig, Tag("mlp")] | Annotated[PointerConfig, Tag("pointer")],
    Discriminator(_family),
]


def encoder_name(config: NetworkConfig | MlpConfig | PointerConfig) -> str:
    """The manifest's ``encoder``: the grid family's encoder, "mlp" or "pointer"."""
    if isinstance(config, PointerConfig):
        return "pointer"
    return "mlp" if isinstance(config, MlpConfig) else config.encoder


Hidden = jax.Array | None  # (B, memory) for a recurrent policy, None for a feedforward one


class PolicyFns(NamedTuple):
    """One interface for feedforward and recurrent policies (see the module docstring).

    ``replay`` re-runs a policy over stored sequences for the PPO loss: ``replay(params, (hidden0
    (B, M), obs (B, T, ...), done (B, T)))`` -> logits (B, T, 6), values (B, T); the hidden state is
    zeroed after each step whose episode ended, exactly as the rollout does. A feedforward policy's
    replay is its plain ``apply`` on (B, ...) observations.
    """

    init: Callable[[jax.Array, jax.Array], Any]  # (key, one observation (H, W, C)) -> params
    step: Callable[[Any, Hidden, jax.Array], tuple[Hidden, jax.Array, jax.Array]]
    initial_hidden: Callable[[int], Hidden]  # batch size -> zeros, or None
    replay: Callable[[Any, Any], tuple[jax.Array, jax.Array]]


def policy_fns(config: NetworkConfig | MlpConfig | PointerConfig, num_actions: int = NUM_ACTIONS) -> PolicyFns:
    if isinstance(config, PointerConfig):
        if config.num_actions != num_actions:
            raise ValueError(
                f"the pointer network's action blocks make {config.num_actions} actions; the env has {num_actions}"
            )
        pointer = PointerActorCritic(config)
        step = lambda params, hidden, obs: (hidden, *pointer.apply(params, obs))
        return PolicyFns(pointer.init, step, lambda batch: None, pointer.apply)
    if isinstance(config, MlpConfig):
        mlp = MlpActorCritic(config, num_actions)
        step = lambda params, hidden, obs: (hidden, *mlp.apply(params, obs))
        return PolicyFns(mlp.init, step, lambda batch: None, mlp.apply)
    if not config.recurrent:
        net = ActorCritic(config, num_actions)
        step = lambda params, hidden, obs: (hidden, *net.apply(params, obs))
        return PolicyFns(net.init, step, lambda batch: None, net.apply)
    rnn = RecurrentActorCritic(config, num_actions)

    def init(key: jax.Array, obs: jax.Array) -> Any:
        return rnn.init(key, jnp.zeros((1, config.memory), jnp.float32), obs[None])

    zeros = lambda batch: jnp.zeros((batch, config.memory), jnp.float32)
    return PolicyFns(init, rnn.apply, zeros, _recurrent_replay(config, num_actions))


# the logit of an illegal action: finite, so log_softmax and the entropy (p * log p = 0 * -1e9) stay
# finite where -inf would give nan; exp(-1e9 - max) is exactly 0 in float32, so it is never sampled
ILLEGAL_LOGIT = -1e9


def mask_logits(logits: jax.Array, legal: jax.Array | None) -> jax.Array:
    """``logits`` with every illegal action (``legal`` False) at ``ILLEGAL_LOGIT``; ``legal`` None
    (a world without masks, ``RLEnv.legal_actions``) returns ``logits`` itself, untouched, so those
    worlds compute exactly what they computed before masks existed."""
    return logits if legal is None else jnp.where(legal, logits, ILLEGAL_LOGIT)


def pick_action(logits: jax.Array, key: jax.Array, stochastic: bool) -> jax.Array:
    """An action from ``logits``: sampled as trained (``stochastic``), else the most likely one."""
    return jax.random.categorical(key, logits) if stochastic else jnp.argmax(logits, -1)


def reset_hidden(hidden: Hidden, done: jax.Array) -> Hidden:
    """Zero the memory of every actor whose episode just ended (``None`` stays ``None``)."""
    return None if hidden is None else jnp.where(done[:, None], 0.0, hidden)


def init_params(
    config: NetworkConfig | MlpConfig | PointerConfig,
    obs_shape: tuple[int, ...],
    key: jax.Array,
    num_actions: int = NUM_ACTIONS,
):
    """Fresh parameters for one observation of ``obs_shape``."""
    return policy_fns(config, num_actions).init(key, jnp.zeros(obs_shape, jnp.float32))
