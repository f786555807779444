"""The JAX env and the NumPy reference agree exactly on random legal play: states (legal masks
included), rewards and shaped rewards, step by step, for 2-player 9C and 3-player 16C.

Random play down-weights END so most games run to the last hint (every rule fires: looks, moves,
skipped looks of hinted cards, reveals, placements, final scoring); the short runs are in the
default suite, the long ones (both memory rules, many seeds) are marked slow.
"""

from __future__ import annotations

import jax
import pytest
from yokai_play import host, replay_reference, rollout_fn

from envs.yokai import YokaiParams, make
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
