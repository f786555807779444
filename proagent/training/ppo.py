"""The PPO math every training program shares: schedules, the optimiser, GAE, the clipped loss
and the epochs of shuffled minibatches (purejaxrl style, pure and jit-friendly).

There is one PPO program, ``population.make_population_train`` (K learners and a frozen pool, one
jitted update); self-play is its population of one (``trainer.py``), the population methods drive
it from ``algorithms/``. This module holds only the per-learner update that program vmaps, so a
change to PPO itself is made once. benchmarks/train_speed.py's IPPO baseline reuses it too.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

from proagent.training.config import PPOConfig
from proagent.training.networks import mask_logits
from proagent.training.rollout import Trajectory


def lr_schedule(config: PPOConfig) -> optax.Schedule | float:
    """Linear warmup then cosine decay to 0 over all gradient steps (paper, App. A.2)."""
    total = config.num_updates * config.update_epochs * config.num_minibatches
    if not config.anneal_lr:
        return config.lr
    warmup = int(config.lr_warmup * total)
    return optax.warmup_cosine_decay_schedule(0.0, config.lr, max(warmup, 1), max(total, warmup + 1), 0.0)


def optimizer(config: PPOConfig) -> optax.GradientTransformationExtraArgs:
    """Global-norm clipping, then Adam (eps 1e-5) whose step size is ``lr_schedule(config)`` times
    the ``lr_mult`` extra argument of ``update`` (1 if not given; PBT's explore step sets one per
    learner, traced, so mutating it never recompiles).

    The state is ``optax.adam``'s, and at ``lr_mult`` 1 every step is Adam's bit for bit: the
    multiplier scales the scalar step size. Scaling the finished updates instead rounds twice, and
    self-play (a population of one) would then drift from plain PPO in the last bit.
    """
    adam = optax.chain(optax.scale_by_adam(eps=1e-5), _scale_by_learning_rate(lr_schedule(config)))
    return optax.chain(optax.clip_by_global_norm(config.max_grad_norm), adam)


def _scale_by_learning_rate(lr: optax.Schedule | float) -> optax.GradientTransformationExtraArgs:
    """``optax.scale_by_learning_rate(lr)`` (same state, same arithmetic) times ``lr_mult``."""

    def init(params) -> optax.OptState:
        del params
        return optax.ScaleByScheduleState(count=jnp.zeros([], jnp.int32)) if callable(lr) else optax.EmptyState()

    def update(updates, state, params=None, *, lr_mult: jax.Array | float = 1.0, **extra):
        del params, extra
        if callable(lr):
            step = -1 * lr(state.count) * lr_mult
            state = optax.ScaleByScheduleState(count=optax.safe_increment(state.count))
        else:
            step = -lr * lr_mult
        return jax.tree.map(lambda g: jnp.array(step, dtype=g.dtype) * g, updates), state

    return optax.GradientTransformationExtraArgs(init, update)


def shaping_coef(config: PPOConfig, update: jax.Array) -> jax.Array:
    """1 -> 0 linearly over ``shaping_horizon`` env steps, then 0."""
    if config.shaping_horizon == 0:
        return jnp.float32(0.0)
    done = update * config.steps_per_update
    return jnp.clip(1.0 - done / config.shaping_horizon, 0.0, 1.0).astype(jnp.float32)


def gae(traj: Trajectory, last_value: jax.Array, gamma: float, lam: float) -> tuple[jax.Array, jax.Array]:
    """Generalised advantage estimates and value targets, time-major."""

    def body(carry, t):
        next_adv, next_value = carry
        reward, value, done = t
        nonterminal = 1.0 - done.astype(jnp.float32)
        delta = reward + gamma * next_value * nonterminal - value
        adv = delta + gamma * lam * nonterminal * next_adv
        return (adv, value), adv

    init = (jnp.zeros_like(last_value), last_value)
    _, adv = jax.lax.scan(body, init, (traj.reward, traj.value, traj.done), reverse=True)
    return adv, adv + traj.value


class PPOBatch(NamedTuple):
    """One learner's rollout data, in the order ``ppo_loss`` reads it; a plain tuple of the first six
    fields works too (``legal`` then None: no mask, as in a world without legal-action masks)."""

    obs: Any  # observations, or a recurrent policy's (hidden0, obs, done) sequences
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    adv: jax.Array
    target: jax.Array
    legal: jax.Array | None = None  # the rollout's legal-action mask


def ppo_loss(params, apply_fn, config: PPOConfig, batch: tuple, ent_coef: jax.Array | float):
    """Clipped surrogate + clipped value loss - entropy bonus, on one minibatch. ``ent_coef`` is an
    argument (not ``config.ent_coef``) so population training can give each learner its own.

    ``obs`` is what ``apply_fn`` takes: observations (B, ...) for a feedforward policy, or a
    recurrent policy's ``(hidden0, obs, done)`` sequences with the other fields (B, T) (see
    ``networks.PolicyFns.replay``); ``legal`` is the rollout's mask of legal actions (``None`` in a
    world without masks)."""
    obs, action, old_logp, old_value, adv, target, legal = PPOBatch(*batch)
    logits, value = apply_fn(params, obs)
    logits = mask_logits(logits, legal)  # the distribution the rollout sampled from (None: no mask)
    logp_all = jax.nn.log_softmax(logits)
    logp = jnp.take_along_axis(logp_all, action[..., None], -1)[..., 0]
    v_clipped = old_value + jnp.clip(value - old_value, -config.clip_eps, config.clip_eps)
    value_loss = 0.5 * jnp.maximum((value - target) ** 2, (v_clipped - target) ** 2).mean()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = jnp.exp(logp - old_logp)
    surrogate = jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - config.clip_eps, 1 + config.clip_eps) * adv)
    actor_loss = -surrogate.mean()
    entropy = -(jnp.exp(logp_all) * logp_all).sum(-1).mean()
    total = actor_loss + config.vf_coef * value_loss - ent_coef * entropy
    approx_kl = ((ratio - 1) - (logp - old_logp)).mean()
    return total, (value_loss, actor_loss, entropy, approx_kl)


def ppo_epochs(
    train_state: TrainState,
    config: PPOConfig,
    data: tuple,
    key: jax.Array,
    ent_coef: jax.Array | float | None = None,
    lr_mult: jax.Array | float = 1.0,
):
    """``update_epochs`` passes of shuffled minibatches over the rollout's leading axis: transitions
    of the flattened rollout for a feedforward policy, whole actor sequences for a recurrent one.

    ``ent_coef`` (default ``config.ent_coef``) and ``lr_mult`` (the optimiser's ``lr_mult``, see
    ``optimizer``; ``tx`` must be an optax chain, which accepts extra arguments) may be traced values:
    population-based training mutates them per learner without recompiling.
    """
    size = jax.tree.leaves(data)[0].shape[0]
    grad_fn = jax.value_and_grad(ppo_loss, has_aux=True)
    ent_coef = config.ent_coef if ent_coef is None else ent_coef

    def minibatch(state: TrainState, mb):
        (_, aux), grads = grad_fn(state.params, state.apply_fn, config, mb, ent_coef)
        updates, opt_state = state.tx.update(grads, state.opt_state, state.params, lr_mult=lr_mult)
        params = optax.apply_updates(state.params, updates)
        return state.replace(step=state.step + 1, params=params, opt_state=opt_state), aux

    def epoch(state: TrainState, key: jax.Array):
        perm = jax.random.permutation(key, size)
        shuffled = jax.tree.map(lambda x: x[perm].reshape(config.num_minibatches, -1, *x.shape[1:]), data)
        return jax.lax.scan(minibatch, state, shuffled)

    train_state, aux = jax.lax.scan(epoch, train_state, jax.random.split(key, config.update_epochs))
    return train_state, jax.tree.map(jnp.mean, aux)
