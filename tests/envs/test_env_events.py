"""Events on hand-built situations: hand-overs, wrong recipes, collisions, explicit cook start."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from kitchen_helpers import counter_view, event_view, normalise_expected_event, play, player_view, pot_view, wait

import envs

SOUP = "soup(onion,onion,onion)"
ONION3 = ("onion", "onion", "onion")


def events_of(rollout) -> list[tuple]:
    return [event_view(e) for e in rollout.events]


def expected(*events) -> list[tuple]:
    return [normalise_expected_event(e) for e in events]


# ---- counter hand-over (forced_coordination: player 1 left room, player 0 right room) ----


def test_counter_handover(make_env):
    r = play(
        make_env("forced_coordination"),
        [
            "DL",  # t0 player 0 to (3,2); player 1 faces the onions (0,2)
            "LI",  # t1 player 0 faces the counter (2,2); player 1 takes an onion
            "SR",  # t2 player 1 faces the counter (2,2)
            "SI",  # t3 player 1 puts the onion down
            "IS",  # t4 player 0 takes it
            "II",  # t5 player 0 puts it back and player 1 takes it in the same step (engine order: 0 then 1)
            "II",  # t6 player 0 finds the counter empty; player 1 puts it down again
        ],
    )
    assert events_of(r) == expected(
        (1, 1, "pickup_ingredient", (0, 2), "onion"),
        (3, 1, "place_on_counter", (2, 2), "onion"),
        (4, 0, "pickup_from_counter", (2, 2), "onion"),
        (5, 0, "place_on_counter", (2, 2), "onion"),
        (5, 1, "pickup_from_counter", (2, 2), "onion"),
        (6, 1, "place_on_counter", (2, 2), "onion"),
    )
    assert counter_view(r.kitchens[4]) == {(2, 2): "onion"}
    assert counter_view(r.kitchens[5]) == {}
    assert player_view(r.kitchens[5]) == [((3, 2), "left", "onion"), ((1, 2), "right", None)]
    assert player_view(r.kitchens[6]) == [((3, 2), "left", None), ((1, 2), "right", "onion")]
    assert player_view(r.kitchens[7]) == [((3, 2), "left", None), ((1, 2), "right", None)]
    assert counter_view(r.kitchens[7]) == {(2, 2): "onion"}


# ---- wrong recipe (a .toml kitchen with onions and tomatoes whose only recipe is three onions) ----

ONION_SOUP_KITCHEN = '''
grid = """
XXPXX
O  2T
X1  X
XDXSX
"""
recipes = [["onion", "onion", "onion"]]
'''

# Player 0 puts two onions in, player 1 a tomato; player 0 serves the onion-onion-tomato soup.
MIXED_SOUP_SCRIPT = [
    "UR",  # t0 player 0 up to (1,1); player 1 faces the tomatoes (4,1)
    "LI",  # t1 player 0 faces the onions; player 1 takes a tomato
    "IS", "RS", "US", "IS",  # t2-5 player 0: onion, right, face the pot, put in
    "LS", "IS", "RS", "US", "IS",  # t6-10 second onion
    "LS",  # t11 player 0 out of the way to (1,1)
    "DL",  # t12 player 0 down to (1,2); player 1 left to (2,1)
    "DU",  # t13 player 0 faces the dish dispenser; player 1 faces the pot
    "II",  # t14 player 0 takes a dish; player 1 puts the tomato in: the pot starts
    "RR",  # t15 player 0 to (2,2); player 1 back to (3,1)
    "US", "US",  # t16-17 player 0 under the pot
    *wait(16),  # t18-33 cooking (ready at step 34)
    "IS",  # t34 fill the dish
    "DS", "RS", "DS", "IS",  # t35-38 serve
]
MIXED = "soup(onion,onion,tomato)"
MIXED_SOUP_EVENTS = [
    (1, 1, "pickup_ingredient", (4, 1), "tomato"),
    (2, 0, "pickup_ingredient", (0, 1), "onion"),
    (5, 0, "put_in_pot", (2, 0), "onion"),
    (7, 0, "pickup_ingredient", (0, 1), "onion"),
    (10, 0, "put_in_pot", (2, 0), "onion"),
    (14, 0, "pickup_dish", (1, 3), "dish"),
    (14, 1, "put_in_pot", (2, 0), "tomato"),
    (14, 1, "start_cooking", (2, 0), MIXED),
    (34, 0, "fill_dish", (2, 0), MIXED),
    (38, 0, "deliver", (3, 3), MIXED, False),
]


@pytest.fixture(scope="module")
def onion_soup_kitchen(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("kitchens") / "onion_soup_only.toml"
    path.write_text(ONION_SOUP_KITCHEN)
    return str(path)


def test_wrong_recipe_delivery_scores_nothing(make_env, onion_soup_kitchen):
    env = make_env(onion_soup_kitchen)
    assert env.layout.num_ingredients == 2 and env.layout.recipes == ((0, 0, 0),)
    r = play(env, MIXED_SOUP_SCRIPT)
    assert r.kitchens[0].recipe == (0, 0, 0)
    assert events_of(r) == expected(*MIXED_SOUP_EVENTS)
    assert pot_view(r.kitchens[15]) == {(2, 0): (("onion", "onion", "tomato"), 19, False)}
    assert pot_view(r.kitchens[34]) == {(2, 0): (("onion", "onion", "tomato"), 0, True)}
    assert r.rewards == [0.0] * len(MIXED_SOUP_SCRIPT) and r.score == 0.0
    # the tomato was not a useful placement (no shaping), the onions were
    assert r.shaped[14] == (3.0, 0.0)  # player 0's plate pickup; player 1's tomato earns nothing
    assert r.shaped[5] == r.shaped[10] == (3.0, 0.0)
    assert r.shaped[34] == (0.0, 0.0)  # picking up a wrong soup earns no shaping either
    assert player_view(r.final)[0] == ((3, 2), "down", None)
    assert r.events[-1].describe() == "deliver soup of onion, onion, tomato at (3, 3) (wrong recipe)"


def test_wrong_recipe_penalty_is_minus_soup_reward(make_env, onion_soup_kitchen):
    env = make_env(onion_soup_kitchen, wrong_soup_penalty=True, soup_reward=7.0)
    r = play(env, MIXED_SOUP_SCRIPT)
    assert events_of(r) == expected(*MIXED_SOUP_EVENTS)
    assert {t: x for t, x in enumerate(r.rewards) if x} == {38: -7.0}


# ---- collisions (cramped_room: player 0 at (1,2), player 1 at (3,1)) ----


def test_collisions_and_swaps_are_blocked(cramped):
    r = play(
        cramped,
        [
            "SL",  # t0 player 1 to (2,1)
            "RD",  # t1 both step into (2,2): neither moves, both turn
            "SD",  # t2 player 1 to (2,2), next to player 0
            "RL",  # t3 swap attempt: neither moves, both turn
            "RR",  # t4 player 1 to (3,2) and player 0 follows into (2,2) in the same step: both move
            "RS",  # t5 player 0 walks into player 1, who stays: blocked
            "II",  # t6 both interact with nothing (floor/counter without items): no event
        ],
    )
    views = [player_view(k) for k in r.kitchens]
    assert views[1] == [((1, 2), "up", None), ((2, 1), "left", None)]
    assert views[2] == [((1, 2), "right", None), ((2, 1), "down", None)]  # collision: turned, not moved
    assert views[3] == [((1, 2), "right", None), ((2, 2), "down", None)]
    assert views[4] == [((1, 2), "right", None), ((2, 2), "left", None)]  # swap prevented
    assert views[5] == [((2, 2), "right", None), ((3, 2), "right", None)]  # following is allowed
    assert views[6] == [((2, 2), "right", None), ((3, 2), "right", None)]  # blocked by a standing player
    assert views[7] == views[6]
    assert r.events == []
    assert r.rewards == [0.0] * 7 and all(s == (0.0, 0.0) for s in r.shaped)
    grids = {np.asarray(s.grid).tobytes() for s in r.states}
    assert len(grids) == 1  # nothing in the kitchen changed


# ---- explicit cook start ----

# asymmetric_advantages: player 0 at (6,2) fills the pot (4,2) from (5,2) with the onions at (5,1).
ASYM_THREE_ONIONS = [
    "LS",  # t0 left to (5,2), facing the pot
    "US", "IS", "LS", "IS",  # t1-4 face the onions, take one, face the pot, put it in
    "US", "IS", "LS", "IS",  # t5-8 second
    "US", "IS", "LS", "IS",  # t9-12 third: the pot is full
]


def test_explicit_cook_start(make_env):
    env = make_env("asymmetric_advantages", auto_cook=False)
    r = play(env, [*ASYM_THREE_ONIONS, *wait(3), "IS", *wait(19)])
    assert events_of(r) == expected(
        (2, 0, "pickup_ingredient", (5, 1), "onion"),
        (4, 0, "put_in_pot", (4, 2), "onion"),
        (6, 0, "pickup_ingredient", (5, 1), "onion"),
        (8, 0, "put_in_pot", (4, 2), "onion"),
        (10, 0, "pickup_ingredient", (5, 1), "onion"),
        (12, 0, "put_in_pot", (4, 2), "onion"),
        (16, 0, "start_cooking", (4, 2), SOUP),
    )
    for step in (13, 14, 15, 16):  # full, idle, not cooking until the empty-handed interact
        pot = r.kitchens[step].pot_at[(4, 2)]
        assert (pot.ingredients, pot.cooking, pot.ready, pot.ticks_left, pot.idle) == ((0, 0, 0), False, False, 0, True)
    assert pot_view(r.kitchens[17])[(4, 2)] == (ONION3, 19, False)
    assert pot_view(r.kitchens[35])[(4, 2)] == (ONION3, 1, False)
    assert pot_view(r.kitchens[36])[(4, 2)] == (ONION3, 0, True)
    assert r.shaped[16] == (5.0, 0.0)  # JaxMARL's start-cooking shaping
    assert r.score == 0.0


def test_auto_cook_credits_the_agent_who_filled_the_pot(make_env):
    """auto_cook: the third onion starts the pot; a teammate interacting with it in the same step
    (after, in engine order) does nothing."""
    r = play(make_env("asymmetric_advantages"), ["LU", "UU", "IL", "LI", "ID", "UR", "IR", "LR", "SI", "II"])
    assert events_of(r)[-2:] == expected(
        (9, 0, "put_in_pot", (4, 2), "onion"),
        (9, 0, "start_cooking", (4, 2), SOUP),
    )
    assert r.shaped[9] == (3.0, 0.0)


def test_explicit_cook_credits_the_agent_who_started_the_pot(make_env):
    """Explicit cook start on asymmetric_advantages: in one step player 0 puts the third onion into
    the pot (4,2) from the right and player 1, empty-handed, interacts with it from the left. The
    engine resolves player 0 first (the pot is full, idle) and then player 1's interact starts it;
    JaxMARL pays player 1 the start-cooking shaping (5).

    BUG (envs/overcooked/events.py, _one_start_per_pot): the filler is always credited with the
    start, which is only right under auto_cook; here the event says player 0 started cooking."""
    env = make_env("asymmetric_advantages", auto_cook=False)
    r = play(env, ["LU", "UU", "IL", "LI", "ID", "UR", "IR", "LR", "SI", "II"])
    assert pot_view(r.kitchens[10])[(4, 2)] == (ONION3, 19, False)
    assert r.shaped[9] == (3.0, 5.0)  # the engine's view: player 1 started it
    assert events_of(r)[-2:] == expected(
        (9, 0, "put_in_pot", (4, 2), "onion"),
        (9, 1, "start_cooking", (4, 2), SOUP),
    )


def test_extract_events_ignores_non_interactions(cramped):
    state = cramped.jit_reset(jax.random.PRNGKey(0))
    kitchen = cramped.symbolic(state)
    assert envs.extract_events(kitchen, (envs.Action.STAY, envs.Action.UP), kitchen) == []


# ---- button recipe indicators ----


@pytest.fixture(scope="module")
def button_kitchen(make_env):
    """cramped_room with a button indicator 'L' at (3,0), right above player 1."""
    layout = envs.parse_layout("XXPLX\nO  2O\nX1  X\nXDXSX", name="button_room")
    return envs.make(layout)


def test_indicator_activation(button_kitchen):
    r = play(button_kitchen, ["SI", "SS", "SS", "SI"])
    assert events_of(r) == expected(
        (0, 1, "activate_indicator", (3, 0), None),
        (3, 1, "activate_indicator", (3, 0), None),
    )
    assert [k.indicators[0].active_ticks for k in r.kitchens] == [0, 9, 8, 7, 9]
    # JaxMARL charges each activation (INDICATOR_ACTIVATION_COST) in the sparse reward
    assert r.rewards == [-5.0, 0.0, 0.0, -5.0]


def test_indicator_reactivated_on_the_next_step_is_an_event(button_kitchen):
    """Two activations in a row: the engine charges both (-5 each) and restarts the timer, but the
    timer reads 9 after both steps. BUG (envs/overcooked/events.py, _interaction, the
    BUTTON_RECIPE_INDICATOR branch): it detects an activation by "active_ticks grew", so the
    second one yields no event. An activation is exactly "active_ticks == INDICATOR_ACTIVATION_TIME - 1
    after the step" (the engine sets 10 and ticks once in the same step)."""
    r = play(button_kitchen, ["SI", "SI"])
    assert r.rewards == [-5.0, -5.0]
    assert [k.indicators[0].active_ticks for k in r.kitchens] == [0, 9, 9]
    assert events_of(r) == expected(
        (0, 1, "activate_indicator", (3, 0), None),
        (1, 1, "activate_indicator", (3, 0), None),
    )
