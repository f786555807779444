"""Legal-action masks in the one RL program, on a small turn-based world whose legal actions change
every step: rollouts, the PPO loss, evaluation and partners draw only legal actions, and the loss
scores the distribution the rollout sampled from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from proagent.training import checkpoint
from proagent.training.config import PPOConfig
from proagent.training.evaluate import self_play_score
from proagent.training.networks import ILLEGAL_LOGIT, MlpConfig, NetworkConfig, mask_logits, policy_fns
from proagent.training.partner import RLPartner
from proagent.training.population import (
    Pairing,
    _Acting,
    _env_step,
    _learner_data,
    _population_bonus,
    learner_params,
    make_population_train,
)
from proagent.training.ppo import PPOBatch, ppo_loss
from proagent.world.rl_spec import StepOut

ACTIONS, HORIZON, NOOP = 6, 8, 5


class TurnState(NamedTuple):
    t: jax.Array  # () int32 step
    illegal: jax.Array  # () int32 illegal actions taken so far


@dataclass(frozen=True)
class TurnEnv:
    """Two seats take turns (seat t % 2 acts); the actor may play t % 5 or (t + 1) % 5, the other
    seat only NOOP. Every illegal action costs 1, so an episode scores -(illegal actions)."""

    num_agents: int = 2
    num_actions: int = ACTIONS
    horizon: int = HORIZON

    def reset(self, key: jax.Array) -> TurnState:
        return TurnState(jnp.int32(0), jnp.int32(0))

    def legal_actions(self, state: TurnState) -> jax.Array:
        ids = jnp.arange(ACTIONS)
        actor = (ids == state.t % 5) | (ids == (state.t + 1) % 5)
        seats = jnp.arange(self.num_agents)[:, None]
        return jnp.where(seats == state.t % 2, actor[None], (ids == NOOP)[None])

    def step(self, key: jax.Array, state: TurnState, actions: jax.Array) -> StepOut:
        legal = self.legal_actions(state)[jnp.arange(self.num_agents), actions]
        bad = jnp.sum(~legal).astype(jnp.int32)
        nxt = TurnState(state.t + 1, state.illegal + bad)
        cost = -bad.astype(jnp.float32)
        shaped = jnp.zeros(self.num_agents, jnp.float32)
        return StepOut(state=nxt, reward=cost, score=cost, shaped=shaped, done=nxt.t >= HORIZON)

    def observe(self, state: TurnState) -> jax.Array:
        return jax.vmap(lambda seat: self.observe_seat(state, seat))(jnp.arange(self.num_agents))

    def observe_seat(self, state: TurnState, seat: Any) -> jax.Array:
        return jnp.concatenate([jax.nn.one_hot(state.t, HORIZON), jax.nn.one_hot(seat, 2)])

    def record(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class GridTurnEnv(TurnEnv):
    """``TurnEnv`` observed as a 1 x D x 1 grid, for the recurrent (grid-family) network."""

    def observe_seat(self, state: TurnState, seat: Any) -> jax.Array:
        return super().observe_seat(state, seat)[None, :, None]


TINY = MlpConfig(hidden=16, layers=1)
TINY_GRU = NetworkConfig(encoder="pointwise", pointwise=(4,), fc_dim=8, memory=8)


def _config(num_envs: int = 4, network: MlpConfig | NetworkConfig = TINY) -> PPOConfig:
    return PPOConfig(
        world="test", layout="turns", num_envs=num_envs, num_steps=16, update_epochs=1, num_minibatches=2,
        total_steps=10_000, network=network, ent_coef=0.0,
    )  # fmt: skip


def _rollout(env: TurnEnv, seed: int = 0, network: MlpConfig | NetworkConfig = TINY):
    """16 steps (two episodes) of self-play from fresh params (near-uniform logits): (runner, the Trajectory)."""
    config = _config(network=network)
    pairing = Pairing.self_play(config.num_envs)
    init, _ = make_population_train(config, pairing, env)
    runner = init(jax.random.PRNGKey(seed))
    acting = _Acting(policy_fns(network, ACTIONS).step, pairing, pairing.learner_actors(), pairing.pool_actors())
    body = lambda carry, key: _env_step(env, acting, runner, carry, key, 0.0)
    keys = jax.random.split(jax.random.PRNGKey(seed + 1), config.num_steps)
    _, (traj, _) = jax.jit(lambda c: jax.lax.scan(body, c, keys))((runner.envs, runner.partner))
    return runner, acting, traj


def test_mask_logits_leaves_unmasked_worlds_alone():
    logits = jnp.arange(4.0)
    assert mask_logits(logits, None) is logits
    masked = mask_logits(logits, jnp.array([True, False, True, False]))
    np.testing.assert_array_equal(masked, [0.0, ILLEGAL_LOGIT, 2.0, ILLEGAL_LOGIT])
    assert np.isfinite(jax.nn.log_softmax(masked)).all()


def test_the_rollout_draws_only_legal_actions_and_stores_the_mask():
    _, _, traj = _rollout(TurnEnv())
    legal = np.asarray(traj.legal)  # (T, B, actions)
    taken = np.take_along_axis(legal, np.asarray(traj.action)[..., None], -1)[..., 0]
    assert legal.shape == (16, 8, ACTIONS) and taken.all()
    assert float(np.asarray(traj.reward).min()) == 0.0  # no illegal action was ever paid for


@pytest.mark.parametrize(("env", "network"), [(TurnEnv(), TINY), (GridTurnEnv(), TINY_GRU)], ids=["mlp", "gru"])
def test_the_loss_scores_the_masked_distribution_the_rollout_sampled(env, network):
    """PPO's first ratio is 1: the loss's log-prob of each action is the rollout's, which holds only
    if the loss masks the logits as the rollout did (unmasked, near-uniform logits give log(1/6),
    not log(1/2) or log(1)); a recurrent policy's replayed sequences carry the mask step by step."""
    runner, acting, traj = _rollout(env, network=network)
    zeros = jnp.zeros_like(traj.reward)
    data = _learner_data(acting, traj, zeros, zeros, runner.envs.hidden)
    batch = PPOBatch(*jax.tree.map(lambda x: x[0], data))
    fns = policy_fns(network, ACTIONS)
    logits, _ = fns.replay(learner_params(runner, 0), batch.obs)
    logp_all = jax.nn.log_softmax(mask_logits(logits, batch.legal))
    logp = jnp.take_along_axis(logp_all, batch.action[..., None], -1)[..., 0]
    np.testing.assert_allclose(logp, batch.log_prob, atol=1e-5)
    assert float(np.asarray(batch.log_prob).min()) > np.log(0.5) - 0.05  # at most two legal actions
    # the loss itself: ratio 1 everywhere, so its KL estimate is 0 (unmasked it would be > 0.1)
    _, (_, _, entropy, approx_kl) = ppo_loss(learner_params(runner, 0), fns.replay, _config(network=network), batch, 0.0)
    assert abs(float(approx_kl)) < 1e-5 and float(entropy) < np.log(2) + 1e-3


def test_training_and_evaluation_stay_legal():
    env = TurnEnv()
    config = _config()
    init, update = make_population_train(config, Pairing.self_play(config.num_envs), env)
    runner, metrics = update(init(jax.random.PRNGKey(0)))
    assert np.isfinite(np.asarray(metrics.entropy)).all() and np.isfinite(np.asarray(metrics.actor_loss)).all()
    score = self_play_score(env, TINY, learner_params(runner, 0), seed=0, episodes=16)
    assert score.mean == 0.0 and score.episodes == 16


def test_an_unmasked_policy_would_play_illegal_actions():
    """The world itself punishes illegal actions, so the tests above can fail: fresh params sample
    illegal actions when nothing masks them."""
    env = TurnEnv()
    fns = policy_fns(TINY, ACTIONS)
    state = env.reset(jax.random.PRNGKey(0))
    params = fns.init(jax.random.PRNGKey(0), env.observe_seat(state, 0))
    logits = fns.step(params, None, jnp.tile(env.observe_seat(state, 0), (64, 1)))[1]
    actions = np.asarray(jax.random.categorical(jax.random.PRNGKey(1), logits))
    assert not np.asarray(env.legal_actions(state))[0, actions].all()


def test_a_partner_plays_only_its_seats_legal_actions(tmp_path):
    """``policy`` reads its seat's mask from the engine state; ``act_batch`` takes the batch's masks."""
    env = TurnEnv()
    state = env.reset(jax.random.PRNGKey(0))
    params = policy_fns(TINY, ACTIONS).init(jax.random.PRNGKey(0), env.observe_seat(state, 0))
    manifest = checkpoint.Manifest(
        world="test", algorithm="sp", layout="turns", seed=0, env_steps=0, train_wall_time_s=0.0, device="cpu",
        encoder="mlp", network=TINY, obs_shape=(HORIZON + 2,),
    )  # fmt: skip
    checkpoint.save(tmp_path, params, manifest)
    partner = RLPartner(tmp_path, lambda m: env, "turns")
    legal = np.asarray(env.legal_actions(state))
    for seat in (0, 1):
        partner.reset(seat, seed=seat)
        assert all(legal[seat, partner.policy(None, state)] for _ in range(20))
    obs = jnp.tile(env.observe_seat(state, 0), (64, 1))
    actions = np.asarray(partner.act_batch(obs, jax.random.PRNGKey(1), legal=jnp.tile(legal[0], (64, 1))))
    assert legal[0, actions].all()
    assert not legal[0, np.asarray(partner.act_batch(obs, jax.random.PRNGKey(1)))].all()  # unmasked: it would err


def test_the_population_entropy_bonus_scores_the_masked_policies():
    """MEP's bonus, -log(mean policy at the action taken), of near-uniform fresh policies: about
    log 2 for the actor (two legal actions) and 0 for the seat whose only legal action is NOOP;
    unmasked it would be about log 6 for both."""
    env = TurnEnv()
    config = _config()
    pairing = Pairing(num_learners=2, slots=((0, 1), (1, 0), (0, 1), (1, 0)))
    init, _ = make_population_train(config, pairing, env)
    runner = init(jax.random.PRNGKey(0))
    acting = _Acting(policy_fns(TINY, ACTIONS).step, pairing, pairing.learner_actors(), pairing.pool_actors())
    states = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), config.num_envs))
    obs = jax.vmap(env.observe)(states).reshape(8, -1)
    legal = jax.vmap(env.legal_actions)(states).reshape(8, ACTIONS)
    action = jnp.tile(jnp.array([0, NOOP]), 4)  # at t = 0 seat 0 may play 0 or 1, seat 1 only NOOP
    bonus = np.asarray(_population_bonus(acting, runner, obs, action, legal)).reshape(4, 2)
    np.testing.assert_allclose(bonus[:, 0], np.log(2), atol=0.05)
    np.testing.assert_allclose(bonus[:, 1], 0.0, atol=1e-5)
    assert np.asarray(_population_bonus(acting, runner, obs, action)).min() > np.log(6) - 0.1
