"""IPPO for CUBE in the purejaxrl style: one jitted update (a ``lax.scan`` rollout over a vmapped
batch of envs, GAE, PPO epochs), a Python outer loop for logging and checkpoints.

- ``params="shared"``: one network plays every seat (the observation carries a one-hot seat id);
  every seat's experience trains it.
- ``params="independent"``: one network per seat, parameters stacked on a leading seat axis and
  the PPO update vmapped over seats.

Both are one program: the parameters have a leading *group* axis (1 group for shared, A for
independent) and the actors of a batch are regrouped accordingly before acting and learning.

The env never auto-resets: an env whose step is done is replaced by the scenario's start state
(the same every episode; the policies' sampling is the only randomness). Each agent's reward is the
team reward (weight delivered minus the step cost) plus ``shaping_coef`` times its own shaping:
``push_shaping`` x the env's shaped reward (+1 for taking part in a successful push to the right,
-1 to the left) and ``approach_shaping`` x a potential-based term, gamma * phi(s') - phi(s) with
phi = -(Manhattan distance to the nearest undelivered block's left face) / grid size. The
coefficient goes 1 -> 0 linearly over the first ``shaping_horizon`` fraction of training.

The GAE, the clipped PPO loss, the optimiser and the minibatch epochs are
``proagent.training.ppo``'s (the Overcooked trainer's).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax.training.train_state import TrainState
from pydantic import Field

from envs.cube import CubeEnv, CubeEnvState, Scenario, make
from proagent.domains.cube.rl.network import MlpActorCritic, MlpConfig
from proagent.domains.cube.rl.observation import obs_dim, observe_all
from proagent.training import ppo
from proagent.training.config import PPOHyperparameters

ParamsMode = Literal["shared", "independent"]


class IppoConfig(PPOHyperparameters):
    """One training run; stored whole in the manifest (``train_config``). The PPO knobs are the
    repository's shared ones (``training.config.PPOHyperparameters``) with CUBE's own defaults."""

    scenario: str = "easy_2a"
    params: ParamsMode = "shared"
    total_steps: int = Field(1_000_000, ge=1, description="env steps (every agent acts in each)")
    num_envs: int = Field(64, ge=1)
    ent_coef: float = 0.01
    lr: float = 1e-3
    lr_warmup: float = Field(0.0, ge=0.0, le=1.0)
    push_shaping: float = Field(0.5, ge=0.0, description="x the env's per-agent push-right reward")
    approach_shaping: float = Field(1.0, ge=0.0, description="x potential-based approach to a block's left face")
    shaping_horizon: float = Field(0.5, ge=0.0, le=1.0, description="fraction of training, shaping 1 -> 0")
    network: MlpConfig = MlpConfig()


class Rollout(NamedTuple):
    """Time-major; per-agent arrays are (T, N, A). ``gae`` reads reward/value/done."""

    obs: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array
    ep_score: jax.Array  # (T, N) a finished episode's score, 0 elsewhere
    ep_done: jax.Array  # (T, N)


class RunnerState(NamedTuple):
    train_state: TrainState  # parameters and optimiser state with a leading group axis
    env_state: CubeEnvState  # (N, ...)
    obs: jax.Array  # (N, A, D)
    key: jax.Array
    update: jax.Array  # () int32, updates done


def num_groups(mode: ParamsMode, num_agents: int) -> int:
    return 1 if mode == "shared" else num_agents


def to_groups(x: jax.Array, mode: ParamsMode, agent_axis: int) -> jax.Array:
    """Actors on ``agent_axis`` (after batch axes) -> (G, M, ...): shared: every actor in one
    group; independent: one group per seat."""
    if mode == "independent":
        x = jnp.moveaxis(x, agent_axis, 0)
        return x.reshape(x.shape[0], -1, *x.shape[agent_axis + 1 :])
    return x.reshape(1, -1, *x.shape[agent_axis + 1 :])


def from_groups(x: jax.Array, mode: ParamsMode, batch: tuple[int, ...], num_agents: int) -> jax.Array:
    """Inverse of ``to_groups`` for the batch shape ``batch`` (the axes before the agent axis)."""
    if mode == "independent":
        x = x.reshape(num_agents, *batch, *x.shape[2:])
        return jnp.moveaxis(x, 0, len(batch))
    return x.reshape(*batch, num_agents, *x.shape[2:])


def grouped_apply(
    network: MlpActorCritic, params: Any, obs: jax.Array, mode: ParamsMode
) -> tuple[jax.Array, jax.Array]:
    """obs (..., A, D) -> logits (..., A, 5), values (..., A), each seat through its group's params."""
    batch, na = obs.shape[:-2], obs.shape[-2]
    logits, value = jax.vmap(network.apply)(params, to_groups(obs, mode, len(batch)))
    return from_groups(logits, mode, batch, na), from_groups(value, mode, batch, na)


def approach_potential(state: CubeEnvState, scenario: Scenario) -> jax.Array:
    """(A,) -(Manhattan distance to the nearest undelivered block's left face) / grid size; 0 when
    every block is delivered."""
    pos = state.agent_pos[:, None, :]  # (A, 1, 2)
    bx, by, w = state.block_pos[None, :, 0], state.block_pos[None, :, 1], state.block_weight[None, :]
    dx = jnp.abs(pos[..., 0] - (bx - 1))
    dy = jnp.abs(pos[..., 1] - jnp.clip(pos[..., 1], by, by + w - 1))
    dist = jnp.where(state.block_active[None, :], dx + dy, 10 * scenario.grid_size)
    nearest = jnp.min(dist, axis=1).astype(jnp.float32)
    any_left = jnp.any(state.block_active)
    return jnp.where(any_left, -nearest / scenario.grid_size, 0.0) * state.agent_active


def shaping_coef(config: IppoConfig, update: jax.Array) -> jax.Array:
    if config.shaping_horizon == 0:
        return jnp.float32(0.0)
    frac = update.astype(jnp.float32) / (config.shaping_horizon * config.num_updates)
    return jnp.clip(1.0 - frac, 0.0, 1.0)


@dataclass(frozen=True)
class Trainer:
    """``init(key) -> RunnerState`` and ``update(RunnerState) -> (RunnerState, metrics)``, both jitted."""

    config: IppoConfig
    env: CubeEnv
    network: MlpActorCritic
    init: Callable[[jax.Array], RunnerState]
    update: Callable[[RunnerState], tuple[RunnerState, dict]]


def make_train(config: IppoConfig, env: CubeEnv | None = None) -> Trainer:
    env = env or make(config.scenario)
    scenario = env.scenario
    na = scenario.agent_capacity
    mode = config.params
    groups = num_groups(mode, na)
    network = MlpActorCritic(config.network)
    tx = ppo.optimizer(config)  # duck-typed: reads lr, warmup, anneal, num_updates, epochs, minibatches
    start = env.reset(jax.random.PRNGKey(0))
    n, t = config.num_envs, config.num_steps
    if (t * n * (na if mode == "shared" else 1)) % config.num_minibatches:
        raise ValueError("num_steps * num_envs (* agents when shared) must divide into num_minibatches")
    batched_start = jax.tree.map(lambda x: jnp.broadcast_to(x, (n, *x.shape)), start)
    observe_batch = jax.vmap(lambda s: observe_all(s, scenario))
    potential_batch = jax.vmap(lambda s: approach_potential(s, scenario))
    step_batch = jax.vmap(env.step)

    def init(key: jax.Array) -> RunnerState:
        key, init_key = jax.random.split(key)
        dummy = jnp.zeros((obs_dim(scenario),), jnp.float32)
        params = jax.vmap(lambda k: network.init(k, dummy))(jax.random.split(init_key, groups))
        train_state = jax.vmap(lambda p: TrainState.create(apply_fn=network.apply, params=p, tx=tx))(params)
        return RunnerState(train_state, batched_start, observe_batch(batched_start), key, jnp.int32(0))

    def update(runner: RunnerState) -> tuple[RunnerState, dict]:
        coef = shaping_coef(config, runner.update)
        params = runner.train_state.params

        def env_step(carry, _):
            states, obs, key = carry
            key, act_key, step_key = jax.random.split(key, 3)
            logits, value = grouped_apply(network, params, obs, mode)
            action = jax.random.categorical(act_key, logits)
            log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[..., None], -1)[..., 0]
            tr = step_batch(jax.random.split(step_key, n), states, action)
            shaped = config.push_shaping * tr.shaped_reward + config.approach_shaping * (
                config.gamma * potential_batch(tr.state) - potential_batch(states)
            )
            reward = tr.reward[:, None] + coef * shaped
            done = tr.done
            next_states = jax.tree.map(
                lambda s0, s: jnp.where(done.reshape(-1, *([1] * (s.ndim - 1))), s0, s), batched_start, tr.state
            )
            next_obs = observe_batch(next_states)
            record = Rollout(
                obs=obs,
                action=action,
                log_prob=log_prob,
                value=value,
                reward=reward,
                done=jnp.broadcast_to(done[:, None], action.shape),
                ep_score=jnp.where(done, tr.state.score, 0).astype(jnp.float32),
                ep_done=done.astype(jnp.float32),
            )
            return (next_states, next_obs, key), record

        (states, obs, key), traj = jax.lax.scan(
            env_step, (runner.env_state, runner.obs, runner.key), None, length=config.num_steps
        )
        _, last_value = grouped_apply(network, params, obs, mode)
        adv, target = ppo.gae(traj, last_value, config.gamma, config.gae_lambda)
        data = tuple(to_groups(x, mode, 2) for x in (traj.obs, traj.action, traj.log_prob, traj.value, adv, target))
        key, ppo_key = jax.random.split(key)
        train_state, (value_loss, actor_loss, entropy, approx_kl) = jax.vmap(
            lambda ts, d, k: ppo.ppo_epochs(ts, config, d, k)
        )(runner.train_state, data, jax.random.split(ppo_key, groups))
        episodes = traj.ep_done.sum()
        metrics = {
            "episodes": episodes,
            "score": traj.ep_score.sum() / jnp.maximum(episodes, 1.0),
            "reward": traj.reward.mean(),
            "shaping_coef": coef,
            "value_loss": value_loss.mean(),
            "actor_loss": actor_loss.mean(),
            "entropy": entropy.mean(),
            "approx_kl": approx_kl.mean(),
        }
        return RunnerState(train_state, states, obs, key, runner.update + 1), metrics

    return Trainer(config, env, network, jax.jit(init), jax.jit(update))


@dataclass
class TrainResult:
    params: Any  # leading group axis
    history: list[dict]
    env_steps: int
    wall_time_s: float


def train(
    config: IppoConfig, log_every: int = 10, on_log: Callable[[dict], None] | None = None, env: CubeEnv | None = None
) -> TrainResult:
    """The Python outer loop: ``config.num_updates`` jitted updates, a history record every
    ``log_every`` updates (metrics averaged over them; ``wall_s`` includes compilation)."""
    trainer = make_train(config, env)
    started = time.perf_counter()
    runner = trainer.init(jax.random.PRNGKey(config.seed))
    history: list[dict] = []
    window: list[dict] = []
    last = started
    for u in range(config.num_updates):
        runner, metrics = trainer.update(runner)
        window.append(metrics)
        if (u + 1) % log_every == 0 or u + 1 == config.num_updates:
            window = jax.device_get(window)
            now = time.perf_counter()
            eps = sum(float(m["episodes"]) for m in window)
            record = {
                "update": u + 1,
                "env_steps": (u + 1) * config.steps_per_update,
                "wall_s": round(now - started, 2),
                "sps": round(len(window) * config.steps_per_update / max(now - last, 1e-9), 1),
                "episodes": int(eps),
                "score": sum(float(m["score"]) * float(m["episodes"]) for m in window) / max(eps, 1.0),
            }
            for name in ("reward", "shaping_coef", "value_loss", "actor_loss", "entropy", "approx_kl"):
                record[name] = float(np.mean([float(m[name]) for m in window]))
            history.append(record)
            if on_log:
                on_log(record)
            window, last = [], now
    params = jax.block_until_ready(runner.train_state.params)
    return TrainResult(params, history, config.num_updates * config.steps_per_update, time.perf_counter() - started)


def evaluate(
    params: Any,
    scenario: Scenario | str,
    mode: ParamsMode,
    network: MlpConfig,
    key: jax.Array,
    episodes: int = 100,
    stochastic: bool = True,
    with_steps: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Team scores (weight delivered) of ``episodes`` self-play episodes to the horizon, vmapped;
    ``with_steps``: also each episode's length (steps until every block was delivered, or the horizon)."""
    env = make(scenario)
    sc = env.scenario
    net = MlpActorCritic(network)

    @jax.jit
    def run(params: Any, key: jax.Array) -> jax.Array:
        start = env.reset(key)
        states = jax.tree.map(lambda x: jnp.broadcast_to(x, (episodes, *x.shape)), start)

        def body(carry, _):
            states, key = carry
            key, act_key = jax.random.split(key)
            logits, _ = grouped_apply(net, params, jax.vmap(lambda s: observe_all(s, sc))(states), mode)
            action = jax.random.categorical(act_key, logits) if stochastic else jnp.argmax(logits, -1)
            tr = jax.vmap(env.step)(jax.random.split(act_key, episodes), states, action)
            return (tr.state, key), None

        (final, _), _ = jax.lax.scan(body, (states, key), None, length=sc.horizon)
        return final.score, final.step

    scores, steps = run(params, key)
    return (np.asarray(scores), np.asarray(steps)) if with_steps else np.asarray(scores)
