"""The JAX env and the NumPy reference agree exactly on random legal play: states (legal masks
included), rewards and shaped rewards, step by step, for 2-player 9C and 3-player 16C.

Random play down-weights END so most games run to the last hint (every rule fires: looks, moves,
skipped looks of hinted cards, reveals, placements, final scoring); the short runs are in the
default suite, the long ones (both memory rules, many seeds) are marked slow.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from yokai_play import assert_same, host, replay_reference, rollout_fn

from envs.yokai import ReferenceYokai, YokaiParams, make
from envs.yokai.rules import TURN_STEPS, Phase

PERFECT = YokaiParams(perfect_memory=True, shaping_scale=0.5)
REAL = YokaiParams(perfect_memory=False, shaping_scale=0.5)


@pytest.fixture(scope="module", params=["9c_2p", "16c_3p"])
def setup(request):
    env = make(request.param)
    return env, rollout_fn(env, 150)


def test_jax_matches_reference_on_random_play(setup):
    env, run = setup
    ro = host(run(jax.random.PRNGKey(11), PERFECT))
    games = replay_reference(env, ro, PERFECT)
    assert games >= 2 and ro.after.done.sum() >= 1  # at least one game played to its end and scored
    assert (ro.after.hint_status == 2).any() and ro.shaped.any()


@pytest.mark.slow
@pytest.mark.parametrize("params", [PERFECT, REAL], ids=["perfect_memory", "real_memory"])
def test_jax_matches_reference_over_many_games(setup, params):
    env, _ = setup
    run = rollout_fn(env, 600)
    finished = ended_early = 0
    for seed in range(8):
        ro = host(run(jax.random.PRNGKey(100 + seed), params))
        replay_reference(env, ro, params)
        finished += int(ro.after.done.sum())
        ended_early += int(ro.after.ended_early.sum())
    assert finished >= 40 and ended_early >= 1


def test_a_game_that_may_end_only_from_a_later_turn_matches_the_reference():
    """``end_from_turn=3``: END is illegal in the first three turns, legal at every first look
    after them, and the reference agrees step by step."""
    params = YokaiParams(perfect_memory=True, shaping_scale=0.5, end_from_turn=3)
    env = make("9c_2p", end_from_turn=3)
    ro = host(rollout_fn(env, 200)(jax.random.PRNGKey(5), params))
    assert replay_reference(env, ro, params) >= 2
    first_look = ro.before.phase == Phase.OBSERVE_FIRST
    early = ro.before.step < 3 * TURN_STEPS
    assert not ro.before.legal[:, 0][early].any() and (first_look & early).any()
    assert ro.before.legal[:, 0][first_look & ~early].all()
    assert (ro.before.step[ro.after.ended_early] >= 3 * TURN_STEPS).all()


@pytest.mark.parametrize("layout", ["9c_2p", "16c_3p"])
def test_a_given_deal_starts_the_same_game_as_the_reference_and_plays_the_same(layout):
    """`YokaiEnv.start` deals a given game (a recorded human game, a paper's example): the same
    opening state as the reference's ``start``, the same game under the same actions, and
    ``reset`` is ``start`` of the deal its key draws."""
    env = make(layout)
    ref = ReferenceYokai(env.config, PERFECT)
    deal = ref.deal(np.random.default_rng(7))
    colours, hints = np.asarray(deal.card_colour), np.asarray(deal.hint_colours)
    jx = env.start(colours, hints)
    assert_same(deal, jx, "the dealt start")
    drawn = env.reset(jax.random.PRNGKey(3))
    assert_same(host(env.start(np.asarray(drawn.card_colour), np.asarray(drawn.hint_colours))), host(drawn), "reset")
    step = jax.jit(lambda s, a: env.step(jax.random.PRNGKey(0), s, a, PERFECT))
    state, expected = jx, deal
    for t in range(3 * TURN_STEPS):
        actions = np.zeros(env.num_agents, np.int32)
        actions[int(expected.player)] = int(np.flatnonzero(expected.legal)[-1])  # the last legal action
        expected, state = ref.step(expected, actions).state, step(state, jnp.asarray(actions)).state
        assert_same(expected, host(state), f"after step {t}")


def test_a_deal_the_rules_cannot_deal_is_refused_in_one_line():
    env = make("9c_2p")
    good = ReferenceYokai(env.config).deal(np.random.default_rng(0))
    colours, hints = np.asarray(good.card_colour), np.asarray(good.hint_colours)
    with pytest.raises(ValueError, match="9 card colours"):
        env.start(colours[:5], hints)
    with pytest.raises(ValueError, match="3 cards of each"):
        env.start(np.zeros_like(colours), hints)
    with pytest.raises(ValueError, match="at least one colour"):
        env.start(colours, np.zeros_like(hints))
