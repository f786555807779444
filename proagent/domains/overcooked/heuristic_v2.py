"""The heuristic responder on OvercookedV2 prompts: several ingredients, recipes to learn, indicators.

`heuristic.heuristic_answer` hands a prompt here when it is a V2 one (`is_v2`): the skill list
offers ``put_in_pot()``, ``press_button()`` or ``go_to_indicator()``, or the recipe line says it is
unknown. Classic prompts never are, so their answers stay exactly as before.

A competent V2 cook, read off the prompt text as a model would:
- recipe unknown (``Recipe: unknown...``): press the button or go and look at the indicator when
  that can be done, else follow the teammate's demo (the ingredients already in a pot), else wait;
- recipe known (``Recipe: a, b, c`` possibly followed by `` (...)``): fetch the next ingredient the
  pot still misses, put it in, dish, fill, deliver; a chef who can reach no pot but can press the
  button shows the recipe with it.
"""

from __future__ import annotations

import re
from collections import Counter

from proagent.domains.overcooked.skills import recipe_fit

_HELD = re.compile(r"You(?: \(player \d\))? are at \[[^\]]*\](?: facing \w+)?, holding ([^.]+)\.")
_POT = re.compile(r"Pot at \[[^\]]*\]: ([^\n]*?)\.(?: |\n|$)")
_FILLING = re.compile(r"(\d) of 3 ingredients \(([^)]*)\)")
_RECIPE = re.compile(r"Recipe: ([^.(\n]*?)(?: \(|\.|;)")
_DISTANCES = re.compile(r"Steps from you to the nearest[^:]*: ([^\n]*)\.")
_REJECTED = re.compile(r"(?:Your plan|You chose) ([a-z_]+\([^)]*\))(?:,)? (?:but it )?cannot be done now")
_V2_SKILLS = ("put_in_pot()", "press_button()", "go_to_indicator()")


def is_v2(text: str) -> bool:
    """A prompt of a V2 kitchen: a V2 skill on offer, or a recipe the agent does not know."""
    return any(re.search(rf"\b{re.escape(s)}", text) for s in _V2_SKILLS) or "Recipe: unknown" in text


def parse_recipe(user: str) -> tuple[str, ...] | None:
    """The recipe the prompt says the agent knows (None: unknown or not stated)."""
    match = _RECIPE.search(user)
    if match is None:
        return None
    words = match.group(1).strip()
    if not words or words.startswith("unknown"):
        return None
    return tuple(w.strip() for w in words.split(","))


def _distances(user: str) -> dict[str, int | None]:
    match = _DISTANCES.search(user)
    out: dict[str, int | None] = {}
    if match is None:
        return out
    for part in match.group(1).split(", "):
        name, _, value = part.rpartition(" ")
        if name:
            out[name] = int(value) if value.isdigit() else None
    return out


def _pots(user: str) -> list[tuple[str, tuple[str, ...]]]:
    """(status, ingredients) per pot line: empty, filling, cooking, ready or unknown."""
    out = []
    for text in _POT.findall(user):
        if text.startswith("empty"):
            out.append(("empty", ()))
        elif (filling := _FILLING.match(text)) is not None:
            out.append(("filling", tuple(i.strip() for i in filling.group(2).split(","))))
        elif text.startswith("cooking"):
            out.append(("cooking", ()))
        elif text.startswith("soup ready"):
            out.append(("ready", ()))
        else:
            out.append(("unknown", ()))
    return out


def _demo(pots: list[tuple[str, tuple[str, ...]]]) -> tuple[str, ...] | None:
    """The recipe a teammate's demo suggests: a pot being filled with one ingredient only."""
    for status, ingredients in pots:
        if status == "filling" and len(set(ingredients)) == 1:
            return (ingredients[0],) * 3
    return None


def v2_answer(user: str, everything: str) -> str:
    """The plan for a V2 prompt (``user``: the last user message; ``everything``: all messages, for
    the skill list)."""
    held_match = _HELD.search(user)
    held = held_match.group(1).strip() if held_match else "nothing"
    rejected = set(_REJECTED.findall(user))
    offered = {s for s in ("put_in_pot()", "press_button()", "go_to_indicator()") if s in everything}

    def can(skill: str) -> bool:
        return skill not in rejected and (skill in offered or skill not in _V2_SKILLS)

    dist = _distances(user)

    def reach(name: str) -> bool:
        return dist.get(name, 0) is not None  # a place the prompt gives no distance for: try it

    put = "put_in_pot()" if "put_in_pot()" in offered else "put_onion_in_pot()"
    pots = _pots(user)
    recipe = parse_recipe(user)
    target = recipe or _demo(pots)
    soup_coming = any(status in ("cooking", "ready") for status, _ in pots)
    reason = f"I hold {held}; the recipe is {', '.join(recipe) if recipe else 'unknown to me'}."
    if held.startswith("soup"):
        plan = "deliver_soup()" if reach("serving spot") else "place_obj_on_counter()"
    elif held == "dish":
        plan = "fill_dish_with_soup()" if soup_coming and reach("pot") else "place_obj_on_counter()"
    elif held != "nothing":  # an ingredient
        fits = target is not None and any(
            status in ("empty", "filling") and recipe_fit(ingredients, held, target) is None for status, ingredients in pots
        )
        plan = put if fits and reach("pot") and can(put) else "place_obj_on_counter()"
    elif soup_coming and reach("dish") and reach("pot"):
        plan = "pickup(dish)"
    elif target is None or not reach("pot"):
        plan = _find_out(recipe, pots, can, reach)
    else:
        plan = _next_ingredient(target, pots, reach) or "wait(3)"
    return f"Analysis: {reason}\nIntention: wait(1)\nPlan: {plan}"


def _find_out(recipe: tuple[str, ...] | None, pots: list[tuple[str, tuple[str, ...]]], can, reach) -> str:
    """No recipe to cook (or no pot to cook in): learn it, or show it to the teammate (not while a
    pot is already on its way to the recipe: the teammate knows it)."""
    on_track = recipe is not None and any(
        status in ("cooking", "ready") or (status == "filling" and not Counter(ingredients) - Counter(recipe))
        for status, ingredients in pots
    )
    if can("press_button()") and reach("button") and not on_track:
        return "press_button()"
    if recipe is None and can("go_to_indicator()") and reach("recipe indicator"):
        return "go_to_indicator()"
    return "wait(3)"


def _next_ingredient(recipe: tuple[str, ...], pots: list[tuple[str, tuple[str, ...]]], reach) -> str | None:
    """pickup(x) for the next ingredient the fullest pot on the way to ``recipe`` still misses."""
    candidates = [ingredients for status, ingredients in pots if status in ("empty", "filling")]
    candidates = [i for i in candidates if not Counter(i) - Counter(recipe)]
    for ingredients in sorted(candidates, key=len, reverse=True):
        missing = Counter(recipe) - Counter(ingredients)
        for name in recipe:
            if missing[name] and reach(name):
                return f"pickup({name})"
    return None
