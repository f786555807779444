"""Self-play PPO (IPPO with parameters shared by both seats), purejaxrl style.

``make_train(config, env)`` returns ``init(key) -> Runner`` and a jitted ``update(runner) ->
(runner, metrics)`` that runs ``updates_per_call`` whole PPO updates (rollout, GAE, epochs of
shuffled minibatches) inside one XLA program. The caller's Python loop does everything that is not
pure: progress, logging, checkpoints, timing.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

from envs import OvercookedEnv
from proagent.training.config import PPOConfig
from proagent.training.networks import ActorCritic
from proagent.training.rollout import EnvBatch, Trajectory, check_observation_range, reset_envs, rollout


class Runner(NamedTuple):
    train_state: TrainState
    envs: EnvBatch
    key: jax.Array
    update: jax.Array  # () int32, updates done so far


class Metrics(NamedTuple):
    """Per update (stacked over the updates of one call)."""

    env_steps: jax.Array
    shaping_coef: jax.Array
    episodes: jax.Array  # episodes finished in this update's rollout
    score: jax.Array  # mean sparse return of those episodes (nan if none)
    shaped: jax.Array  # mean shaped return (both agents) of those episodes
    value_loss: jax.Array
    actor_loss: jax.Array
    entropy: jax.Array
    approx_kl: jax.Array


def lr_schedule(config: PPOConfig) -> optax.Schedule | float:
    """Linear warmup then cosine decay to 0 over all gradient steps (paper, App. A.2)."""
    total = config.num_updates * config.update_epochs * config.num_minibatches
    if not config.anneal_lr:
        return config.lr
    warmup = int(config.lr_warmup * total)
    return optax.warmup_cosine_decay_schedule(0.0, config.lr, max(warmup, 1), max(total, warmup + 1), 0.0)


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


def ppo_loss(params, apply_fn, config: PPOConfig, batch: tuple, ent_coef: jax.Array | float):
    """Clipped surrogate + clipped value loss - entropy bonus, on one minibatch. ``ent_coef`` is an
    argument (not ``config.ent_coef``) so population training can give each learner its own."""
    obs, action, old_logp, old_value, adv, target = batch
    logits, value = apply_fn(params, obs)
    logp_all = jax.nn.log_softmax(logits)
    logp = jnp.take_along_axis(logp_all, action[:, None], -1)[:, 0]
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
    """``update_epochs`` passes of shuffled minibatches over the flattened rollout.

    ``ent_coef`` (default ``config.ent_coef``) and ``lr_mult`` (scales every optimiser step) may be
    traced values: population-based training mutates them per learner without recompiling.
    """
    size = data[0].shape[0]
    grad_fn = jax.value_and_grad(ppo_loss, has_aux=True)
    ent_coef = config.ent_coef if ent_coef is None else ent_coef

    def minibatch(state: TrainState, mb):
        (_, aux), grads = grad_fn(state.params, state.apply_fn, config, mb, ent_coef)
        updates, opt_state = state.tx.update(grads, state.opt_state, state.params)
        updates = jax.tree.map(lambda u: u * lr_mult, updates)
        params = optax.apply_updates(state.params, updates)
        return state.replace(step=state.step + 1, params=params, opt_state=opt_state), aux

    def epoch(state: TrainState, key: jax.Array):
        perm = jax.random.permutation(key, size)
        shuffled = jax.tree.map(lambda x: x[perm].reshape(config.num_minibatches, -1, *x.shape[1:]), data)
        return jax.lax.scan(minibatch, state, shuffled)

    train_state, aux = jax.lax.scan(epoch, train_state, jax.random.split(key, config.update_epochs))
    return train_state, jax.tree.map(jnp.mean, aux)


def _one_update(env: OvercookedEnv, config: PPOConfig, runner: Runner, _) -> tuple[Runner, Metrics]:
    ts = runner.train_state
    key, k_roll, k_epochs = jax.random.split(runner.key, 3)
    coef = shaping_coef(config, runner.update)
    policy = lambda obs: ts.apply_fn(ts.params, obs)
    envs_next, traj = rollout(env, policy, runner.envs, k_roll, config.num_steps, coef)
    n, a = envs_next.obs.shape[:2]
    _, last_value = policy(envs_next.obs.reshape(n * a, *envs_next.obs.shape[2:]))
    adv, target = gae(traj, last_value, config.gamma, config.gae_lambda)
    flat = lambda x: x.reshape(-1, *x.shape[2:])
    data = tuple(map(flat, (traj.obs, traj.action, traj.log_prob, traj.value, adv, target)))
    ts, (value_loss, actor_loss, entropy, approx_kl) = ppo_epochs(ts, config, data, k_epochs)
    episodes = traj.ep_done.sum()
    mean_over_eps = lambda x: jnp.where(episodes > 0, x.sum() / jnp.maximum(episodes, 1), jnp.nan)
    update = runner.update + 1
    metrics = Metrics(
        env_steps=update * config.steps_per_update,
        shaping_coef=coef,
        episodes=episodes,
        score=mean_over_eps(traj.ep_score),
        shaped=mean_over_eps(traj.ep_shaped),
        value_loss=value_loss,
        actor_loss=actor_loss,
        entropy=entropy,
        approx_kl=approx_kl,
    )
    return Runner(ts, envs_next, key, update), metrics


def make_train(config: PPOConfig, env: OvercookedEnv, updates_per_call: int = 1):
    """-> (init(key) -> Runner, jitted update(Runner) -> (Runner, Metrics stacked over updates))."""
    check_observation_range(env)
    network = ActorCritic(config.network)
    tx = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(lr_schedule(config), eps=1e-5))

    def init(key: jax.Array) -> Runner:
        k_net, k_env, key = jax.random.split(key, 3)
        batch = reset_envs(env, k_env, config.num_envs)
        params = network.init(k_net, batch.obs[0, 0].astype(jnp.float32))
        ts = TrainState.create(apply_fn=network.apply, params=params, tx=tx)
        return Runner(ts, batch, key, jnp.int32(0))

    def update(runner: Runner) -> tuple[Runner, Metrics]:
        step = lambda r, x: _one_update(env, config, r, x)
        return jax.lax.scan(step, runner, None, length=updates_per_call)

    return jax.jit(init), jax.jit(update, donate_argnums=0)


def check_config(config: PPOConfig, num_agents: int) -> None:
    """Fail early, with the fix, on shapes the minibatching cannot split."""
    actors = config.num_envs * num_agents * config.num_steps
    if actors % config.num_minibatches:
        raise ValueError(
            f"num_envs*agents*num_steps={actors} is not divisible by num_minibatches={config.num_minibatches}"
        )
