"""CUBE's RL spec and its IPPO teammates: the seat-relative observation, a tiny deterministic
training run of the one RL program, the shipped checkpoints (sha256, loading through the one RL
partner loader, registration) and an IPPO team playing easy_2a."""

from __future__ import annotations

import asyncio
import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.cube import CubeAction, make
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import get_domain
from proagent.domains.cube.rl_spec import CUBE_RL, obs_dim, observe, observe_all
from proagent.paths import PARTNERS_DIR, partner_dir
from proagent.runner.episode import run_episode
from proagent.training import checkpoint
from proagent.training.config import PPOConfig
from proagent.training.networks import MlpConfig
from proagent.training.partner import RLPartner
from proagent.training.population import Pairing, make_population_train

DOMAIN = get_domain("cube")
SHIPPED = sorted(p.parent for p in (PARTNERS_DIR / "cube").glob(f"*/*/{checkpoint.MANIFEST_FILE}"))


def test_observation_is_fixed_size_and_seat_relative() -> None:
    env = make("easy_2a")
    k = env.scenario.grid_size
    state = env.reset(jax.random.PRNGKey(0))
    obs = np.asarray(jax.jit(observe_all, static_argnums=1)(state, env.scenario))
    assert obs.shape == (2, obs_dim(env.scenario)) == (2, 2 + 2 + 2 + 9 * 2 + 1)
    assert obs[0, :2].tolist() == [1, 0] and obs[1, :2].tolist() == [0, 1]  # seat one-hot
    (x0, y0), (x1, y1) = env.scenario.agents
    np.testing.assert_allclose(obs[0, 2:4], [x0 / k, y0 / k], atol=1e-6)
    np.testing.assert_allclose(obs[0, 4:6], [(x1 - x0) / k, (y1 - y0) / k], atol=1e-6)
    np.testing.assert_allclose(obs[0, 4:6], -obs[1, 4:6], atol=1e-6)  # each sees the other from itself
    block = env.scenario.blocks[0]
    np.testing.assert_allclose(obs[1, 6:10], [1, 1 / 2, (block.x - x1) / k, (block.y - y1) / k], atol=1e-6)
    assert obs[0, -1] == 1.0  # time left at the start
    # seat 0 steps right: its own x grows, and it sees seat 1 one cell further left
    moved = env.jit_step(jax.random.PRNGKey(0), state, jnp.array([CubeAction.RIGHT, CubeAction.STAY])).state
    after = np.asarray(jax.jit(observe, static_argnums=2)(moved, 0, env.scenario))
    assert after[2] == pytest.approx((x0 + 1) / k) and after[4] == pytest.approx((x1 - x0 - 1) / k)
    # jit and vmap over a batch of states and over seats; 3 agents: one-hot 3 + own 2 + others 4
    medium = make("medium_3a")
    batch = medium.reset_batch(jax.random.split(jax.random.PRNGKey(0), 4))
    many = jax.jit(jax.vmap(lambda s: observe_all(s, medium.scenario)))(batch)
    assert many.shape == (4, 3, 3 + 2 + 4 + 9 * 3 + 1) and np.isfinite(np.asarray(many)).all()


def test_independent_ppo_gives_each_seat_its_own_learner() -> None:
    """Independent PPO is a pairing of the one program: learner s plays seat s of every env (the
    shipped ``ippo_independent``); self-play (``ippo_shared``) is one learner in every seat."""
    pairing = Pairing.independent(4, 3)
    assert pairing.learner_actors().tolist() == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
    assert Pairing.self_play(2, 3).learner_actors().tolist() == [[0, 1, 2, 3, 4, 5]]


def test_the_spec_scores_deliveries_and_trains_on_the_step_cost_and_shaping() -> None:
    env = CUBE_RL.make_env("easy_2a")
    assert (env.num_agents, env.num_actions, env.horizon) == (2, len(CubeAction), 100)
    state = env.reset(jax.random.PRNGKey(0))
    out = jax.jit(env.step)(jax.random.PRNGKey(0), state, jnp.array([CubeAction.RIGHT, CubeAction.RIGHT]))
    assert float(out.score) == 0.0 and float(out.reward) == pytest.approx(-env.env.scenario.step_cost)
    assert out.shaped.shape == (2,) and np.isfinite(np.asarray(out.shaped)).all()
    assert CUBE_RL.make_env("easy_2a", record=env.record()).record() == env.record()
    with pytest.raises(ValueError, match="no encoder"):
        CUBE_RL.network("cnn", "easy_2a", gpu=False)


@pytest.mark.slow  # two tiny training runs (~8 s): the slow CI step runs it
def test_a_tiny_training_run_changes_params_and_is_deterministic() -> None:
    """Independent parameters (one learner per seat, vmapped) through the one RL program."""
    recipe = {**CUBE_RL.ppo_defaults, "num_envs": 8}
    config = PPOConfig(world="cube", layout="easy_2a", seed=3, total_steps=2 * 8 * 16, num_steps=16, num_minibatches=2,
                       network=MlpConfig(), **recipe)  # fmt: skip
    env = CUBE_RL.make_env("easy_2a")
    init, update = make_population_train(config, Pairing.independent(8, 2), env)

    def run():
        runner = init(jax.random.PRNGKey(config.seed))
        start = runner.learners.params
        for _ in range(config.num_updates):
            runner, metrics = update(runner)
        return start, runner.learners.params, metrics

    start, params, metrics = run()
    _, again, metrics_again = run()
    leaves, start_leaves = jax.tree.leaves(params), jax.tree.leaves(start)
    assert all(leaf.shape[0] == 2 for leaf in leaves)
    assert any(not np.allclose(a, b) for a, b in zip(leaves, start_leaves, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(leaves, jax.tree.leaves(again), strict=True))
    assert np.array_equal(metrics.entropy, metrics_again.entropy) and np.isfinite(np.asarray(metrics.value_loss)).all()


TRAINED_AS = {"ippo_shared": {"ippo_shared", "sp"}, "ippo_independent": {"ippo_independent", "ippo"}}


def test_shipped_checkpoints_match_their_manifests_and_load() -> None:
    assert {p.parent.name for p in SHIPPED} >= {"easy_2a", "medium_3a"}
    for directory in SHIPPED:
        manifest = checkpoint.load_manifest(directory)  # CUBE's first manifest format, converted
        blob = (directory / checkpoint.PARAMS_FILE).read_bytes()
        assert hashlib.sha256(blob).hexdigest() == manifest.params_sha256
        # the first format names the folder's algorithm; `proagent train` the program that trained it
        assert manifest.algorithm in TRAINED_AS[directory.name] and manifest.layout == directory.parent.name
        assert manifest.world == "cube" and manifest.encoder == "mlp" and isinstance(manifest.network, MlpConfig)
        # shared: one group stacked (the first format) or one plain network (seat_groups 0, `train --algo sp`)
        groups = (0, 1) if directory.name == "ippo_shared" else (make(manifest.layout).num_agents,)
        assert manifest.seat_groups in groups
        assert manifest.self_play is not None and manifest.self_play.episodes >= 50
        extra = manifest.model_extra or {}
        if "learned" in extra:  # the first format's own field
            assert extra["learned"] == (manifest.self_play.mean > 0)
        assert manifest.history is not None and manifest.history.records > 0  # history.jsonl stays in the run folder
        env = make(manifest.layout)
        partner = DOMAIN.make_partner(directory.name, env)
        assert isinstance(partner, RLPartner) and isinstance(partner, Agent)
        assert manifest.obs_shape == (obs_dim(env.scenario),)
        seat = env.num_agents - 1
        obs = observe(env.reset(jax.random.PRNGKey(0)), seat, env.scenario)
        assert partner.logits(obs[None], seat).shape == (1, len(CubeAction))


def test_ippo_partners_are_registered_only_where_a_checkpoint_ships() -> None:
    easy = DOMAIN.make_env("easy_2a", 100)
    assert {"ippo_shared", "ippo_independent", "pusher", "lazy"} <= set(DOMAIN.partner_names(easy))
    other = DOMAIN.make_env("random:easy:3", 100)
    assert DOMAIN.partner_names(other) == ["lazy", "pusher"]
    with pytest.raises(UnknownAgentError, match=r"layouts with one: .*easy_2a"):
        DOMAIN.make_partner("ippo_shared", other)
    assert isinstance(DOMAIN.make_partner("ippo_independent", easy), RLPartner)


@pytest.mark.parametrize("algorithm", ["ippo_shared", "ippo_independent"])
def test_an_ippo_team_plays_easy_2a_through_the_runner(algorithm: str) -> None:
    env = DOMAIN.make_env("easy_2a", 100)
    manifest = checkpoint.load_manifest(partner_dir("cube", "easy_2a", algorithm))
    team = [DOMAIN.make_partner(algorithm, env) for _ in range(env.num_agents)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 7, 0))
    score = record.domain_metrics["weight_delivered"]
    if manifest.learned:
        assert score > 0
        assert score >= manifest.self_play.mean - 4 * manifest.self_play.std - 1e-6
    assert score <= env.scenario.total_weight

