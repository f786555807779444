"""The pieces: the declarative domain, unification, PDDL export, intention accuracy."""

from __future__ import annotations

import pytest
from interdependence_helpers import ONION, Script
from pydantic import ValidationError

from envs import Event, EventKind
from proagent.domains.overcooked.interdependence import interdependence_model, overcooked_domain
from proagent.interdependence.intention import from_beliefs, normalize, recompute
from proagent.interdependence.strips import Domain, Proposition, to_pddl_text, unifies


def test_the_overcooked_domain_is_data_and_checked():
    domain = overcooked_domain()
    assert domain.goal_predicates == ["delivered"] and "pickup_from_counter" in domain.operators
    assert domain.role("counter-empty") == "infrastructure" and domain.role("holding") == "holder"
    bad = domain.model_dump()
    bad["operators"]["deliver"]["add"] = ["served ?s"]
    with pytest.raises(ValidationError, match="unknown predicate"):
        Domain.model_validate(bad)


def test_an_effect_binding_the_actor_is_no_offer():
    on = Proposition("on", ("onion1", "counter_2_2"))
    assert unifies("on ?o ?c", on, bound=("?a",)) == {"?o": "onion1", "?c": "counter_2_2"}
    assert unifies("holding ?a ?o", Proposition("holding", ("p0", "onion1")), bound=("?a",)) is None
    assert unifies("in ?s ?p", on) is None


def test_pddl_export_lists_objects_init_and_operators():
    s = Script("counter_circuit").fetch_onion(0, (3, 4)).place(0, (3, 2)).take(1, (3, 2))
    trace, _ = s.analyze()
    text = to_pddl_text(trace, title="demo")
    assert text.startswith(";; grounded trace: demo")
    assert "onion1 - ingredient" in text and "(counter-empty counter_3_2)" in text
    assert "(place_on_counter p0 onion1 counter_3_2)" in text
    assert "    :pre (and (hand-empty p1) (on onion1 counter_3_2))" in text
    assert "(move" not in text and "(move p1 interact)" in to_pddl_text(trace, include_noops=True)


def test_intention_accuracy_scores_against_the_next_completed_skill():
    def step(t, intention=None, belief=None):
        return {"step": t, "decision": {"intention": intention} if intention else None, "belief": belief}

    records = [step(0, "pickup(onion)"), step(1), step(2, "deliver_soup"), step(3, "Put_Onion_In_Pot")]
    events = [
        [Event(0, 1, EventKind.PICKUP_INGREDIENT, (3, 4), ONION)],  # hit
        [Event(1, 1, EventKind.PLACE_ON_COUNTER, (3, 2), ONION)],  # nothing pending
        [Event(2, 0, EventKind.PICKUP_FROM_COUNTER, (3, 2), ONION)],  # the agent's own event
        [Event(3, 1, EventKind.PICKUP_INGREDIENT, (3, 4), ONION)],  # miss: the newer prediction counts
    ]
    result = recompute(records, events, seat=0, skill_of_event=interdependence_model("cramped_room").skill_of_event)
    assert (result.hits, result.total, result.accuracy) == (1, 2, 0.5)
    assert normalize("deliver_soup") == normalize(" Deliver_Soup() ")
    beliefs = [step(0, belief={"correct": True}), step(1, belief={"correct": False}), step(2)]
    assert (from_beliefs(beliefs).hits, from_beliefs(beliefs).total) == (1, 2)


def test_a_v2_kitchen_maps_events_to_its_own_skill_names():
    """On a V2 kitchen an onion put completes ``put_in_pot()`` (the skill a prediction there names),
    on a classic one ``put_onion_in_pot()``: `proagent analyze` reads the layout's own book."""
    put = Event(3, 1, EventKind.PUT_IN_POT, (4, 2), ONION)
    assert str(interdependence_model("grounded_coord_simple").skill_of_event(put)) == "put_in_pot()"
    assert str(interdependence_model("cramped_room").skill_of_event(put)) == "put_onion_in_pot()"
