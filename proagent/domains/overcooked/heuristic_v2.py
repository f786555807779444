"""The heuristic responder on OvercookedV2 prompts: several ingredients, recipes to learn, indicators.

`heuristic.heuristic_answer` hands a prompt here when it is a V2 one (`is_v2`): the skill list
offers ``put_in_pot()``, ``press_button()`` or ``go_to_indicator()``, or the recipe line says it is
unknown. Classic prompts never are, so their answers stay exactly as before.

A competent V2 cook, read off the prompt text as a model would (nothing else: what the agent's own
prompt says it sees, remembers and did):
- recipe known (``Recipe: a, b, c`` possibly followed by `` (...)``) and its ingredients and a pot
  within reach: fetch the next ingredient the pot still misses, put it in, dish, fill, deliver. A
  chef who reads the recipe on an indicator (partial view) only starts pots, a demo for the teammate
  who follows it, and not while the teammate is about to serve (it carries a soup or just filled a
  dish: its delivery may draw a new recipe); the rest of a started pot is the teammate's;
- recipe known but no way to cook it: show it (`heuristic_v2_protocols`): press the button once per
  recipe, or keep the layout's signal (an unused ingredient on the counters) up to date;
- recipe unknown: read the teammate's signal or demo (a pot being filled with one ingredient), go
  and look at the indicator or press the button, watch the button or the signal counters, else wait.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from proagent.domains.overcooked.heuristic_v2_protocols import (
    Convention,
    find_out,
    parse_convention,
    read_signal,
    show_recipe,
)
from proagent.domains.overcooked.skills import recipe_fit

_HELD = re.compile(r"You(?: \(player \d\))? are at \[[^\]]*\](?: facing \w+)?, holding ([^.]+)\.")
_ME = re.compile(r"You(?: \(player \d\))? are at \[(\d+), (\d+)\]")
_POT = re.compile(r"Pot at \[[^\]]*\]: ([^\n]*?)\.(?: |\n|$)")
_FILLING = re.compile(r"(\d) of 3 ingredients \(([^)]*)\)")
_RECIPE = re.compile(r"Recipe: ([^.(\n]*?)(?: \(|\.|;)")
_DISTANCES = re.compile(r"Steps from you to the nearest[^:]*: ([^\n]*)\.")
_REJECTED = re.compile(r"(?:Your plan|You chose) ([a-z_]+\([^)]*\))(?:,)? (?:but it )?cannot be done now")
_STEP = re.compile(r"Step (\d+) of \d+")
_RADIUS = re.compile(r"at most (\d+) away from you")
_STALE = re.compile(r"Recipe: unknown now; it was [^\n]*? until step (\d+)")
_MATE_HELD = re.compile(r"Your teammate(?: \(player \d\))? is at \[[^\]]*\](?: facing \w+)?, holding ([^;.\n]+)")
_MEMORY = re.compile(r"^- step (\d+): you chose ([a-z_]+\([^)]*\)) \(([^)]*)\)", re.MULTILINE)
_SAW_MATE = re.compile(r"the last skill you saw it complete was ([a-z_]+\([^)]*\)) \(step (\d+)\)")
_COUNTERS = re.compile(r"Objects on counters: ([^\n]*)\.\n")
_COUNTER_ITEM = re.compile(r"([a-z][a-z0-9 ,]*?) at \[(\d+), (\d+)\](?: \(out of view; seen at step (\d+)\))?")
_KITCHEN = re.compile(r"Kitchen \([^\n]*\n((?:[^\n]*\n)*?)You")
_V2_SKILLS = ("put_in_pot()", "press_button()", "go_to_indicator()")
SERVE_STEPS = 8  # a teammate that filled a dish this recently may not have served it yet

Pos = tuple[int, int]


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


def _cells(user: str, letter: str) -> list[Pos]:
    """The map cells drawn as ``letter`` (two characters a cell) in the prompt's kitchen picture."""
    match = _KITCHEN.search(user)
    if match is None:
        return []
    rows = match.group(1).splitlines()
    return [(x // 2, y) for y, row in enumerate(rows) for x in range(0, len(row), 2) if row[x] == letter]


@dataclass
class Prompt:
    """What one V2 prompt says, parsed: the agent's own view, memory and skill list."""

    user: str
    everything: str
    held: str
    pots: list[tuple[str, tuple[str, ...]]]
    recipe: tuple[str, ...] | None
    dist: dict[str, int | None]
    rejected: set[str]
    offered: set[str]
    step: int
    me: Pos | None
    radius: int | None
    stale_since: int | None
    mate_held: str | None
    memory: list[tuple[int, str, str]]
    counters: list[tuple[str, Pos, bool, int | None]]  # item, position, in view now, seen at step
    saw_mate: tuple[str, int] | None
    convention: Convention | None = field(default=None)

    def can(self, skill: str) -> bool:
        return skill not in self.rejected and (skill in self.offered or skill not in _V2_SKILLS)

    def reach(self, name: str) -> bool:
        return self.dist.get(name, 0) is not None  # a place the prompt gives no distance for: try it

    def in_view(self, pos: Pos) -> bool:
        if self.me is None or self.radius is None:
            return True
        return abs(pos[0] - self.me[0]) <= self.radius and abs(pos[1] - self.me[1]) <= self.radius

    @property
    def put(self) -> str:
        return "put_in_pot()" if "put_in_pot()" in self.offered else "put_onion_in_pot()"


def parse_prompt(user: str, everything: str) -> Prompt:
    held_match, me, step = _HELD.search(user), _ME.search(user), _STEP.search(user)
    radius, stale, mate = _RADIUS.search(user), _STALE.search(user), _MATE_HELD.search(user)
    saw = _SAW_MATE.search(user)
    counters = []
    if (listed := _COUNTERS.search(user)) is not None:
        for item, x, y, seen in _COUNTER_ITEM.findall(listed.group(1)):
            counters.append((item.strip(", "), (int(x), int(y)), not seen, int(seen) if seen else None))
    return Prompt(
        user=user,
        everything=everything,
        held=held_match.group(1).strip() if held_match else "nothing",
        pots=_pots(user),
        recipe=parse_recipe(user),
        dist=_distances(user),
        rejected=set(_REJECTED.findall(user)),
        offered={s for s in _V2_SKILLS if s in everything},
        step=int(step.group(1)) if step else 0,
        me=(int(me.group(1)), int(me.group(2))) if me else None,
        radius=int(radius.group(1)) if radius else None,
        stale_since=int(stale.group(1)) if stale else None,
        mate_held=mate.group(1).strip() if mate else None,
        memory=[(int(s), skill, outcome) for s, skill, outcome in _MEMORY.findall(user)],
        counters=counters,
        saw_mate=(saw.group(1), int(saw.group(2))) if saw else None,
        convention=parse_convention(everything),
    )


def v2_answer(user: str, everything: str) -> str:
    """The plan for a V2 prompt (``user``: the last user message; ``everything``: all messages, for
    the skill list and the layout's knowledge)."""
    p = parse_prompt(user, everything)
    target, why = _target(p)
    reason = f"I hold {p.held}; the recipe is {', '.join(target) if target else 'unknown to me'}{why}."
    return f"Analysis: {reason}\nIntention: wait(1)\nPlan: {_decide(p, target, _cells(user, 'L'))}"


def _target(p: Prompt) -> tuple[tuple[str, ...] | None, str]:
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


def _can_cook(p: Prompt, recipe: tuple[str, ...]) -> bool:
    return p.reach("pot") and all(p.reach(name) for name in set(recipe))


def _decide(p: Prompt, target: tuple[str, ...] | None, buttons: list[Pos]) -> str:
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
        return find_out(p, buttons)
    if _first_demo_blocked(p):
        return "wait(1)"
    if _teammate_cooks_it(p):
        return "wait(3)"
    return _next_ingredient(target, p.pots, p.reach) or "wait(3)"


def _with_ingredient(p: Prompt, target: tuple[str, ...] | None) -> str:
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


def _first_demo_blocked(p: Prompt) -> bool:
    """A chef who knows the recipe starts an empty pot (a demo for the teammate) only when the
    teammate is not about to serve (it carries a soup, or filled a dish in the last few steps):
    its delivery may draw a new recipe."""
    if p.recipe is None or any(status == "filling" for status, _ in p.pots):
        return False
    filled = (
        p.saw_mate is not None and p.saw_mate[0] == "fill_dish_with_soup()" and p.step - p.saw_mate[1] < SERVE_STEPS
    )
    return filled or (p.mate_held is not None and p.mate_held.startswith("soup"))


def _teammate_cooks_it(p: Prompt) -> bool:
    """With a partial view, a chef who reads the recipe on an indicator leaves a pot on its way to it
    to the teammate who follows the demo: an ingredient it carries there could wait by the cooking pot and
    drop in the next one just when a delivery changes the recipe (a wrong demo)."""
    if p.recipe is None or p.radius is None or "(seen on the indicator at step" not in p.user:
        return False
    return any(status == "filling" and not Counter(i) - Counter(p.recipe) for status, i in p.pots)


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
