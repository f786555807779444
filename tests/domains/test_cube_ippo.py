"""CUBE IPPO teammates: the seat-relative observation, a tiny deterministic training run, the
shipped checkpoints (sha256, loading, registration) and an IPPO team playing easy_2a."""

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
from proagent.domains.cube.rl import checkpoint
from proagent.domains.cube.rl.observation import obs_dim, observe, observe_all
from proagent.domains.cube.rl.partner import IppoPartner
from proagent.domains.cube.rl.train import IppoConfig, from_groups, make_train, to_groups
from proagent.runner.episode import run_episode

DOMAIN = get_domain("cube")
SHIPPED = sorted(p.parent for p in checkpoint.CUBE_PARTNERS_DIR.glob(f"*/*/{checkpoint.MANIFEST_FILE}"))


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


def test_actors_regroup_per_mode() -> None:
    x = jnp.arange(3 * 4 * 2 * 5).reshape(3, 4, 2, 5)  # (T, N, A, D)
    shared, independent = to_groups(x, "shared", 2), to_groups(x, "independent", 2)
    assert shared.shape == (1, 24, 5) and independent.shape == (2, 12, 5)
    np.testing.assert_array_equal(independent[1], x[:, :, 1].reshape(12, 5))  # group 1 = seat 1's actors
    y = x[0]  # (N, A, D), as when acting
    for mode in ("shared", "independent"):
        np.testing.assert_array_equal(from_groups(to_groups(y, mode, 1), mode, (4,), 2), y)


def _tiny(mode: str) -> tuple[IppoConfig, object]:
    config = IppoConfig(
        scenario="easy_2a", params=mode, seed=3, total_steps=2 * 8 * 16, num_envs=8, num_steps=16, num_minibatches=2
    )
    return config, make_train(config)


@pytest.mark.slow  # two tiny training runs (~8 s): the slow CI step runs it
def test_a_tiny_training_run_changes_params_and_is_deterministic() -> None:
    """Independent parameters (the seat-vmapped update); shared ones run the same program with one
    group (``test_actors_regroup_per_mode``), compiling it again would double this test's time."""
    config, trainer = _tiny("independent")
    groups = 2

    def run():
        runner = trainer.init(jax.random.PRNGKey(config.seed))
        start = runner.train_state.params
        for _ in range(config.num_updates):
            runner, metrics = trainer.update(runner)
        return start, runner.train_state.params, metrics

    start, params, metrics = run()
    _, again, metrics_again = run()
    leaves, start_leaves = jax.tree.leaves(params), jax.tree.leaves(start)
    assert all(leaf.shape[0] == groups for leaf in leaves)
    assert any(not np.allclose(a, b) for a, b in zip(leaves, start_leaves, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(leaves, jax.tree.leaves(again), strict=True))
    assert float(metrics["entropy"]) == float(metrics_again["entropy"]) and np.isfinite(float(metrics["value_loss"]))


def test_shipped_checkpoints_match_their_manifests_and_load() -> None:
    assert {p.parent.name for p in SHIPPED} >= {"easy_2a", "medium_3a"}
    for directory in SHIPPED:
        manifest = checkpoint.load_manifest(directory)
        blob = (directory / checkpoint.PARAMS_FILE).read_bytes()
        assert hashlib.sha256(blob).hexdigest() == manifest.params_sha256
        assert manifest.algorithm == directory.name and manifest.scenario == directory.parent.name
        assert manifest.self_play is not None and manifest.self_play.episodes >= 50
        assert manifest.learned == (manifest.self_play.mean > 0)
        assert (directory / checkpoint.HISTORY_FILE).is_file()
        env = make(manifest.scenario)
        partner = IppoPartner(directory, env)
        assert isinstance(partner, Agent) and manifest.obs_dim == obs_dim(env.scenario)
        logits = partner.logits(env.reset(jax.random.PRNGKey(0)), env.num_agents - 1)
        assert logits.shape == (len(CubeAction),)


def test_ippo_partners_are_registered_only_where_a_checkpoint_ships() -> None:
    easy = DOMAIN.make_env("easy_2a", 100)
    assert {"ippo_shared", "ippo_independent", "pusher", "lazy"} <= set(DOMAIN.partner_names(easy))
    other = DOMAIN.make_env("random:easy:3", 100)
    assert DOMAIN.partner_names(other) == ["lazy", "pusher"]
    with pytest.raises(UnknownAgentError, match=r"scenarios with one: .*easy_2a"):
        DOMAIN.make_partner("ippo_shared", other)
    assert isinstance(DOMAIN.make_partner("ippo_independent", easy), IppoPartner)


@pytest.mark.parametrize("algorithm", ["ippo_shared", "ippo_independent"])
def test_an_ippo_team_plays_easy_2a_through_the_runner(algorithm: str) -> None:
    env = DOMAIN.make_env("easy_2a", 100)
    manifest = checkpoint.load_manifest(checkpoint.partner_dir("easy_2a", algorithm))
    team = [DOMAIN.make_partner(algorithm, env) for _ in range(env.num_agents)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 7, 0))
    score = record.domain_metrics["weight_delivered"]
    if manifest.learned:
        assert score > 0
        assert score >= manifest.self_play.mean - 4 * manifest.self_play.std - 1e-6
    assert score <= env.scenario.total_weight

