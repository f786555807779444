"""The Overcooked scripted planner on V2 kitchens: several ingredients, recipes to learn, indicators.

`scripted.overcooked_answer` hands a grounding here when it is a V2 one (`is_v2`): the skill
list offers ``put_in_pot()``, ``press_button()`` or ``go_to_indicator()``, or the seat does not
know the recipe. Classic prompts never are.

A competent V2 cook, from what the seat's prompt holds (`scripted_seat.read_seat`: what it sees,
remembers and did, never the engine state):
- recipe known and its ingredients and a pot within reach: fetch the next ingredient the pot still
  misses, put it in, dish, fill, deliver. A chef who reads the recipe on an indicator (partial
  view) only starts pots, a demo for the teammate who follows it, and not while the teammate is
  about to serve (it carries a soup or just filled a dish: its delivery may draw a new recipe);
  the rest of a started pot is the teammate's;
- recipe known but no way to cook it: show it (`scripted_v2_protocols`): press the button once
  per recipe, or keep the layout's signal (an unused ingredient on the counters) up to date;
- recipe unknown: read the teammate's signal or demo (a pot being filled with one ingredient), go
  and look at the indicator or press the button, watch the button or the signal counters, else wait.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from proagent.domains.overcooked.scripted_seat import PotReading, Seat, read_seat
from proagent.domains.overcooked.scripted_v2_protocols import find_out, read_signal, show_recipe
from proagent.domains.overcooked.skills import recipe_fit
from proagent.llm.types import Grounding

SERVE_STEPS = 8  # a teammate that filled a dish this recently may not have served it yet


def v2_answer(grounding: Grounding) -> str:
    """The plan for a V2 kitchen's planner prompt, in labelled lines."""
    p = read_seat(grounding)
    target, why = _target(p)
    reason = f"I hold {p.held}; the recipe is {', '.join(target) if target else 'unknown to me'}{why}."
    return f"Analysis: {reason}\nIntention: wait(1)\nPlan: {_decide(p, target)}"


def _demo(pots: tuple[PotReading, ...]) -> tuple[str, ...] | None:
    """The recipe a teammate's demo suggests: a pot being filled with one ingredient only."""
    for status, ingredients in pots:
        if status == "filling" and len(set(ingredients)) == 1:
            return (ingredients[0],) * 3
    return None


def _target(p: Seat) -> tuple[tuple[str, ...] | None, str]:
    """The recipe to cook and where it comes from: known, the teammate's signal or its demo."""
    if p.recipe is not None:
        return p.recipe, ""
    signal = read_signal(p)
    if signal is not None:
        return signal, " (read from my teammate's signal)"
    demo = _demo(p.pots)
    if demo is not None:
        return demo, " (my teammate's demo in the pot)"
    return None, ""


def _can_cook(p: Seat, recipe: tuple[str, ...]) -> bool:
    return p.reach("pot") and all(p.reach(name) for name in set(recipe))


def _decide(p: Seat, target: tuple[str, ...] | None) -> str:
    soup_coming = any(status in ("cooking", "ready") for status, _ in p.pots)
    if p.held.startswith("soup"):
        return "deliver_soup()" if p.reach("serving spot") else "place_obj_on_counter()"
    if p.held == "dish":
        return "fill_dish_with_soup()" if soup_coming and p.reach("pot") else "place_obj_on_counter()"
    if p.held != "nothing":  # an ingredient
        return _with_ingredient(p, target)
    if soup_coming and p.reach("dish") and p.reach("pot"):
        return "pickup(dish)"
    if p.recipe is not None and not _can_cook(p, p.recipe):
        return show_recipe(p)
    if target is None or not p.reach("pot"):
        return find_out(p)
    if _first_demo_blocked(p):
        return "wait(1)"
    if _teammate_cooks_it(p):
        return "wait(3)"
    return _next_ingredient(target, p.pots, p.reach) or "wait(3)"


def _with_ingredient(p: Seat, target: tuple[str, ...] | None) -> str:
    """Put the held ingredient in a pot it fits, else free the hands (the signaller keeps its sign)."""
    if p.recipe is not None and not _can_cook(p, p.recipe):
        return show_recipe(p)
    fits = target is not None and any(
        status in ("empty", "filling") and recipe_fit(ingredients, p.held, target) is None
        for status, ingredients in p.pots
    )
    if not (fits and p.reach("pot") and p.can(p.put)):
        return "place_obj_on_counter()"
    if _first_demo_blocked(p):
        return "wait(1)"
    return p.put


def _first_demo_blocked(p: Seat) -> bool:
    """A chef who knows the recipe starts an empty pot (a demo for the teammate) only when the
    teammate is not about to serve (it carries a soup, or filled a dish in the last few steps):
    its delivery may draw a new recipe."""
    if p.recipe is None or any(status == "filling" for status, _ in p.pots):
        return False
    filled = (
        p.saw_mate is not None and p.saw_mate[0] == "fill_dish_with_soup()" and p.step - p.saw_mate[1] < SERVE_STEPS
    )
    return filled or (p.mate_held is not None and p.mate_held.startswith("soup"))


def _teammate_cooks_it(p: Seat) -> bool:
    """With a partial view, a chef who reads the recipe on an indicator leaves a pot on its way to it
    to the teammate who follows the demo: an ingredient it carries there could wait by the cooking
    pot and drop in the next one just when a delivery changes the recipe (a wrong demo)."""
    if p.recipe is None or p.radius is None or not p.recipe_on_indicator:
        return False
    return any(status == "filling" and not Counter(i) - Counter(p.recipe) for status, i in p.pots)


def _next_ingredient(recipe: tuple[str, ...], pots: tuple[PotReading, ...], reach: Callable[[str], bool]) -> str | None:
    """pickup(x) for the next ingredient the fullest pot on the way to ``recipe`` still misses."""
    candidates = [ingredients for status, ingredients in pots if status in ("empty", "filling")]
    candidates = [i for i in candidates if not Counter(i) - Counter(recipe)]
    for ingredients in sorted(candidates, key=len, reverse=True):
        missing = Counter(recipe) - Counter(ingredients)
        for name in recipe:
            if missing[name] and reach(name):
                return f"pickup({name})"
    return None
