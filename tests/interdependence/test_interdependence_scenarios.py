"""Exact counts on hand-built scenarios (the paper's Defs. 4.1-4.6 and App. D.4).

counter_circuit: onion dispensers (3,4) (4,4), middle counters (2..5,2), pots (3,0) (4,0), dish
dispenser (0,2), serving (7,2). forced_coordination: the cook (player 0) is right of the counters
(2,1) (2,2) (2,3) with pots (3,0) (4,1) and serving (3,4); the supplier (player 1) is left with
onions (0,1) (0,2) and dishes (0,3).
"""

from __future__ import annotations

from interdependence_helpers import DISH, Script

from proagent.domains.overcooked.interdependence import overcooked_domain
from proagent.interdependence.analysis import analyze

CC_ONIONS, CC_POT, CC_DISHES, CC_SERVE = (3, 4), (3, 0), (0, 2), (7, 2)
MIDDLE = [(2, 2), (3, 2), (4, 2)]


def cook_and_serve(s: Script, cook: int, pot=CC_POT, dishes=CC_DISHES, serve=CC_SERVE) -> Script:
    return s.fetch_dish(cook, dishes).fill(cook, pot).deliver(cook, serve)


def test_passed_onions_that_end_in_a_delivered_soup_are_constructive():
    s = Script("counter_circuit")
    for counter in MIDDLE:
        s.fetch_onion(0, CC_ONIONS).place(0, counter)
    for i, counter in enumerate(MIDDLE):
        s.take(1, counter).put_in_pot(1, CC_POT, starts=i == 2)
    _, result = cook_and_serve(s, 1).analyze()
    assert (result.total, result.constructive, result.non_constructive, result.looping) == (3, 3, 0, 0)
    assert result.by_operator == {"pickup_from_counter": 3}
    passer, receiver = result.agents
    assert (passer.initiated, passer.initiated_accepted, passer.given, passer.accepted) == (3, 3, 3, 0)
    # the receiver's first two onions in the pot and its cooking soup were offers nobody took;
    # the third onion was consumed by its own start of cooking in the same step: no offer
    assert (receiver.initiated, receiver.initiated_accepted, receiver.received, receiver.accepted) == (3, 0, 3, 3)
    assert result.goals_reached == 1 and result.constructive_share == 1.0
    first = result.interdependencies[0]
    assert (first.giver, first.receiver, first.object, first.proposition) == (0, 1, "onion1", "(on onion1 counter_2_2)")
    assert first.trajectory[0].endswith("(place_on_counter p0 onion1 counter_2_2)")
    assert first.trajectory[-1].endswith("(deliver p1 soup1 serving_7_2)")


def test_passing_back_and_forth_is_looping_even_when_the_soup_is_served():
    s = Script("counter_circuit").fetch_onion(0, CC_ONIONS).place(0, (3, 2))
    s.take(1, (3, 2)).place(1, (3, 2))  # 1: p0 -> p1, then offered back
    s.take(0, (3, 2)).place(0, (3, 2))  # 2: p1 -> p0 (p0 had it before), offered again
    s.take(1, (3, 2)).put_in_pot(1, CC_POT)  # 3: p0 -> p1 (p1 had it before)
    s.fetch_onion(1, CC_ONIONS).put_in_pot(1, CC_POT).fetch_onion(1, CC_ONIONS).put_in_pot(1, CC_POT, starts=True)
    _, result = cook_and_serve(s, 1).analyze()
    assert (result.total, result.constructive, result.looping, result.irrelevant) == (3, 0, 3, 0)
    loops = [(i.giver_loop, i.receiver_loop) for i in result.interdependencies]
    assert loops == [(True, False), (True, True), (False, True)]
    assert all(i.category == "looping" and i.goal_reaching for i in result.interdependencies)


def test_onions_passed_but_never_cooked_are_not_goal_reaching():
    s = Script("counter_circuit")
    for counter in MIDDLE:
        s.fetch_onion(0, CC_ONIONS).place(0, counter)
    s.take(1, MIDDLE[0]).put_in_pot(1, CC_POT).take(1, MIDDLE[1]).put_in_pot(1, (4, 0))  # never 3 in a pot
    _, result = s.analyze()
    assert (result.total, result.constructive, result.non_constructive, result.irrelevant, result.looping) == (2, 0, 2, 2, 0)
    assert {i.category for i in result.interdependencies} == {"irrelevant"}
    assert (result.agents[0].initiated, result.agents[0].initiated_accepted) == (3, 2)  # one onion left lying
    assert result.goals_reached == 0 and result.constructive_share == 0.0


def test_a_useful_transfer_is_not_looping_app_d4():
    """p0 parks onion1 with p1 to free its hands, cooks with another onion meanwhile, then takes
    onion1 back: a loop in the nominal state, but a useful one (App. D.4)."""
    s = Script("counter_circuit").fetch_onion(0, CC_ONIONS).place(0, (3, 2))
    s.fetch_onion(0, CC_ONIONS).put_in_pot(0, CC_POT)  # free hands used for the goal
    s.take(1, (3, 2)).place(1, (4, 2))  # p1 holds it for a moment and offers it back
    s.take(0, (4, 2)).put_in_pot(0, CC_POT)
    s.fetch_onion(0, CC_ONIONS).put_in_pot(0, CC_POT, starts=True)
    trace, result = cook_and_serve(s, 0).analyze()
    assert (result.total, result.constructive, result.useful_transfers, result.looping) == (2, 2, 2, 0)
    strict = analyze(trace, overcooked_domain(), useful_transfers=False)
    assert (strict.total, strict.constructive, strict.looping) == (2, 0, 2)


def test_forced_coordination_hand_overs():
    s = Script("forced_coordination")
    for i, counter in enumerate([(2, 1), (2, 2), (2, 1)]):
        s.fetch_onion(1, (0, 1)).place(1, counter).take(0, counter).put_in_pot(0, (4, 1), starts=i == 2)
    s.fetch_dish(1, (0, 3)).place(1, (2, 3), DISH).take(0, (2, 3), DISH).fill(0, (4, 1)).deliver(0, (3, 4))
    s.fetch_onion(1, (0, 1)).place(1, (2, 2)).take(0, (2, 2)).put_in_pot(0, (3, 0))  # the horizon comes
    s.fetch_dish(1, (0, 3)).place(1, (2, 3), DISH)  # offered, not taken
    _, result = s.analyze()
    assert (result.total, result.constructive, result.irrelevant) == (5, 4, 1)
    assert result.by_operator == {"pickup_from_counter": 5}
    supplier, cook = result.agents[1], result.agents[0]
    assert (supplier.initiated, supplier.initiated_accepted, supplier.constructive_given) == (6, 5, 4)
    assert (cook.accepted, cook.constructive_received) == (5, 4)
    dish = next(i for i in result.interdependencies if i.object_type == "dish")
    assert dish.constructive and dish.trajectory[-1].endswith("(deliver p0 soup1 serving_3_4)")


def test_sharing_a_pot_links_the_cooks():
    """p0's onion is a precondition of p1's start of cooking; p1's soup of p0's fill."""
    s = Script("counter_circuit").fetch_onion(0, CC_ONIONS).put_in_pot(0, CC_POT)
    s.fetch_onion(1, CC_ONIONS).put_in_pot(1, CC_POT).fetch_onion(1, CC_ONIONS).put_in_pot(1, CC_POT, starts=True)
    _, result = cook_and_serve(s, 0).analyze()
    assert (result.total, result.constructive) == (2, 2)
    assert result.by_operator == {"start_cooking": 1, "fill_dish": 1}
    assert [(i.giver, i.receiver, i.object) for i in result.interdependencies] == [(0, 1, "onion1"), (1, 0, "soup1")]


def test_a_wrong_soup_is_not_a_goal():
    s = Script("counter_circuit")
    for counter in MIDDLE:
        s.fetch_onion(0, CC_ONIONS).place(0, counter)
    for i, counter in enumerate(MIDDLE):
        s.take(1, counter).put_in_pot(1, CC_POT, starts=i == 2)
    s.fetch_dish(1, CC_DISHES).fill(1, CC_POT).deliver(1, CC_SERVE, correct=False)
    _, result = s.analyze()
    assert (result.total, result.constructive, result.irrelevant, result.goals_reached) == (3, 0, 3, 0)
