"""State grounding: the facts of a KitchenState, as plain data for the prompt templates.

Code supplies the facts (positions, pot status, counter contents, distances, the teammate's last
completed skill); templates in prompts/ decide the wording. The reference implementation gave
the LLM none of positions, distances, counter contents or the teammate's last action.
"""

from __future__ import annotations

from envs import KitchenState, Pos
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.render import render_ascii
from proagent.domains.base import TeammateView
from proagent.domains.overcooked.navigation import distances, spots
from proagent.domains.overcooked.skills import Skill, SkillBook


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


def ground(kitchen: KitchenState, agent: int, book: SkillBook, teammate: TeammateView, score: float) -> dict:
    """Facts for one agent's prompt; every value is JSON-serialisable."""
    me, other = kitchen.players[agent], kitchen.players[1 - agent]
    dist = distances(kitchen.map, me.position)
    kmap = kitchen.map
    key_targets = {
        **{f"{item}": book.targets(kitchen, Skill("pickup", item)) for item in book.items if item != "soup"},
        "pot": kmap.pots,
        "serving spot": kmap.serving,
        "empty counter": kitchen.empty_counters,
    }
    return {
        "step": kitchen.step,
        "horizon": kitchen.horizon,
        "steps_left": kitchen.steps_left,
        "score": score,
        "recipe": list(kitchen.recipe_names),
        "kitchen_ascii": render_ascii(kitchen).split("\nt=")[0],
        "me": _player_facts(me),
        "teammate": {**_player_facts(other), "last_skill": teammate.last_skill, "last_action": teammate.last_action},
        "pots": [
            {
                "position": list(p.position),
                "ingredients": [ingredient_name(i) for i in p.ingredients],
                "num_ingredients": len(p.ingredients),
                "status": _pot_status(p),
                "ticks_left": p.ticks_left,
            }
            for p in kitchen.pots
        ],
        "counters": [{"position": list(pos), "item": item.describe()} for pos, item in sorted(kitchen.counter_items.items())],
        "distances": {name: _distance_to(kitchen, dist, targets) for name, targets in key_targets.items()},
    }


def _player_facts(player) -> dict:
    return {
        "index": player.index,
        "position": list(player.position),
        "facing": player.orientation.name.lower(),
        "held": player.held.describe() if player.held else None,
    }
