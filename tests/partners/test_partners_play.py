"""Scripted partners in real episodes (400 steps, seeds fixed): they score, play their roles,
play either seat, and replay exactly from the same seed."""

from __future__ import annotations

import pytest

from envs import Action, EventKind
from proagent.domains.overcooked.partners import make_partner
from proagent.domains.overcooked.partners.scripted import middle_counters

CLASSIC = ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
MIN_SOUPS = 3  # seed 0 scores 7-13 soups per layout; this only catches a broken heuristic


@pytest.fixture(scope="module")
def greedy_self_play(make_env, play):
    """One greedy+greedy episode per classic layout, shared by the tests that read it."""
    episodes = {}

    def get(layout: str):
        if layout not in episodes:
            env = make_env(layout)
            pair = [make_partner("greedy", layout), make_partner("greedy", layout)]
            episodes[layout] = play(env, pair, seed=0, steps=400)
        return episodes[layout]

    return get


@pytest.mark.parametrize("layout", CLASSIC)
def test_greedy_self_play_scores_on_every_classic_layout(greedy_self_play, layout):
    episode = greedy_self_play(layout)
    assert episode.soups >= MIN_SOUPS, f"{layout}: {episode.soups} soups"
    assert episode.score == 20.0 * episode.soups


def test_greedy_passes_over_the_divider_on_forced_coordination(greedy_self_play, make_env):
    episode = greedy_self_play("forced_coordination")
    divider = middle_counters(make_env("forced_coordination").kitchen_map)
    left = 1  # player 2 starts left of the divider: onions and dishes, no pot, no serving
    placed = episode.of(left, EventKind.PLACE_ON_COUNTER)
    assert {e.item.name for e in placed} == {"onion", "dish"}
    assert all(e.position in divider for e in placed)
    assert not episode.of(left, EventKind.PUT_IN_POT)
    assert len(episode.of(0, EventKind.PICKUP_FROM_COUNTER)) >= 3 * MIN_SOUPS


def test_greedy_alone_still_scores_next_to_a_statue(make_env, play):
    env = make_env("cramped_room")
    episode = play(env, [make_partner("greedy", "cramped_room"), make_partner("stay", "cramped_room")])
    assert episode.soups >= MIN_SOUPS
    assert all(actions[1] == Action.STAY for actions in episode.actions)


@pytest.mark.parametrize("passer_seat", [0, 1])
def test_onion_passer_feeds_greedy_through_the_middle_counters(make_env, play, passer_seat):
    layout = "counter_circuit"
    env = make_env(layout)
    pair = [make_partner("greedy", layout), make_partner("greedy", layout)]
    pair[passer_seat] = make_partner("onion_passer", layout)
    episode = play(env, pair)
    cook = 1 - passer_seat
    island = middle_counters(env.kitchen_map)
    assert island == {(2, 2), (3, 2), (4, 2), (5, 2)}
    placed = episode.of(passer_seat, EventKind.PLACE_ON_COUNTER)
    assert len(placed) >= 3 * MIN_SOUPS
    assert all(e.position in island and e.item.name == "onion" for e in placed)
    taken = [e for e in episode.of(cook, EventKind.PICKUP_FROM_COUNTER) if e.item.name == "onion"]
    assert len(taken) >= 3 * MIN_SOUPS  # the cook accepts the passes...
    for kind in (EventKind.PUT_IN_POT, EventKind.FILL_DISH, EventKind.DELIVER, EventKind.PICKUP_DISH):
        assert not episode.of(passer_seat, kind)  # ...and the passer never cooks
    assert episode.soups >= MIN_SOUPS


def test_supplier_feeds_greedy_on_forced_coordination(make_env, play):
    layout = "forced_coordination"
    env = make_env(layout)
    episode = play(env, [make_partner("greedy", layout), make_partner("supplier", layout)])
    divider = middle_counters(env.kitchen_map)
    placed = episode.of(1, EventKind.PLACE_ON_COUNTER)
    assert {e.item.name for e in placed} == {"onion", "dish"}
    assert all(e.position in divider for e in placed)
    assert episode.soups >= MIN_SOUPS


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("name", ["greedy", "onion_passer", "supplier", "random", "stay"])
def test_any_partner_plays_either_seat(make_env, play, name, seat):
    layout = "cramped_room"
    pair = [make_partner("stay", layout), make_partner("stay", layout)]
    pair[seat] = make_partner(name, layout)
    episode = play(make_env(layout), pair, seed=3, steps=40)
    other = 1 - seat
    assert all(isinstance(a, Action) for joint in episode.actions for a in joint)
    assert all(joint[other] == Action.STAY for joint in episode.actions)
    assert not [e for e in episode.events if e.agent == other]
    if name == "stay":
        assert all(joint[seat] == Action.STAY for joint in episode.actions)
    elif name != "random":  # the skill partners fetch an onion for their own seat
        assert episode.of(seat, EventKind.PICKUP_INGREDIENT)
    else:
        assert len({joint[seat] for joint in episode.actions}) > 3


@pytest.mark.parametrize("name", ["greedy", "onion_passer", "supplier", "random", "stay"])
def test_same_seed_same_trajectory(make_env, play, name):
    layout = "coordination_ring"
    env = make_env(layout)

    def trajectory(seed: int):
        pair = [make_partner(name, layout), make_partner("greedy", layout)]
        return play(env, pair, seed=seed, steps=120).actions

    assert trajectory(5) == trajectory(5)
    if name in ("random", "greedy"):  # the noisy ones: another seed, another game
        assert trajectory(5) != trajectory(6)
