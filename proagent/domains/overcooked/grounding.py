"""State grounding: the facts of a KitchenState, as plain data for the prompt templates.

Code supplies the facts (positions, pot status, counter contents, distances, the teammate's last
completed skill); templates in prompts/ decide the wording. The reference implementation gave
the LLM none of positions, distances, counter contents or the teammate's last action.
"""

from __future__ import annotations

from envs import KitchenState, Pos
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.render import render_ascii
from proagent.domains.overcooked.navigation import distances, spots
from proagent.domains.overcooked.perception import KitchenView
from proagent.domains.overcooked.skills import Skill, SkillBook
from proagent.world.types import TeammateView


def _pot_status(pot) -> str:
    if pot.ready:
        return "ready"
    if pot.cooking:
        return "cooking"
    return "empty" if pot.is_empty else "filling"


def _distance_to(kitchen: KitchenState, dist: dict, targets: tuple[Pos, ...]) -> int | None:
    best = None
    for target in targets:
        for stand, _ in spots(kitchen.map, target):
            if stand in dist and (best is None or dist[stand][0] < best):
                best = dist[stand][0]
    return best


def ground(
    kitchen: KitchenState | KitchenView, agent: int, book: SkillBook, teammate: TeammateView, score: float
) -> dict:
    """Facts for one agent's prompt; every value is JSON-serialisable. A ``KitchenView`` (partial
    observation, perception.py) gives only what that agent may know: see `ground_view`."""
    if isinstance(kitchen, KitchenView):
        return ground_view(kitchen, book, teammate, score)
    me, other = kitchen.players[agent], kitchen.players[1 - agent]
    return {
        "step": kitchen.step,
        "horizon": kitchen.horizon,
        "steps_left": kitchen.steps_left,
        "score": score,
        "recipe": list(kitchen.recipe_names),
        "kitchen_ascii": render_ascii(kitchen).split("\nt=")[0],
        "me": _player_facts(me),
        "teammate": {**_player_facts(other), "last_skill": teammate.last_skill, "last_action": teammate.last_action},
        "pots": [_pot_facts(p) for p in kitchen.pots],
        "counters": [
            {"position": list(pos), "item": item.describe()} for pos, item in sorted(kitchen.counter_items.items())
        ],
        "distances": _key_distances(kitchen, me, book),
    }


def _pot_facts(pot) -> dict:
    return {
        "position": list(pot.position),
        "ingredients": [ingredient_name(i) for i in pot.ingredients],
        "num_ingredients": len(pot.ingredients),
        "status": _pot_status(pot),
        "ticks_left": pot.ticks_left,
    }


def _key_distances(kitchen: KitchenState, me, book: SkillBook) -> dict:
    dist = distances(kitchen.map, me.position)
    key_targets = {
        **{f"{item}": book.targets(kitchen, Skill("pickup", item)) for item in book.items if item != "soup"},
        "pot": kitchen.map.pots,
        "serving spot": kitchen.map.serving,
        "empty counter": kitchen.empty_counters,
    }
    # V2 kitchens: the indicators are part of the fixed layout (known like the pots), and a chef with
    # no recipe needs to know whether it can reach one (in demo_cook_simple one seat cannot)
    if kitchen.map.recipe_indicators:
        key_targets["recipe indicator"] = kitchen.map.recipe_indicators
    if kitchen.map.button_indicators:
        key_targets["button"] = kitchen.map.button_indicators
    return {name: _distance_to(kitchen, dist, targets) for name, targets in key_targets.items()}


def ground_view(view: KitchenView, book: SkillBook, teammate: TeammateView, score: float) -> dict:
    """Facts of a partial view: the same keys as `ground` (values are what the agent sees or
    remembers) plus ``view`` (radius), ``recipe_source`` and, on the teammate, pots and counters,
    ``in_view`` / ``seen_step``. Never the true recipe, teammate or cells out of view: the LLM's
    coordination problem is the one the agent actually faces.

    The teammate's last completed skill is the last one this agent witnessed (the ``TeammateView``
    one comes from every event, seen or not); its last primitive action only while it is in view.
    Distances to items count remembered counter items (a belief, marked by its step)."""
    kitchen, me, step = view.kitchen, view.me, view.step
    recipe = view.recipe
    mate = view.teammate
    mate_in_view = view.teammate_in_view
    mate_facts = (
        {**_player_facts(mate.what), "seen_step": mate.step}
        if mate is not None
        else {"index": 1 - view.seat, "position": None, "facing": None, "held": None, "seen_step": None}
    )
    pots = []
    for pos in kitchen.map.pots:
        seen = view.pots.get(pos)
        if seen is None:
            facts = {
                "position": list(pos),
                "ingredients": [],
                "num_ingredients": 0,
                "status": "unknown",
                "ticks_left": 0,
            }
        else:
            facts = _pot_facts(seen.what)
        pots.append({**facts, "in_view": view.in_view(pos), "seen_step": None if seen is None else seen.step})
    return {
        "step": step,
        "horizon": kitchen.horizon,
        "steps_left": kitchen.steps_left,
        "score": score,
        "recipe": [ingredient_name(i) for i in recipe.ingredients] if recipe is not None else [],
        "recipe_source": None
        if recipe is None
        else {
            "how": recipe.how,
            "step": recipe.step,
            "position": list(recipe.position) if recipe.position is not None else None,
            "stale_since": recipe.stale_since,
        },
        "view": {"radius": view.radius},
        "kitchen_ascii": render_ascii(kitchen, view.in_view).split("\nt=")[0],
        "me": _player_facts(me),
        "teammate": {
            **mate_facts,
            "in_view": mate_in_view,
            "last_skill": view.teammate_skill.what if view.teammate_skill is not None else None,
            "last_skill_step": view.teammate_skill.step if view.teammate_skill is not None else None,
            "last_action": teammate.last_action if mate_in_view else None,
        },
        "pots": pots,
        "buttons": _button_facts(view),
        "counters": [
            {"position": list(pos), "item": seen.what.describe(), "in_view": view.in_view(pos), "seen_step": seen.step}
            for pos, seen in sorted(view.counters.items())
        ],
        "distances": _key_distances(kitchen, me, book),
    }


def _button_facts(view: KitchenView) -> list[dict]:
    """Each button indicator: lit now (steps left) when in view, and the last step it was seen lit
    since the last correct delivery (``last_served``, when one was made): a press costs points and
    shows the current recipe, so this says whether the current recipe was already shown."""
    # the view's kitchen already shows a button out of view as off (perception.py)
    lit = {i.position: i.active_ticks for i in view.kitchen.indicators if i.kind == "button"}
    return [
        {
            "position": list(pos),
            "in_view": view.in_view(pos),
            "lit_ticks": lit.get(pos, 0),
            "last_lit_step": view.buttons_lit.get(pos),
            "last_served": view.last_served,
        }
        for pos in view.kitchen.map.button_indicators
    ]


def _player_facts(player) -> dict:
    return {
        "index": player.index,
        "position": list(player.position),
        "facing": player.orientation.name.lower(),
        "held": player.held.describe() if player.held else None,
    }
