"""Golden traces on the five classic kitchens, written by hand from the legacy grids.

Each trace is a fixed script of joint actions with what must happen: every event (step, agent,
kind, cell, item[, correct recipe]), the reward and shaped reward of the steps that have any, the
final score, and the symbolic state at checkpoints (players as (position, facing, held), pots as
(ingredients, ticks_left, ready), items on counters). Engine pot semantics: the step that puts the
third onion in starts cooking and ticks once, so the state after it shows ticks_left = 19 and the
soup is ready (ticks_left 0) 20 steps after the step that put the onion in.

Scripts: one two-letter string per step, player 0's action then player 1's (U D R L S I).
"""

from __future__ import annotations

import pytest
from kitchen_helpers import counter_view, event_view, normalise_expected_event, play, player_view, pot_view, wait

ONION3 = ("onion", "onion", "onion")
SOUP = "soup(onion,onion,onion)"
EMPTY_POT = ((), 0, False)

# cramped_room        player 0 starts at (1,2), player 1 at (3,1); pot (2,0), onions (0,1) (4,1),
#   XXPXX             dish dispenser (1,3), serving spot (3,3).
#   O  2O             Player 0 cooks and serves one soup alone; player 1 stays.
#   X1  X
#   XDXSX
CRAMPED_ROOM_SOUP = {
    "layout": "cramped_room",
    "script": [
        "US", "LS", "IS", "RS", "US", "IS",  # t0-5   onion 1: up, face onion, take, right, face pot, put
        "LS", "IS", "RS", "US", "IS",  # t6-10  onion 2
        "LS", "IS", "RS", "US", "IS",  # t11-15 onion 3 (pot starts cooking)
        "LS", "DS", "DS", "IS",  # t16-19 to the dish dispenser, take a dish
        "RS", "US", "US",  # t20-22 back under the pot (the second U bumps the pot)
        *wait(7), "IS", *wait(4),  # t23-34 wait; t30 interact with the cooking pot: nothing happens
        "IS",  # t35 fill the dish (ready at step 35)
        "DS", "RS", "DS", "IS",  # t36-39 to the serving spot, deliver
    ],
    "events": [
        (2, 0, "pickup_ingredient", (0, 1), "onion"),
        (5, 0, "put_in_pot", (2, 0), "onion"),
        (7, 0, "pickup_ingredient", (0, 1), "onion"),
        (10, 0, "put_in_pot", (2, 0), "onion"),
        (12, 0, "pickup_ingredient", (0, 1), "onion"),
        (15, 0, "put_in_pot", (2, 0), "onion"),
        (15, 0, "start_cooking", (2, 0), SOUP),
        (19, 0, "pickup_dish", (1, 3), "dish"),
        (35, 0, "fill_dish", (2, 0), SOUP),
        (39, 0, "deliver", (3, 3), SOUP, True),
    ],
    "rewards": {39: 20.0},
    # placement in pot 3, useful plate pickup 3, soup pickup 5 (JaxMARL's shaping)
    "shaped": {5: (3.0, 0.0), 10: (3.0, 0.0), 15: (3.0, 0.0), 19: (3.0, 0.0), 35: (5.0, 0.0)},
    "score": 20.0,
    "checkpoints": {
        0: {"players": [((1, 2), "up", None), ((3, 1), "up", None)], "pots": {(2, 0): EMPTY_POT}, "counters": {}},
        3: {"players": [((1, 1), "left", "onion"), ((3, 1), "up", None)], "pots": {(2, 0): EMPTY_POT}},
        6: {"players": [((2, 1), "up", None), ((3, 1), "up", None)], "pots": {(2, 0): (("onion",), 0, False)}},
        11: {"players": [((2, 1), "up", None), ((3, 1), "up", None)], "pots": {(2, 0): (("onion", "onion"), 0, False)}},
        16: {"players": [((2, 1), "up", None), ((3, 1), "up", None)], "pots": {(2, 0): (ONION3, 19, False)}},
        20: {"players": [((1, 2), "down", "dish"), ((3, 1), "up", None)], "pots": {(2, 0): (ONION3, 15, False)}},
        23: {"players": [((2, 1), "up", "dish"), ((3, 1), "up", None)], "pots": {(2, 0): (ONION3, 12, False)}},
        34: {"players": [((2, 1), "up", "dish"), ((3, 1), "up", None)], "pots": {(2, 0): (ONION3, 1, False)}},
        35: {"players": [((2, 1), "up", "dish"), ((3, 1), "up", None)], "pots": {(2, 0): (ONION3, 0, True)}},
        36: {"players": [((2, 1), "up", SOUP), ((3, 1), "up", None)], "pots": {(2, 0): EMPTY_POT}},
        40: {"players": [((3, 2), "down", None), ((3, 1), "up", None)], "pots": {(2, 0): EMPTY_POT}, "counters": {}},
    },
}

# counter_circuit     player 0 starts at (3,3), player 1 at (3,1); pots (3,0) (4,0), onions (3,4) (4,4),
#   XXXPPXXX          dish dispenser (0,2), serving spot (7,2).
#   X  2   X          Player 0 takes onions from below and passes them over the middle counter (3,2);
#   D XXXX S          player 1 takes them, fills the pot (3,0), then goes round for a dish and serves.
#   X  1   X
#   XXXOOXXX
COUNTER_CIRCUIT_SOUP = {
    "layout": "counter_circuit",
    "script": [
        "DD",  # t0 both face their cell: player 0 the onion dispenser, player 1 the middle counter
        "IS", "US", "IS",  # t1-3 player 0: take an onion, face the counter, put it down
        "DI", "IU", "UI", "ID",  # t4-7  player 1 takes it and puts it in; player 0 brings the next
        "DI", "IU", "UI", "ID",  # t8-11 same again
        "SI", "SU", "SI",  # t12-14 third onion: the pot starts cooking
        "SL", "SL", "SD", "SL", "SI",  # t15-19 player 1 round the left to the dish dispenser, takes a dish
        "SU", "SR", "SR", "SU",  # t20-23 back under the pot
        *wait(10),  # t24-33 cooking
        "SI",  # t34 fill the dish
        "SR", "SR", "SR", "SD", "SR", "SI",  # t35-40 right round to the serving spot, deliver
    ],
    "events": [
        (1, 0, "pickup_ingredient", (3, 4), "onion"),
        (3, 0, "place_on_counter", (3, 2), "onion"),
        (4, 1, "pickup_from_counter", (3, 2), "onion"),
        (5, 0, "pickup_ingredient", (3, 4), "onion"),
        (6, 1, "put_in_pot", (3, 0), "onion"),
        (7, 0, "place_on_counter", (3, 2), "onion"),
        (8, 1, "pickup_from_counter", (3, 2), "onion"),
        (9, 0, "pickup_ingredient", (3, 4), "onion"),
        (10, 1, "put_in_pot", (3, 0), "onion"),
        (11, 0, "place_on_counter", (3, 2), "onion"),
        (12, 1, "pickup_from_counter", (3, 2), "onion"),
        (14, 1, "put_in_pot", (3, 0), "onion"),
        (14, 1, "start_cooking", (3, 0), SOUP),
        (19, 1, "pickup_dish", (0, 2), "dish"),
        (34, 1, "fill_dish", (3, 0), SOUP),
        (40, 1, "deliver", (7, 2), SOUP, True),
    ],
    "rewards": {40: 20.0},
    "shaped": {6: (0.0, 3.0), 10: (0.0, 3.0), 14: (0.0, 3.0), 19: (0.0, 3.0), 34: (0.0, 5.0)},
    "score": 20.0,
    "checkpoints": {
        0: {
            "players": [((3, 3), "up", None), ((3, 1), "up", None)],
            "pots": {(3, 0): EMPTY_POT, (4, 0): EMPTY_POT},
            "counters": {},
        },
        4: {"players": [((3, 3), "up", None), ((3, 1), "down", None)], "counters": {(3, 2): "onion"}},
        5: {"players": [((3, 3), "down", None), ((3, 1), "down", "onion")], "counters": {}},
        7: {
            "players": [((3, 3), "up", "onion"), ((3, 1), "up", None)],
            "pots": {(3, 0): (("onion",), 0, False), (4, 0): EMPTY_POT},
        },
        12: {"players": [((3, 3), "up", None), ((3, 1), "down", None)], "counters": {(3, 2): "onion"}},
        15: {
            "players": [((3, 3), "up", None), ((3, 1), "up", None)],
            "pots": {(3, 0): (ONION3, 19, False), (4, 0): EMPTY_POT},
            "counters": {},
        },
        17: {"players": [((3, 3), "up", None), ((1, 1), "left", None)]},
        20: {
            "players": [((3, 3), "up", None), ((1, 2), "left", "dish")],
            "pots": {(3, 0): (ONION3, 14, False), (4, 0): EMPTY_POT},
        },
        24: {"players": [((3, 3), "up", None), ((3, 1), "up", "dish")]},
        34: {
            "players": [((3, 3), "up", None), ((3, 1), "up", "dish")],
            "pots": {(3, 0): (ONION3, 0, True), (4, 0): EMPTY_POT},
        },
        35: {"players": [((3, 3), "up", None), ((3, 1), "up", SOUP)], "pots": {(3, 0): EMPTY_POT, (4, 0): EMPTY_POT}},
        40: {"players": [((3, 3), "up", None), ((6, 2), "right", SOUP)]},
        41: {"players": [((3, 3), "up", None), ((6, 2), "right", None)], "counters": {}},
    },
}

# asymmetric_advantages   player 0 starts at (6,2), player 1 at (1,3); pots (4,2) (4,3).
#   XXXXXXXXX             Both fill the pot (4,2) from their own side: player 0 from (5,2) with the
#   O XSXOX S             onions at (5,1), player 1 from (3,2) with the onions at (0,1).
#   X   P 1 X
#   X2  P   X
#   XXXDXDXXX
ASYMMETRIC_ADVANTAGES_POT = {
    "layout": "asymmetric_advantages",
    "script": [
        "LU",  # t0 player 0 left to (5,2) facing the pot; player 1 up to (1,2)
        "UU",  # t1 player 0 faces the onions (5,1); player 1 up to (1,1)
        "IL",  # t2 player 0 takes an onion; player 1 faces the onions (0,1)
        "LI",  # t3 player 0 faces the pot; player 1 takes an onion
        "ID",  # t4 player 0 puts in; player 1 down to (1,2)
        "UR", "IR", "LR",  # t5-7 player 0 fetches a second onion; player 1 right to (3,2), bumps the pot
        "SI",  # t8 player 1 puts in (2 onions)
        "IS",  # t9 player 0 puts in: the pot starts
    ],
    "events": [
        (2, 0, "pickup_ingredient", (5, 1), "onion"),
        (3, 1, "pickup_ingredient", (0, 1), "onion"),
        (4, 0, "put_in_pot", (4, 2), "onion"),
        (6, 0, "pickup_ingredient", (5, 1), "onion"),
        (8, 1, "put_in_pot", (4, 2), "onion"),
        (9, 0, "put_in_pot", (4, 2), "onion"),
        (9, 0, "start_cooking", (4, 2), SOUP),
    ],
    "rewards": {},
    "shaped": {4: (3.0, 0.0), 8: (0.0, 3.0), 9: (3.0, 0.0)},
    "score": 0.0,
    "checkpoints": {
        0: {
            "players": [((6, 2), "up", None), ((1, 3), "up", None)],
            "pots": {(4, 2): EMPTY_POT, (4, 3): EMPTY_POT},
        },
        4: {
            "players": [((5, 2), "left", "onion"), ((1, 1), "left", "onion")],
            "pots": {(4, 2): EMPTY_POT, (4, 3): EMPTY_POT},
        },
        8: {
            "players": [((5, 2), "left", "onion"), ((3, 2), "right", "onion")],
            "pots": {(4, 2): (("onion",), 0, False), (4, 3): EMPTY_POT},
        },
        9: {
            "players": [((5, 2), "left", "onion"), ((3, 2), "right", None)],
            "pots": {(4, 2): (("onion", "onion"), 0, False), (4, 3): EMPTY_POT},
        },
        10: {
            "players": [((5, 2), "left", None), ((3, 2), "right", None)],
            "pots": {(4, 2): (ONION3, 19, False), (4, 3): EMPTY_POT},
        },
    },
}

# coordination_ring   player 0 starts at (2,1), player 1 at (1,2); pots (3,0) (4,1), onions (0,3) (1,4),
#   XXXPX             dish dispenser (0,2), serving spot (2,4).
#   X 1 P             Player 1 goes down for an onion and round the ring to the pot (4,1); player 0
#   D2X X             follows into the cell player 1 leaves and takes a dish.
#   O   X
#   XOSXX
COORDINATION_RING_ONION = {
    "layout": "coordination_ring",
    "script": [
        "LD",  # t0 player 0 to (1,1); player 1 to (1,3)
        "DL",  # t1 player 0 to (1,2), the cell player 1 just left; player 1 faces the onions (0,3)
        "LI",  # t2 player 0 faces the dish dispenser; player 1 takes an onion
        "IR",  # t3 player 0 takes a dish; player 1 to (2,3)
        "SR", "SU", "SU", "SR",  # t4-7 player 1 to (3,3), (3,2), (3,1), faces the pot (4,1)
        "SI",  # t8 player 1 puts the onion in
    ],
    "events": [
        (2, 1, "pickup_ingredient", (0, 3), "onion"),
        (3, 0, "pickup_dish", (0, 2), "dish"),
        (8, 1, "put_in_pot", (4, 1), "onion"),
    ],
    "rewards": {},
    "shaped": {8: (0.0, 3.0)},  # the dish pickup is not useful: every pot is empty then
    "score": 0.0,
    "checkpoints": {
        0: {"players": [((2, 1), "up", None), ((1, 2), "up", None)], "pots": {(3, 0): EMPTY_POT, (4, 1): EMPTY_POT}},
        1: {"players": [((1, 1), "left", None), ((1, 3), "down", None)]},
        2: {"players": [((1, 2), "down", None), ((1, 3), "left", None)]},
        4: {"players": [((1, 2), "left", "dish"), ((2, 3), "right", "onion")]},
        8: {"players": [((1, 2), "left", "dish"), ((3, 1), "right", "onion")]},
        9: {
            "players": [((1, 2), "left", "dish"), ((3, 1), "right", None)],
            "pots": {(3, 0): EMPTY_POT, (4, 1): (("onion",), 0, False)},
        },
    },
}

# forced_coordination   player 0 starts at (3,1) (right room), player 1 at (1,2) (left room, with the
#   XXXPX               onions (0,1) (0,2) and the dish dispenser (0,3)); pots (3,0) (4,1).
#   O X1P               Player 1 passes two onions over the counters (2,2) and (2,1); player 0
#   O2X X               puts one in each pot.
#   D X X
#   XXXSX
FORCED_COORDINATION_HANDOVER = {
    "layout": "forced_coordination",
    "script": [
        "DL",  # t0 player 0 to (3,2); player 1 faces the onions (0,2)
        "LI",  # t1 player 0 faces the counter (2,2); player 1 takes an onion
        "SR",  # t2 player 1 faces the counter (2,2)
        "SI",  # t3 player 1 puts the onion on it
        "IU",  # t4 player 0 takes it; player 1 up to (1,1)
        "UL",  # t5 player 0 up to (3,1); player 1 faces the onions (0,1)
        "UI",  # t6 player 0 faces the pot (3,0); player 1 takes an onion
        "IR",  # t7 player 0 puts in; player 1 faces the counter (2,1)
        "RI",  # t8 player 0 faces the pot (4,1); player 1 puts the onion on the counter
        "LS", "IS", "RS", "IS",  # t9-12 player 0 takes it and puts it in the pot (4,1)
    ],
    "events": [
        (1, 1, "pickup_ingredient", (0, 2), "onion"),
        (3, 1, "place_on_counter", (2, 2), "onion"),
        (4, 0, "pickup_from_counter", (2, 2), "onion"),
        (6, 1, "pickup_ingredient", (0, 1), "onion"),
        (7, 0, "put_in_pot", (3, 0), "onion"),
        (8, 1, "place_on_counter", (2, 1), "onion"),
        (10, 0, "pickup_from_counter", (2, 1), "onion"),
        (12, 0, "put_in_pot", (4, 1), "onion"),
    ],
    "rewards": {},
    "shaped": {7: (3.0, 0.0), 12: (3.0, 0.0)},
    "score": 0.0,
    "checkpoints": {
        0: {
            "players": [((3, 1), "up", None), ((1, 2), "up", None)],
            "pots": {(3, 0): EMPTY_POT, (4, 1): EMPTY_POT},
            "counters": {},
        },
        4: {"players": [((3, 2), "left", None), ((1, 2), "right", None)], "counters": {(2, 2): "onion"}},
        5: {"players": [((3, 2), "left", "onion"), ((1, 1), "up", None)], "counters": {}},
        8: {
            "players": [((3, 1), "up", None), ((1, 1), "right", "onion")],
            "pots": {(3, 0): (("onion",), 0, False), (4, 1): EMPTY_POT},
        },
        9: {"players": [((3, 1), "right", None), ((1, 1), "right", None)], "counters": {(2, 1): "onion"}},
        13: {
            "players": [((3, 1), "right", None), ((1, 1), "right", None)],
            "pots": {(3, 0): (("onion",), 0, False), (4, 1): (("onion",), 0, False)},
            "counters": {},
        },
    },
}

TRACES = {
    "cramped_room_soup": CRAMPED_ROOM_SOUP,
    "counter_circuit_soup": COUNTER_CIRCUIT_SOUP,
    "asymmetric_advantages_pot": ASYMMETRIC_ADVANTAGES_POT,
    "coordination_ring_onion": COORDINATION_RING_ONION,
    "forced_coordination_handover": FORCED_COORDINATION_HANDOVER,
}


@pytest.fixture(scope="module")
def rollouts(make_env):
    """Each trace played once; the tests below check different parts of the same rollout."""
    return {name: play(make_env(trace["layout"]), trace["script"]) for name, trace in TRACES.items()}


@pytest.mark.parametrize("name", TRACES)
def test_trace_events(name, rollouts):
    got = [event_view(e) for e in rollouts[name].events]
    want = [normalise_expected_event(e) for e in TRACES[name]["events"]]
    assert got == want


@pytest.mark.parametrize("name", TRACES)
def test_trace_rewards_and_score(name, rollouts):
    trace, rollout = TRACES[name], rollouts[name]
    rewards = {t: r for t, r in enumerate(rollout.rewards) if r != 0}
    shaped = {t: s for t, s in enumerate(rollout.shaped) if any(s)}
    assert rewards == trace["rewards"]
    assert shaped == trace["shaped"]
    assert rollout.score == trace["score"]
    assert not any(rollout.dones)


@pytest.mark.parametrize("name", TRACES)
def test_trace_checkpoints(name, rollouts):
    trace, rollout = TRACES[name], rollouts[name]
    assert len(rollout.kitchens) == len(trace["script"]) + 1
    assert max(trace["checkpoints"]) == len(trace["script"]), "the last checkpoint is the final state"
    for step, expected in trace["checkpoints"].items():
        kitchen = rollout.kitchens[step]
        assert kitchen.step == step
        assert player_view(kitchen) == expected["players"], f"players at step {step}"
        if "pots" in expected:
            assert pot_view(kitchen) == expected["pots"], f"pots at step {step}"
        if "counters" in expected:
            assert counter_view(kitchen) == expected["counters"], f"counters at step {step}"


def test_events_describe_and_serialise(rollouts):
    deliver = rollouts["cramped_room_soup"].events[-1]
    assert deliver.describe() == "deliver soup of onion, onion, onion at (3, 3) (correct recipe)"
    assert deliver.to_record() == {
        "step": 39,
        "agent": 0,
        "kind": "deliver",
        "position": (3, 3),
        "item": {"kind": "soup", "ingredients": [0, 0, 0]},
        "correct": True,
    }
