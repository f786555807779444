"""Population PPO: pairing checks, per-pair episode bookkeeping, pool sampling, the MEP bonus,
and determinism. Short horizons make episodes finish inside one rollout."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envs
from proagent.domains.overcooked.rl_spec import rl_env
from proagent.training.algorithms.pairings import best_response, round_robin, self_play, self_play_and_pool
from proagent.training.config import PPOConfig
from proagent.training.networks import ActorCritic, NetworkConfig, policy_fns
from proagent.training.population import (
    POOL,
    Pairing,
    _Acting,
    _population_bonus,
    learner_params,
    make_population_train,
    stack_pool,
)

SMALL = {"num_steps": 20, "update_epochs": 1, "num_minibatches": 2, "total_steps": 10_000}


def _config(num_envs: int) -> PPOConfig:
    return PPOConfig(layout="cramped_room", num_envs=num_envs, network=NetworkConfig(encoder="fast"), **SMALL)


@pytest.fixture(scope="module")
def short_env():
    return rl_env(envs.make("cramped_room", envs.Dynamics(horizon=10)))


def test_pairing_rejects_unequal_or_unknown_slots():
    with pytest.raises(ValueError, match="same"):
        Pairing(num_learners=2, slots=((0, 0), (0, 1)))
    with pytest.raises(ValueError, match="learner indices"):
        Pairing(num_learners=1, slots=((0, 2),))
    with pytest.raises(ValueError, match="pool_size"):
        Pairing(num_learners=1, slots=((0, POOL), (POOL, 0)))


def test_slot_helpers():
    assert round_robin(2, 8)[:4] == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert self_play(2, 4) == ((0, 0), (1, 1), (0, 0), (1, 1))
    assert best_response(6, 2) == ((0, 0), (0, 0), (0, POOL), (0, POOL), (POOL, 0), (POOL, 0))
    pairing = Pairing(num_learners=1, slots=best_response(4), pool_size=1)
    assert pairing.learner_actors().tolist() == [[0, 2, 5, 7]] and pairing.pool_actors().tolist() == [1, 3, 4, 6]
    with pytest.raises(ValueError):
        round_robin(2, 6)


def test_self_play_and_pool_gives_each_learner_the_same_mix():
    slots = self_play_and_pool(2, 16, 0.5)  # 8 envs a learner: 4 with itself, 2 + 2 with the pool
    for k in range(2):
        mine = [s for n, s in enumerate(slots) if n % 2 == k]
        assert mine.count((k, k)) == 4 and mine.count((k, POOL)) == 2 and mine.count((POOL, k)) == 2
    Pairing(num_learners=2, slots=slots, pool_size=1)  # valid: both learners hold 10 slots
    assert self_play_and_pool(1, 8, 0.3).count((0, 0)) == 6  # 2 pool envs: one in each seat
    with pytest.raises(ValueError, match="leaves no env for the pool"):
        self_play_and_pool(2, 8, 0.1)


def test_round_robin_counts_every_pair(round_robin_program):
    _, init, update = round_robin_program
    runner, metrics = update(init(jax.random.PRNGKey(0)))
    # 20 steps of horizon-10 episodes: each env finishes 2; each ordered pair has 2 envs
    assert np.asarray(metrics.pair_count)[0].tolist() == [[4, 4], [4, 4]]
    assert int(runner.update) == 1 and np.asarray(metrics.value_loss).shape == (1, 2)


@pytest.mark.slow
def test_pool_partners_follow_the_logits(short_env):
    cfg = _config(8)
    pairing = Pairing(num_learners=1, slots=best_response(8), pool_size=3)
    init, update = make_population_train(cfg, pairing, short_env)
    params = learner_params(init(jax.random.PRNGKey(1)), 0)
    pool, _ = stack_pool([params, params, params], 3)
    only_second = jnp.array([-jnp.inf, 0.0, -jnp.inf])
    _, metrics = update(init(jax.random.PRNGKey(0), pool, only_second))
    count = np.asarray(metrics.pair_count)[0]  # policy ids: 0 learner, 1..3 pool entries
    assert count[0, 2] == 8 and count[2, 0] == 8 and count.sum() == 16


def test_same_seed_same_learners(round_robin_program):
    _, init, update = round_robin_program

    def leaves(seed):
        runner, _ = update(init(jax.random.PRNGKey(seed)))
        return jax.tree.leaves(runner.learners.params)

    a, b, c = leaves(0), leaves(0), leaves(1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_population_bonus_is_minus_log_mean_policy(round_robin_program):
    _, init, _ = round_robin_program
    runner = init(jax.random.PRNGKey(0))
    pairing = Pairing(num_learners=2, slots=round_robin(2, 8), pop_entropy_coef=1.0)
    apply = ActorCritic(NetworkConfig(encoder="fast")).apply
    step = policy_fns(NetworkConfig(encoder="fast")).step
    acting = _Acting(step, pairing, pairing.learner_actors(), pairing.pool_actors())
    obs = runner.envs.obs.reshape(16, *runner.envs.obs.shape[2:])
    action = jnp.arange(16) % 6
    bonus = np.asarray(_population_bonus(acting, runner, obs, action))
    probs = [np.asarray(jax.nn.softmax(apply(learner_params(runner, k), obs)[0])) for k in range(2)]
    mean = (probs[0] + probs[1]) / 2
    assert np.allclose(bonus, -np.log(mean[np.arange(16), np.asarray(action)]), atol=1e-5)


def test_style_weights_follow_each_actors_learner():
    weights = ((1.0, 0.0), (0.0, 2.0))
    pairing = Pairing(num_learners=2, slots=((0, 1), (1, POOL), (POOL, 0)), pool_size=1, style_weights=weights)
    assert pairing.actor_style_weights().tolist() == [[1, 0], [0, 2], [0, 2], [0, 0], [0, 0], [1, 0]]
    assert Pairing(num_learners=1, slots=((0, 0),)).actor_style_weights() is None
    with pytest.raises(ValueError, match="one row per learner"):
        Pairing(num_learners=2, slots=((0, 1),), style_weights=((1.0, 0.0),))


def test_a_run_built_again_from_equal_values_gets_the_programs_already_traced():
    """A resumed run, a sweep's next cell or a population's next stage builds its env, config and
    pairing anew: equal values give the same jitted programs (traced once per process), other values
    their own."""
    from proagent.training.evaluate import make_learners_self_play, make_pair_states, make_payoff_matrix

    def built(num_envs: int = 4, horizon: int = 10):
        env = rl_env(envs.make("cramped_room", envs.Dynamics(horizon=horizon)))
        config = _config(num_envs)
        network = config.network
        return (
            make_population_train(config, Pairing.self_play(num_envs, 2), env),
            make_payoff_matrix(env, network, 3, 2),
            make_learners_self_play(env, network, 2),
            make_pair_states(env, network, 2, 2, 5),
        )

    first, again = built(), built()
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert not any(a is b for a, b in zip(first, built(horizon=12), strict=True))  # another env
    more_envs = built(num_envs=8)  # another PPO config: its own update; the scorers do not read it
    assert more_envs[0] is not first[0] and all(a is b for a, b in zip(first[1:], more_envs[1:], strict=True))
