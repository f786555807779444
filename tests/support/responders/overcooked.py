"""The Overcooked responder: a competent cook's plan from the seat's grounding.

Whole episodes, evals and benchmarks run through the real prompt, HTTP and parsing path with it
instead of a model. It is a test double, not a product policy. Classic kitchens are decided here;
V2 kitchens (several ingredients, recipes to learn, indicators) in `overcooked_v2`.

It answers in labelled lines whatever format the prompt asked for (the planner reads both), as it
always has: the golden runs' recorded answers stay byte-identical.
"""

from __future__ import annotations

from typing import Any

from proagent.llm.types import Grounding
from tests.support.answers import Answer, format_answer, require
from tests.support.responders.overcooked_seat import is_v2
from tests.support.responders.overcooked_v2 import v2_answer

EXPLANATION = "The skill's preconditions do not hold in this state."


def overcooked_answer(grounding: Grounding | None) -> str:
    """The reply to one chat request: a plan (planner) or one sentence (failure explainer)."""
    g = require(grounding)
    if g.purpose == "explain":
        return EXPLANATION
    if g.purpose == "verify":
        return verify_answer(g)
    if is_v2(g):
        return v2_answer(g)
    held = g.facts["me"]["held"] or "nothing"
    plan = classic_plan(held, g.facts["pots"])
    return f"Analysis: I hold {held}.\nIntention: pickup(onion)\nPlan: {plan}"


def hasty_answer(grounding: Grounding | None) -> str:
    """`overcooked_answer`, except that a decision's first plan with empty hands is deliver_soup(),
    which no empty-handed cook can do: every such decision has a rejection for the Verificator."""
    g = require(grounding)
    if g.purpose == "plan" and not g.feedback and g.facts["me"]["held"] is None:
        return format_answer(g, Answer(analysis="Serve now.", intention="pickup(onion)", plan="deliver_soup()"))
    return overcooked_answer(g)


def verify_answer(g: Grounding) -> str:
    """One round of the llm3 Verificator, from the seat's facts and the checks' reasons: what it
    holds and the pots (preconditions check), the first failing check (double-check), and a
    conclusion naming the skill a cook would do instead."""
    held = g.facts["me"]["held"] or "nothing"
    if g.verify_round == "preconditions":
        pots = ", ".join(p["status"] for p in g.facts["pots"])
        return f"Step by step: I hold {held}; the pots are {pots}. A precondition of {g.skill} does not hold."
    if g.verify_round == "double_check":
        return f"Agreed: {g.reasons[0] if g.reasons else 'a precondition fails'}."
    better = classic_plan(held, g.facts["pots"]) if not is_v2(g) else "wait(1)"
    because = "; ".join(g.reasons)
    return f"Conclusion: {g.skill} fails because {because}; holding {held}, {better} makes progress instead."


def classic_plan(held: str, pots: list[dict[str, Any]]) -> str:
    """A three-onion cook: deliver, fill, put onions in, fetch a dish while a soup cooks."""
    soup_coming = any(p["status"] in ("cooking", "ready") for p in pots)
    pot_accepts = any(p["status"] == "empty" or (p["status"] == "filling" and p["num_ingredients"] < 3) for p in pots)
    if held.startswith("soup"):
        return "deliver_soup()"
    if held == "dish":
        return "fill_dish_with_soup()" if soup_coming else "place_obj_on_counter()"
    if held == "onion":
        return "put_onion_in_pot()" if pot_accepts else "place_obj_on_counter()"
    if soup_coming:
        return "pickup(dish)"
    return "pickup(onion)" if pot_accepts else "wait(3)"
