"""Self-play PPO: a tiny run trains, logs finite losses, anneals shaping, is deterministic, and as
the PPO program's population of one equals the single-learner self-play program bit for bit."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from bits import bit_factors, bits_key
from flax.training.train_state import TrainState
from training_helpers import tiny_config

import envs
from proagent.domains.overcooked.rl_spec import OvercookedRLEnv, rl_env
from proagent.training.config import PPOConfig
from proagent.training.networks import ActorCritic
from proagent.training.population import learner_params
from proagent.training.ppo import gae, lr_schedule, optimizer, ppo_epochs, shaping_coef
from proagent.training.rollout import Trajectory, reset_envs, rollout
from proagent.training.trainer import make_self_play

# tiny_config(), 2 updates, seed 0 (the tiny_run fixture), recorded with the self-play program of
# 4cbe9c3 (ppo.make_train, before self-play became a population of one): python 3.11, jax 0.10.2.
# The losses hold on every CPU to the tolerance below. The parameters' sha256 depends on how XLA
# rounds float32 on the CPU at hand (vendor, model, instruction set, cores, jax): it is recorded per
# bits key (tests/training/bits.py) in GOLDEN_PARAMS and checked bit for bit where the key was
# recorded; test_self_play_is_the_single_learner_program_bit_for_bit is the exact check that holds
# on every CPU (two programs compared in one process).
GOLDEN_PARAMS = Path(__file__).resolve().parents[1] / "golden" / "self_play_params.json"
GOLDEN_LOSSES = [  # (value_loss, actor_loss, entropy, approx_kl) per update
    (0.03818071633577347, -7.450580596923828e-09, 1.7917507886886597, 0.0),
    (0.016744378954172134, 3.151176497340202e-05, 1.7916841506958008, 6.457092240452766e-06),
]
LOSS_TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}  # float32 rounding of another CPU's kernels


def test_tiny_run_has_finite_losses(tiny_run):
    result, _ = tiny_run
    assert len(result.history) == 2
    for rec in result.history:
        for key in ("value_loss", "actor_loss", "entropy", "approx_kl"):
            assert math.isfinite(rec[key]), (key, rec)
    assert result.manifest.env_steps == 256
    assert result.manifest.self_play.episodes == 10


def test_shaping_anneals_linearly_to_zero():
    cfg = PPOConfig(layout="cramped_room", num_envs=4, num_steps=25, shaping_horizon=1000)  # 100 env steps per update
    coefs = [float(shaping_coef(cfg, jnp.int32(u))) for u in (0, 5, 10, 20)]
    assert np.allclose(coefs, [1.0, 0.5, 0.0, 0.0])
    assert float(shaping_coef(cfg.model_copy(update={"shaping_horizon": 0}), jnp.int32(0))) == 0.0


def test_gae_matches_hand_computation():
    t = lambda *x: jnp.array(x, jnp.float32)[:, None]
    zeros = jnp.zeros((3, 1))
    traj = Trajectory(zeros, zeros, zeros, t(0.5, 0.5, 0.5), t(1.0, 0.0, 1.0), t(0, 1, 0), zeros, zeros, zeros)
    adv, target = gae(traj, jnp.array([2.0]), gamma=0.9, lam=0.5)
    # step 2: 1 + .9*2 - .5 = 2.3 ; step 1 (done): 0 - .5 = -.5 ; step 0: 1 + .9*.5 - .5 + .45*(-.5) = .725
    assert np.allclose(adv[:, 0], [0.725, -0.5, 2.3])
    assert np.allclose(target, adv + 0.5)


def recorded_params_sha() -> str | None:
    """The params sha256 recorded for this CPU's bits key, or None where none was recorded."""
    entries = json.loads(GOLDEN_PARAMS.read_text())["entries"]
    return next((e["params_sha256"] for e in entries if e["key"] == bits_key()), None)


def test_self_play_keeps_the_recorded_golden(tiny_run):
    """Same seed, same losses (every CPU) and parameters (CPUs whose bits key was recorded) as the
    self-play program recorded before the merge."""
    result, _ = tiny_run
    losses = [tuple(rec[k] for k in ("value_loss", "actor_loss", "entropy", "approx_kl")) for rec in result.history]
    assert result.manifest.env_steps == 256 and result.manifest.self_play.mean == 0.0
    assert np.allclose(losses, GOLDEN_LOSSES, **LOSS_TOLERANCE), losses
    expected = recorded_params_sha()
    if expected is not None:
        assert result.manifest.params_sha256 == expected, bit_factors()


def test_the_bits_key_names_what_decides_the_bits():
    """Another core count, instruction set or jax gives another key; the key is stable in a process."""
    factors = bit_factors()
    assert {"vendor", "family", "model", "isa", "cores", "jax", "jaxlib"} <= factors.keys()
    assert bits_key() == bits_key() and len(bits_key()) == 16
    entries = json.loads(GOLDEN_PARAMS.read_text())["entries"]
    assert all(len(e["params_sha256"]) == 64 and e["factors"]["jax"] for e in entries)


@pytest.mark.parametrize("anneal", [True, False])
def test_optimizer_is_adam_and_lr_mult_scales_its_step(anneal):
    """At lr_mult 1 the optimiser is ``optax.adam`` bit for bit (same state too); lr_mult scales the step."""
    config = PPOConfig(layout="cramped_room", total_steps=4096, num_envs=4, num_steps=32, anneal_lr=anneal)
    adam = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(lr_schedule(config), eps=1e-5))
    params = {"w": jnp.linspace(-1.0, 1.0, 7)}
    grads = {"w": jnp.sin(jnp.arange(7.0))}
    ours, theirs = optimizer(config), adam
    state, ref_state = ours.init(params), theirs.init(params)
    assert jax.tree.structure(state) == jax.tree.structure(ref_state)
    for _ in range(3):
        (u, state), (ref_u, ref_state) = ours.update(grads, state, params), theirs.update(grads, ref_state, params)
        assert np.array_equal(u["w"], ref_u["w"])
    doubled, _ = ours.update(grads, state, params, lr_mult=jnp.float32(2.0))
    assert np.array_equal(doubled["w"], 2 * ours.update(grads, state, params)[0]["w"])


def _single_learner_program(config: PPOConfig, env: OvercookedRLEnv):
    """Self-play as a single-learner program (ppo.make_train of 4cbe9c3, which trained the shipped
    `sp` partners): one TrainState, ``optax.adam``, one policy in both seats, nothing vmapped."""
    network = ActorCritic(config.network)
    tx = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(lr_schedule(config), eps=1e-5))

    def init(key):
        k_net, k_env, key = jax.random.split(key, 3)
        batch = reset_envs(env, k_env, config.num_envs)
        params = network.init(k_net, batch.obs[0, 0].astype(jnp.float32))
        return TrainState.create(apply_fn=network.apply, params=params, tx=tx), batch, key, jnp.int32(0)

    def update(carry):
        ts, batch, key, u = carry
        key, k_roll, k_epochs = jax.random.split(key, 3)
        policy = lambda obs: ts.apply_fn(ts.params, obs)
        batch, traj = rollout(env, policy, batch, k_roll, config.num_steps, shaping_coef(config, u))
        _, last_value = policy(batch.obs.reshape(-1, *batch.obs.shape[2:]))
        adv, target = gae(traj, last_value, config.gamma, config.gae_lambda)
        flat = lambda x: x.reshape(-1, *x.shape[2:])
        data = tuple(map(flat, (traj.obs, traj.action, traj.log_prob, traj.value, adv, target)))
        ts, aux = ppo_epochs(ts, config, data, k_epochs)
        return (ts, batch, key, u + 1), aux

    return jax.jit(init), jax.jit(update)


@pytest.fixture(scope="module")
def short_self_play():
    """(config, env, init, update) of tiny self-play with episodes ending inside rollouts: compiled once."""
    config = tiny_config().model_copy(update={"total_steps": 2 * 128})
    env = rl_env(envs.make("cramped_room", envs.Dynamics(horizon=20)))
    return (config, env, *make_self_play(config, env))


def _same(a, b) -> bool:
    return all(np.array_equal(np.ravel(x), np.ravel(y)) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


@pytest.mark.product_compile
def test_self_play_is_the_single_learner_program_bit_for_bit(short_self_play):
    """Keys, the learner's cut of the rollout, the unbatched population of one and the optimiser's
    learning-rate multiplier keep self-play exactly plain single-learner PPO."""
    config, env, init, update = short_self_play
    ref_init, ref_update = _single_learner_program(config, env)
    ref, runner = ref_init(jax.random.PRNGKey(7)), init(jax.random.PRNGKey(7))
    for _ in range(2):
        ref, aux = ref_update(ref)
        runner, metrics = update(runner)
        assert _same(aux, (metrics.value_loss, metrics.actor_loss, metrics.entropy, metrics.approx_kl))
    assert _same(ref[0].params, learner_params(runner, 0))
    assert _same(ref[0].opt_state, jax.tree.map(lambda x: x[0], runner.learners.opt_state))
    assert _same(ref[1], runner.envs) and np.array_equal(ref[2], runner.key)
    assert int(np.asarray(metrics.pair_count).sum()) == 8  # 4 envs, episodes ending at steps 40 and 60


def test_same_seed_same_params_other_seed_differs(short_self_play):
    _, _, init, update = short_self_play

    def params_after_one_update(seed: int):
        runner, metrics = update(init(jax.random.PRNGKey(seed)))
        return jax.tree.leaves(runner.learners.params) + list(metrics)

    a, b, c = params_after_one_update(0), params_after_one_update(0), params_after_one_update(1)
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, c))


def test_rollout_resets_finished_episodes():
    """Short horizon: episodes finish inside one rollout and the env keeps playing."""
    from proagent.training.rollout import reset_envs, rollout

    env = rl_env(envs.make("cramped_room", envs.Dynamics(horizon=10)))
    uniform = lambda obs: (jnp.zeros((obs.shape[0], 6)), jnp.zeros(obs.shape[0]))
    batch, traj = jax.jit(lambda k: rollout(env, uniform, reset_envs(env, k, 3), k, 25, 1.0))(jax.random.PRNGKey(0))
    assert traj.ep_done.sum(0).tolist() == [2, 2, 2]  # steps 10 and 20
    assert batch.states.step.tolist() == [5, 5, 5] and not batch.states.done.any()
