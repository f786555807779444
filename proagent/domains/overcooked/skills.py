"""Overcooked skills: one definition (``knowledge/overcooked/skills.toml``) read three ways.

The planner's knowledge text, the Verificator's precondition checks, the controller's targets and
the done-test all come from the same record, so they cannot drift apart. This module implements
the named checks, targets and done-tests the data file refers to.

Which skills a kitchen gets follows from the kitchen: on onion-only kitchens (the classic ones) the
pot skill is ``put_onion_in_pot()``, on kitchens with several ingredients the same record is
``put_in_pot()``; ``press_button()`` exists only where a button recipe indicator does and
``go_to_indicator()`` only where a recipe or button indicator does. No check reads the true recipe
(``KitchenState.recipe``): a rejection message would leak it. ``recipe_fit`` judges a put against
the recipe the agent *knows*, for the grounding to word.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from envs import Event, EventKind, KitchenState, Pos
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.symbolic import KitchenMap
from proagent.domains.overcooked.navigation import reachable_targets
from proagent.paths import KNOWLEDGE_DIR
from proagent.world.kit.skills import ArgChoices, ArgRange, Failures, SkillDef, TableSkillBook
from proagent.world.types import Skill, UndoState

MAX_WAIT = 20


@dataclass(frozen=True, slots=True)
class Requirement:
    check: str
    fail: str


@dataclass(frozen=True, slots=True)
class SkillSpec:
    name: str
    signature: str
    description: str
    args: str | None
    targets: str
    done: str
    requires: tuple[Requirement, ...]
    only_on: str | None = None  # a kitchen feature the skill needs ("button", "indicator")


def _held_name(kitchen: KitchenState, agent: int) -> str:
    held = kitchen.players[agent].held
    return held.describe() if held else "nothing"


# ---- sources and targets -------------------------------------------------------------------


def dispensers_of(kitchen_map: KitchenMap, name: str) -> tuple[Pos, ...]:
    """The dispensers of an item by name: the dish piles, or an ingredient's piles (none on a
    kitchen without that ingredient)."""
    if name == "dish":
        return kitchen_map.dish_dispensers
    for index, cells in kitchen_map.ingredient_dispensers.items():
        if ingredient_name(index) == name:
            return cells
    return ()


def _item_sources(kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
    name = str(skill.arg)
    counters = tuple(pos for pos, item in kitchen.counter_items.items() if item.name == name)
    return dispensers_of(kitchen.map, name) + counters


def _pots_accepting(kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
    return tuple(p.position for p in kitchen.pots if p.idle and not p.is_full)


def _pots_with_soup(kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
    ready = tuple(p.position for p in kitchen.pots if p.ready)
    cooking = tuple(p.position for p in sorted(kitchen.pots, key=lambda p: p.ticks_left) if p.cooking)
    return ready + cooking


def _buttons(kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
    """The button indicators, while none is lit (all show the same recipe: pressing while one is
    lit only pays the cost again)."""
    lit = any(i.kind == "button" and i.active_ticks > 0 for i in kitchen.indicators)
    return () if lit else kitchen.map.button_indicators


def _indicators(kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
    return kitchen.map.recipe_indicators + kitchen.map.button_indicators


def _empty_counters(kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
    """Counters both chefs can reach come first: on split kitchens only they pass objects."""
    empty = kitchen.empty_counters
    shared = set(empty)
    for player in kitchen.players:
        shared &= set(reachable_targets(kitchen.map, player.position, empty))
    return tuple(c for c in empty if c in shared) or empty


TARGETS: dict[str, Callable[[KitchenState, Skill], tuple[Pos, ...]]] = {
    "item_sources": _item_sources,
    "pots_accepting": _pots_accepting,
    "pots_with_soup": _pots_with_soup,
    "serving": lambda kitchen, skill: kitchen.map.serving,
    "empty_counters": _empty_counters,
    "buttons": _buttons,
    "all_buttons": lambda kitchen, skill: kitchen.map.button_indicators,
    "indicators": _indicators,
    "none": lambda kitchen, skill: (),
}


# ---- preconditions -------------------------------------------------------------------------


def _holding(kind: str, name: str | None = None) -> Callable[[KitchenState, int, Skill], bool]:
    def check(kitchen: KitchenState, agent: int, skill: Skill) -> bool:
        held = kitchen.players[agent].held
        return held is not None and held.kind == kind and (name is None or held.name == name)

    return check


def _reachable(target_name: str) -> Callable[[KitchenState, int, Skill], bool]:
    def check(kitchen: KitchenState, agent: int, skill: Skill) -> bool:
        targets = TARGETS[target_name](kitchen, skill)
        return bool(reachable_targets(kitchen.map, kitchen.players[agent].position, targets))

    return check


CHECKS: dict[str, Callable[[KitchenState, int, Skill], bool]] = {
    "hands_empty": lambda kitchen, agent, skill: kitchen.players[agent].held is None,
    "holding_something": lambda kitchen, agent, skill: kitchen.players[agent].held is not None,
    "holding_onion": _holding("ingredient", "onion"),
    "holding_ingredient": _holding("ingredient"),
    "holding_dish": _holding("dish"),
    "holding_soup": _holding("soup"),
    "source_reachable": _reachable("item_sources"),
    "pot_accepting": _reachable("pots_accepting"),
    "soup_available": _reachable("pots_with_soup"),
    "serving_reachable": _reachable("serving"),
    "counter_available": _reachable("empty_counters"),
    "button_reachable": _reachable("all_buttons"),
    "button_unlit": lambda kitchen, agent, skill: bool(_buttons(kitchen, skill)) or not kitchen.map.button_indicators,
    "indicator_reachable": _reachable("indicators"),
}


# ---- done-tests ----------------------------------------------------------------------------


def _holding_arg(kitchen: KitchenState, agent: int, skill: Skill, steps: int) -> bool:
    held = kitchen.players[agent].held
    return held is not None and held.name == skill.arg


def _adjacent(a: Pos, b: Pos) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _button_lit(kitchen: KitchenState, agent: int, skill: Skill, steps: int) -> bool:
    """Facing a button recipe indicator whose timer is on: just pressed (the activate_indicator
    event), or still lit from an earlier press (pressing again would only pay the cost again)."""
    facing = kitchen.players[agent].facing
    return any(i.kind == "button" and i.position == facing and i.active_ticks > 0 for i in kitchen.indicators)


def _next_to_indicator(kitchen: KitchenState, agent: int, skill: Skill, steps: int) -> bool:
    me = kitchen.players[agent].position
    return any(_adjacent(me, pos) for pos in _indicators(kitchen, skill))


DONE: dict[str, Callable[[KitchenState, int, Skill, int], bool]] = {
    "holding_arg": _holding_arg,
    "hands_empty": lambda kitchen, agent, skill, steps: kitchen.players[agent].held is None,
    "holding_soup": lambda kitchen, agent, skill, steps: _holding("soup")(kitchen, agent, skill),
    "waited": lambda kitchen, agent, skill, steps: steps >= int(skill.arg or 1),
    "button_lit": _button_lit,
    "next_to_indicator": _next_to_indicator,
}


# ---- the recipe a put works towards ----------------------------------------------------------


def recipe_fit(pot_ingredients: tuple[str, ...], held_ingredient: str, recipe: tuple[str, ...] | None) -> str | None:
    """Whether putting ``held_ingredient`` into a pot holding ``pot_ingredients`` keeps it on the way
    to ``recipe`` (all ingredient names). None: it does (or no recipe is known, so no judgement);
    else a one-line reason. Pure: the caller passes the recipe the agent *knows*, never the truth."""
    if recipe is None:
        return None
    need = Counter(recipe)
    have = Counter(pot_ingredients)
    extra = have - need
    if extra:
        return f"the pot already holds {_listed(extra)}, which the recipe ({', '.join(recipe)}) does not take"
    if have[held_ingredient] + 1 > need[held_ingredient]:
        if need[held_ingredient] == 0:
            return f"the recipe ({', '.join(recipe)}) has no {held_ingredient}"
        takes = f"{need[held_ingredient]} {held_ingredient}"
        return f"the recipe ({', '.join(recipe)}) takes {takes} and the pot already has them"
    return None


def _listed(counts: Counter) -> str:
    return ", ".join(name for name, n in sorted(counts.items()) for _ in range(n))


def kitchen_features(kitchen_map: KitchenMap) -> frozenset[str]:
    """What decides a kitchen's skills beyond its items: "button" (a button recipe indicator) and
    "indicator" (a recipe or button indicator)."""
    features: set[str] = set()
    if kitchen_map.button_indicators:
        features.add("button")
    if kitchen_map.button_indicators or kitchen_map.recipe_indicators:
        features.add("indicator")
    return frozenset(features)


def _spec(record: dict, onion_only: bool) -> SkillSpec:
    """One skills.toml record as this kitchen words it (an ``onion_only`` table renames the skill
    and rewords its texts on onion-only kitchens; checks, targets and done-test stay the same)."""
    words = record.get("onion_only") if onion_only else None
    requires = tuple(Requirement(**r) for r in record["requires"])
    if words is not None:
        fails = words.get("fails", [r.fail for r in requires])
        if len(fails) != len(requires):
            raise ValueError(
                f"skill {record['name']!r}: onion_only.fails must reword each of its {len(requires)} requirements"
            )
        requires = tuple(Requirement(r.check, fail) for r, fail in zip(requires, fails))
    words = words or {}
    return SkillSpec(
        name=words.get("name", record["name"]),
        signature=words.get("signature", record["signature"]),
        description=words.get("description", record["description"]),
        args=record.get("args"),
        targets=record["targets"],
        done=record["done"],
        requires=requires,
        only_on=record.get("only_on"),
    )


def _failures(requires: tuple[Requirement, ...]) -> Failures:
    """A row's precondition check from its skills.toml requirements (named checks, worded fails)."""

    def failures(kitchen: KitchenState, agent: int, skill: Skill) -> list[str]:
        fmt = {"held": _held_name(kitchen, agent), "obj": skill.arg}
        return [r.fail.format(**fmt) for r in requires if not CHECKS[r.check](kitchen, agent, skill)]

    return failures


def _row(spec: SkillSpec) -> SkillDef:
    """A skills.toml record (as this kitchen words it) as a row of the world kit's table."""
    unknown = (
        {r.check for r in spec.requires} - CHECKS.keys()
        | ({spec.targets} - TARGETS.keys())
        | ({spec.done} - DONE.keys())
    )
    if unknown:
        raise ValueError(f"skill {spec.name!r} names unknown checks/targets/done-tests: {sorted(unknown)}")
    targets = None if spec.targets == "none" else TARGETS[spec.targets]
    return SkillDef(
        spec.name,
        spec.signature,
        spec.description,
        spec.args,
        _failures(spec.requires),
        DONE[spec.done],
        targets=targets,
    )


def event_skill(event: Event, put_skill: Skill | None = None) -> Skill | None:
    """The skill an event completes, for belief correction (START_COOKING completes none). A put in
    a pot is the kitchen's pot skill (``put_skill``); without a kitchen (re-scoring a trace) an onion
    put reads as ``put_onion_in_pot()`` and any other ingredient's as ``put_in_pot()``; an indicator
    activation is ``press_button()``."""
    item = event.item.name if event.item else None
    match event.kind:
        case EventKind.PICKUP_INGREDIENT | EventKind.PICKUP_DISH | EventKind.PICKUP_FROM_COUNTER:
            return Skill("pickup", item)
        case EventKind.PUT_IN_POT:
            return put_skill or Skill("put_onion_in_pot" if item == "onion" else "put_in_pot")
        case EventKind.FILL_DISH:
            return Skill("fill_dish_with_soup")
        case EventKind.DELIVER:
            return Skill("deliver_soup")
        case EventKind.PLACE_ON_COUNTER:
            return Skill("place_obj_on_counter")
        case EventKind.ACTIVATE_INDICATOR:
            return Skill("press_button")
    return None


def hands_and_counters(kitchen: KitchenState, agent: int) -> UndoState:
    """What an undo loop leaves unchanged: the agent's hands and the objects on the counters (as a
    multiset: putting an onion back on another counter is still putting it back)."""
    counters = tuple(sorted(item.describe() for item in kitchen.counter_items.values()))
    return UndoState(_held_name(kitchen, agent), counters)


class SkillBook(TableSkillBook):
    """The Overcooked skills for one kitchen, on the world kit's table: its ingredients decide the
    pickup arguments and the pot skill's name, its ``features`` (`kitchen_features`) which
    ``only_on`` skills exist. On a kitchen whose pot skill is ``put_in_pot``, ``put_onion_in_pot``
    still finds that row (`spec`: code written for the classic kitchens, like the scripted
    partners, keeps working); the name is still not listed nor parsed there."""

    def __init__(
        self, kitchen_items: tuple[str, ...], path: Path | None = None, features: frozenset[str] = frozenset()
    ) -> None:
        data = tomllib.loads((path or KNOWLEDGE_DIR / "overcooked" / "skills.toml").read_text())
        ingredients = tuple(i for i in kitchen_items if i not in ("dish", "soup"))
        self.onion_only = ingredients == ("onion",)
        self.features = frozenset(features)
        self.items = kitchen_items
        specs = [_spec(s, self.onion_only) for s in data["skill"]]
        self.records = {spec.name: spec for spec in specs if spec.only_on is None or spec.only_on in self.features}
        rows = [_row(spec) for spec in self.records.values()]
        progress = data.get("progress", {})
        super().__init__(
            rows,
            {"items": ArgChoices(kitchen_items), "steps": ArgRange(1, MAX_WAIT, default=1)},
            frozenset(EventKind(k) for k in progress.get("own", ())),
            hands_and_counters,
            lambda event: event_skill(event, self.put_skill),
            teammate_progress=frozenset(EventKind(k) for k in progress.get("teammate", ())),
            aliases={} if self.onion_only else {"put_onion_in_pot": "put_in_pot"},
        )

    @classmethod
    def for_kitchen(cls, kitchen: KitchenState) -> SkillBook:
        return cls.for_map(kitchen.map)

    @classmethod
    def for_map(cls, kitchen_map: KitchenMap) -> SkillBook:
        """The book of a kitchen's map (its dispensers and indicators decide the skills)."""
        ingredients = tuple(ingredient_name(i) for i in sorted(kitchen_map.ingredient_dispensers))
        return cls(ingredients + ("dish", "soup"), features=kitchen_features(kitchen_map))

    @property
    def put_skill(self) -> Skill:
        """The kitchen's pot skill: ``put_onion_in_pot()`` on onion-only kitchens, else ``put_in_pot()``."""
        return Skill("put_onion_in_pot" if self.onion_only else "put_in_pot")
