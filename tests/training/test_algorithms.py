"""The population algorithms' decision rules (pure functions) and one tiny real run per algorithm
that writes a checkpoint an RLPartner loads and plays from either seat."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from training_helpers import check_saved_partner

import envs
from proagent.domains.overcooked.rl_spec import rl_env
from proagent.paths import partner_dir
from proagent.training.algorithms import TRAINERS, AlgoConfig
from proagent.training.algorithms.best_response import pool_scores, rank_priority
from proagent.training.algorithms.cole import in_degree_centrality, incompatibility_logits
from proagent.training.algorithms.common import policy_means
from proagent.training.algorithms.pbt import exploit_explore
from proagent.training.evaluate import make_payoff_matrix
from proagent.training.networks import ActorCritic, NetworkConfig

TINY = {"num_envs": 8, "num_steps": 16, "update_epochs": 1, "num_minibatches": 1}


def test_policy_means_count_both_seats_once():
    score = np.array([[10.0, 20.0], [0.0, 40.0]])
    count = np.array([[1, 1], [1, 2]])
    # policy 0: episodes (0,0) once, (0,1), (1,0) -> (10 + 20 + 0) / 3 ; policy 1: (0,1), (1,0), (1,1) x2
    assert np.allclose(policy_means(score, count), [10.0, 60.0 / 4])


def test_rank_priority_favours_the_worst_partner():
    logits = rank_priority(1.0)(np.array([50.0, 10.0, 30.0]))
    p = np.exp(logits) / np.exp(logits).sum()
    assert np.argmax(p) == 1 and np.argmin(p) == 0 and np.allclose(p, np.array([1, 3, 2]) / 6)
    assert np.allclose(rank_priority(0.0)(np.array([1.0, 2.0])), 0.0)


def test_pool_scores_add_both_seats():
    score = np.array([[0, 5, 7], [1, 0, 0], [3, 0, 0]], float)
    count = np.array([[0, 1, 1], [2, 0, 0], [1, 0, 0]])
    s, n = pool_scores(score, count)
    assert s.tolist() == [6, 10] and n.tolist() == [3, 2]


def test_in_degree_centrality_and_incompatibility_ranking():
    # member 2 is everyone's favourite partner; member 0 nobody's (ties: lower mean payoff first)
    payoff = np.array([[0, 10, 50], [10, 0, 60], [50, 60, 0]], float)
    c = in_degree_centrality(payoff)
    assert np.allclose(c, [0.0, 0.5, 1.0])
    p = np.exp(incompatibility_logits(payoff))
    assert p.argmax() == 0 and p.argmin() == 2
    assert np.allclose(in_degree_centrality(np.zeros((1, 1))), [1.0])


def test_exploit_copies_best_into_worst_and_perturbs(round_robin_program):
    _, init, _ = round_robin_program
    runner = init(jax.random.PRNGKey(0))
    new, event = exploit_explore(runner, np.array([3.0, 9.0]), np.random.default_rng(0), (0.5, 2.0))
    assert event["exploit"]["from"] == 1 and event["exploit"]["to"] == 0
    for leaf in jax.tree.leaves(new.learners.params):
        assert np.array_equal(leaf[0], leaf[1])
    assert np.isclose(new.hparams.ent_coef, [[0.02, 0.04], [0.08, 0.04]]).all(1).any()
    assert np.isclose(float(new.hparams.lr_mult[0]), [0.5, 2.0]).any() and float(new.hparams.lr_mult[1]) == 1.0


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_payoff_matrix_is_per_ordered_pair():
    env = rl_env(envs.make("cramped_room", envs.Dynamics(horizon=5)))
    net = ActorCritic(NetworkConfig(encoder="fast"))
    obs = env.observe(env.reset(jax.random.PRNGKey(0)))[0]
    members = jax.tree.map(lambda *x: np.stack(x), *[net.init(jax.random.PRNGKey(i), obs) for i in range(3)])
    payoff = np.asarray(make_payoff_matrix(env, NetworkConfig(encoder="fast"), 3, 2)(members, jax.random.PRNGKey(0)))
    assert payoff.shape == (3, 3) and (payoff == 0).all()  # 5 steps: no soup can be served


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["mep", "hsp"])  # cole, fcp and pbt: tests/training/test_resume.py
def test_tiny_run_saves_a_partner_that_plays_both_seats(algo, tmp_path, monkeypatch):
    from proagent import checkout

    calls = []  # HEAD moves on once training has begun (a commit beside the run)
    monkeypatch.setattr(checkout, "git_commit", lambda: "moved-on" if calls else "at-start")

    ppo = {**TINY, "num_envs": 8, "num_minibatches": 2}
    algo_cfg = AlgoConfig(layout="cramped_room", total_steps=3 * 8 * 16, ppo=ppo, updates_per_call=1, eval_episodes=2)
    out = tmp_path / "cramped_room" / algo
    manifest = TRAINERS[algo](algo_cfg, out, calls.append, None)  # every training call logs a line
    assert calls and manifest.git_commit == "at-start"  # the code the run started with
    check_saved_partner(algo, out, manifest, eval_episodes=2)


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_pool_weights_set_between_calls_reach_the_next_calls():
    """The outer loop's edits (here: MEP-style pool weights) must be what later calls sample from."""
    from proagent.training.algorithms.best_response import train_best_response

    algo = AlgoConfig(layout="cramped_room", total_steps=4 * 8 * 16, ppo=TINY, updates_per_call=1, horizon=16)
    env = algo.make_env()
    net = ActorCritic(algo.network)
    obs = env.observe(env.reset(jax.random.PRNGKey(0)))[0]
    members = [net.init(jax.random.PRNGKey(i), obs) for i in range(2)]
    only_second = lambda mean_scores: np.array([-30.0, 0.0])
    _, history, _ = train_best_response(algo, env, members, algo.total_steps, lambda _: None, "t", only_second)
    episodes = [rec["pool_episodes"] for rec in history]
    assert len(episodes) == 4 and all(sum(e) == 8 for e in episodes) and min(episodes[0]) > 0
    assert episodes[2] == [0, 8] and episodes[3] == [0, 8]  # partners drawn after the first call's edit


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_a_best_response_can_start_from_a_member_and_play_itself():
    """FCP/MEP's best response starts from ``init`` (with lr 0 it must end there) and plays itself
    in its self-play share of the envs (episodes of the (learner, learner) pair)."""
    from proagent.training.algorithms.best_response import train_best_response
    from proagent.training.algorithms.pairings import self_play_envs

    assert [self_play_envs(n, 0.25) for n in (32, 10, 9, 8)] == [8, 2, 3, 2]
    algo = AlgoConfig(
        layout="cramped_room",
        total_steps=8 * 16,
        ppo={**TINY, "lr": 0.0, "anneal_lr": False},
        updates_per_call=1,
        horizon=16,
    )
    env = algo.make_env()
    net = ActorCritic(algo.network)
    obs = env.observe(env.reset(jax.random.PRNGKey(0)))[0]
    members = [net.init(jax.random.PRNGKey(i), obs) for i in range(2)]
    params, history, details = train_best_response(
        algo, env, members, algo.total_steps, lambda _: None, "t", self_play_share=0.25, init=members[1]
    )
    assert jax.tree.all(jax.tree.map(lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)), params, members[1]))
    assert sum(details["br_episodes_with_each_member"]) == 6 and history[0]["episodes"] == 8  # 2 of 8 envs: itself


def test_warm_start_loads_the_shipped_sp_into_chosen_learners(round_robin_program):
    from proagent.training import checkpoint
    from proagent.training.algorithms.common import warm_started

    _, init, _ = round_robin_program  # cramped_room, default fast network: the shipped SP's
    runner = init(jax.random.PRNGKey(0))
    sp, _ = checkpoint.load(partner_dir("overcooked", "cramped_room", "sp"))
    warm = warm_started(runner, AlgoConfig(layout="cramped_room", warm_start="sp"), [1])
    for stacked, before, want in zip(jax.tree.leaves(warm.learners.params), jax.tree.leaves(runner.learners.params),
                                     jax.tree.leaves(sp)):  # fmt: skip
        assert np.array_equal(stacked[1], want) and np.array_equal(stacked[0], before[0])
    assert warm_started(runner, AlgoConfig(layout="cramped_room"), [1]) is runner
    with pytest.raises(ValueError, match="partners/"):
        warm_started(runner, AlgoConfig(layout="cramped_room", warm_start="sp", network=NetworkConfig(fc_dim=8)), [0])


def test_human_proxies_can_train_beside_a_shipped_partner():
    from proagent.training.algorithms.human_proxy import ProxySettings, proxy_pairing
    from proagent.training.population import POOL

    algo = AlgoConfig(layout="cramped_room")
    weights = ((1.0,), (2.0,))
    alone, pool, facts = proxy_pairing(algo, ProxySettings(styles=("deliverer", "onion_fetcher")), weights, 8)
    assert alone.pool_size == 0 and pool == () and facts is None
    settings = ProxySettings(styles=("deliverer", "onion_fetcher"), partner="sp", partner_share=0.5)
    beside, (params, logits), facts = proxy_pairing(algo, settings, weights, 8)
    assert beside.pool_size == 1 and np.asarray(beside.slots).tolist().count([0, POOL]) == 1
    assert logits.tolist() == [0.0] and facts["name"] == "sp" and len(facts["params_sha256"]) == 64
    assert jax.tree.leaves(params)[0].shape[0] == 1
    with pytest.raises(ValueError, match="partner=nobody needs partners/overcooked/cramped_room/nobody"):
        proxy_pairing(algo, ProxySettings(partner="nobody"), weights, 8)


@pytest.mark.slow
def test_human_proxy_ships_one_partner_per_style(tmp_path):
    from proagent.domains.overcooked.partners.registry import trained_factories
    from proagent.training.algorithms.human_proxy import ProxySettings, train_human_proxy

    algo = AlgoConfig(layout="cramped_room", total_steps=2 * 8 * 16, ppo=TINY, updates_per_call=1, eval_episodes=1)
    out = tmp_path / "overcooked" / "cramped_room" / "human_proxy"
    manifests = train_human_proxy(algo, out, lambda _: None, ProxySettings(styles=("deliverer", "onion_fetcher")))
    assert [m.algorithm for m in manifests] == ["human_proxy_deliverer", "human_proxy_onion_fetcher"]
    assert {"human_proxy_deliverer", "human_proxy_onion_fetcher"} <= set(trained_factories(tmp_path))
    with pytest.raises(ValueError, match="unknown styles"):
        train_human_proxy(algo, out, lambda _: None, ProxySettings(styles=("no_such_style",)))
    beside = ProxySettings(styles=("deliverer",), partner="sp")
    (manifest,) = train_human_proxy(algo, tmp_path / "beside" / "human_proxy", lambda _: None, beside)
    assert manifest.model_extra["details"]["trained_with_partner"]["name"] == "sp"


def test_cole_refuses_a_budget_smaller_than_one_call_per_generation():
    algo = AlgoConfig(layout="cramped_room", total_steps=2 * 8 * 16, ppo=TINY, updates_per_call=1)
    with pytest.raises(ValueError, match="2 jitted calls cannot hold 6 generations"):
        TRAINERS["cole"](algo, None, lambda _: None)


def test_hsp_without_biased_partners_names_the_command_that_trains_them(tmp_path):
    algo = AlgoConfig(layout="grounded_coord_simple", total_steps=8 * 16, ppo=TINY, updates_per_call=1)
    with pytest.raises(ValueError, match="--algo human_proxy --ship human_proxy"):
        TRAINERS["hsp"](algo, tmp_path / "hsp", lambda _: None, None)
    assert not (tmp_path / "hsp").exists()
