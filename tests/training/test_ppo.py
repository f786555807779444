"""Self-play PPO: a tiny run trains, logs finite losses, anneals shaping, and is deterministic."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from training_helpers import tiny_config

import envs
from proagent.training.config import PPOConfig
from proagent.training.ppo import gae, make_train, shaping_coef
from proagent.training.rollout import Trajectory


def test_tiny_run_has_finite_losses(tiny_run):
    result, _ = tiny_run
    assert len(result.history) == 2
    for rec in result.history:
        for key in ("value_loss", "actor_loss", "entropy", "approx_kl"):
            assert math.isfinite(rec[key]), (key, rec)
    assert result.manifest.env_steps == 256
    assert result.manifest.self_play.episodes == 10


def test_shaping_anneals_linearly_to_zero():
    cfg = PPOConfig(num_envs=4, num_steps=25, shaping_horizon=1000)  # 100 env steps per update
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


def test_same_seed_same_params_other_seed_differs():
    init, update = make_train(tiny_config(), envs.make("cramped_room"))

    def params_after_one_update(seed: int):
        runner, metrics = update(init(jax.random.PRNGKey(seed)))
        return jax.tree.leaves(runner.train_state.params) + list(metrics)

    a, b, c = params_after_one_update(0), params_after_one_update(0), params_after_one_update(1)
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, c))


def test_rollout_resets_finished_episodes():
    """Short horizon: episodes finish inside one rollout and the env keeps playing."""
    from proagent.training.rollout import reset_envs, rollout

    env = envs.make("cramped_room", envs.Dynamics(horizon=10))
    uniform = lambda obs: (jnp.zeros((obs.shape[0], 6)), jnp.zeros(obs.shape[0]))
    batch, traj = jax.jit(lambda k: rollout(env, uniform, reset_envs(env, k, 3), k, 25, 1.0))(jax.random.PRNGKey(0))
    assert traj.ep_done.sum(0).tolist() == [2, 2, 2]  # steps 10 and 20
    assert batch.states.step.tolist() == [5, 5, 5] and not batch.states.done.any()
