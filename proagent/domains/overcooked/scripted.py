"""The Overcooked scripted planner (`--llm scripted`): a competent cook's plan from the seat's grounding.

Whole episodes, evaluations and benchmarks run through the real prompt, parsing and checking path
with it instead of a language model. Classic kitchens are decided here; V2 kitchens (several
ingredients, recipes to learn, indicators) in `scripted_v2`. It also answers the llm3
Verificator's three rounds and the failure explainer.

Its plans are labelled lines whatever format the prompt asked for (the agent's parser reads both),
so the answers recorded in the golden runs stay the same.
"""

from __future__ import annotations

from typing import Any

from proagent.domains.overcooked.scripted_seat import is_v2
from proagent.domains.overcooked.scripted_v2 import v2_answer
from proagent.llm.scripted import require
from proagent.llm.types import Grounding
from proagent.world.capabilities import ScriptedPlanning

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
    rejected = frozenset(a["skill"] for a in g.feedback)
    plan = classic_plan(held, g.facts["pots"], g.facts.get("distances", {}), rejected, _on_counters(g.facts))
    return f"Analysis: I hold {held}.\nIntention: pickup(onion)\nPlan: {plan}"


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
    rejected = frozenset({g.skill})
    distances = g.facts.get("distances", {})
    better = "wait(1)" if is_v2(g) else classic_plan(held, g.facts["pots"], distances, rejected, _on_counters(g.facts))
    because = "; ".join(g.reasons)
    return f"Conclusion: {g.skill} fails because {because}; holding {held}, {better} makes progress instead."


def classic_plan(
    held: str,
    pots: list[dict[str, Any]],
    distances: dict[str, int | None] | None = None,
    rejected: frozenset[str] = frozenset(),
    on_counters: tuple[str, ...] = (),
) -> str:
    """A three-onion cook: deliver, fill, put onions in, fetch a dish while a soup cooks. A cook the
    prompt says cannot reach the pot (``distances``: "pot unreachable", forced_coordination's split
    kitchen) supplies its teammate instead: onions, and a dish while a soup cooks, set on a counter
    between them, one of each waiting there at most (``on_counters``: the items on counters).
    A skill the Verificator refused this decision (``rejected``) is not proposed again: the next
    choice is."""
    choices = _cook_choices(held, pots, distances or {}, on_counters)
    return next((plan for plan in choices if plan not in rejected), "wait(1)")


def _cook_choices(
    held: str, pots: list[dict[str, Any]], distances: dict[str, int | None], on_counters: tuple[str, ...]
) -> list[str]:
    """The cook's choices for what it holds, best first."""

    def reach(place: str) -> bool:
        return distances.get(place, 0) is not None  # a place with no distance given: try it

    soup_coming = any(p["status"] in ("cooking", "ready") for p in pots)
    pot_accepts = any(p["status"] == "empty" or (p["status"] == "filling" and p["num_ingredients"] < 3) for p in pots)
    if held.startswith("soup"):
        return ["deliver_soup()"] * reach("serving spot") + ["place_obj_on_counter()"]
    if held == "dish":
        return ["fill_dish_with_soup()"] * (soup_coming and reach("pot")) + ["place_obj_on_counter()"]
    if held == "onion":
        return ["put_onion_in_pot()"] * (pot_accepts and reach("pot")) + ["place_obj_on_counter()"]
    if not reach("pot"):  # a supplier: keep one dish and one onion waiting for the teammate
        wanted = [("dish", soup_coming), ("onion", pot_accepts)]
        return [f"pickup({item})" for item, needed in wanted if needed and item not in on_counters] + ["wait(3)"]
    wait = "wait(3)" if reach("onion") else "wait(1)"  # waiting on the teammate's supply: look again soon
    if soup_coming:
        return ["pickup(dish)"] * reach("dish") + ["pickup(onion)"] * (pot_accepts and reach("onion")) + [wait]
    return ["pickup(onion)"] * (pot_accepts and reach("onion")) + [wait]


def _on_counters(facts: dict[str, Any]) -> tuple[str, ...]:
    """The items on the kitchen's counters, as the prompt lists them."""
    return tuple(str(counter["item"]) for counter in facts.get("counters", []))


SCRIPTED = ScriptedPlanning(answer=overcooked_answer, source=__name__)
