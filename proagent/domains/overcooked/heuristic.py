"""The Overcooked heuristic responder: a competent cook's plan read off the planner's prompt.

It is the loopback test double behind `FakeChatServer` (and the scripted model in tests): whole
episodes, evals and benchmarks run through the real prompt, HTTP and parsing path without a model.
It reads the free-text state the `proagent` prompt set writes; it is not a product policy.
OvercookedV2 prompts (several ingredients, recipes to learn, indicators) go to `heuristic_v2`.
"""

from __future__ import annotations

import re
from typing import Any

from proagent.domains.overcooked.heuristic_v2 import v2_answer
from proagent.domains.overcooked.heuristic_v2_prompt import is_v2

_HELD = re.compile(r"You \(player \d\) are at \[[^\]]*\] facing \w+, holding ([^.]+)\.")
_POT = re.compile(r"Pot at \[[^\]]*\]: ([^.]+)\.")


def heuristic_answer(body: dict[str, Any]) -> str:
    """A competent cook's plan from the state in the last user message (free-text format)."""
    user = body["messages"][-1]["content"]
    if "Answer" not in user:  # the failure explainer, not the planner
        return "The skill's preconditions do not hold in this state."
    everything = "\n".join(str(m.get("content", "")) for m in body["messages"])
    if is_v2(everything):
        return v2_answer(user, everything)
    held_match = _HELD.search(user)
    held = held_match.group(1) if held_match else "nothing"
    pots = _POT.findall(user)
    soup_coming = any(p.startswith(("cooking", "soup ready")) for p in pots)
    pot_accepts = any(p.startswith(("empty", "1 of", "2 of")) for p in pots)
    if held.startswith("soup"):
        plan = "deliver_soup()"
    elif held == "dish":
        plan = "fill_dish_with_soup()" if soup_coming else "place_obj_on_counter()"
    elif held == "onion":
        plan = "put_onion_in_pot()" if pot_accepts else "place_obj_on_counter()"
    elif soup_coming:
        plan = "pickup(dish)"
    else:
        plan = "pickup(onion)" if pot_accepts else "wait(3)"
    return f"Analysis: I hold {held}.\nIntention: pickup(onion)\nPlan: {plan}"
