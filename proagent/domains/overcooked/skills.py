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

import re
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from envs import Event, EventKind, KitchenState, Pos
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.symbolic import KitchenMap
from proagent.domains.overcooked.navigation import reachable_targets
from proagent.paths import KNOWLEDGE_DIR
from proagent.world.types import Skill, SkillParseError, UndoState

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
        return f"the recipe ({', '.join(recipe)}) takes {need[held_ingredient]} {held_ingredient} and the pot already has them"
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
            raise ValueError(f"skill {record['name']!r}: onion_only.fails must reword each of its {len(requires)} requirements")
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


class _Specs(dict):
    """The kitchen's skills by name. Looking up ``put_onion_in_pot`` on a kitchen whose pot skill is
    ``put_in_pot`` finds that record (code written for the classic kitchens, like the scripted
    partners, keeps working); the name is still not listed nor parsed there."""

    def __missing__(self, name: str) -> SkillSpec:
        if name == "put_onion_in_pot" and "put_in_pot" in self:
            return self["put_in_pot"]
        raise KeyError(name)


class _book_or_class:
    """A method usable on a book (``book.skill_of_event(e)``: knows the kitchen) and on the class
    (``SkillBook.skill_of_event(e)``: no kitchen); the function gets the book or None first."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, book: object, owner: type | None = None) -> Callable:
        return partial(self.fn, book)


_SKILL_RE = re.compile(r"([a-z_]+)\s*\(\s*['\"]?([a-z0-9_]*)['\"]?\s*\)")


class SkillBook:
    """The Overcooked skills for one kitchen: its ingredients decide the pickup arguments and the pot
    skill's name, its ``features`` (`kitchen_features`) which ``only_on`` skills exist."""

    def __init__(self, kitchen_items: tuple[str, ...], path: Path | None = None, features: frozenset[str] = frozenset()) -> None:
        data = tomllib.loads((path or KNOWLEDGE_DIR / "overcooked" / "skills.toml").read_text())
        ingredients = tuple(i for i in kitchen_items if i not in ("dish", "soup"))
        self.onion_only = ingredients == ("onion",)
        self.features = frozenset(features)
        specs = (_spec(s, self.onion_only) for s in data["skill"])
        self.specs = _Specs({spec.name: spec for spec in specs if spec.only_on is None or spec.only_on in self.features})
        for spec in self.specs.values():
            unknown = {r.check for r in spec.requires} - CHECKS.keys() | ({spec.targets} - TARGETS.keys()) | ({spec.done} - DONE.keys())
            if unknown:
                raise ValueError(f"skill {spec.name!r} names unknown checks/targets/done-tests: {sorted(unknown)}")
        self.items = kitchen_items
        progress = data.get("progress", {})
        self.progress_own = frozenset(EventKind(k) for k in progress.get("own", ()))
        self.progress_teammate = frozenset(EventKind(k) for k in progress.get("teammate", ()))

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

    def all_skills(self) -> list[Skill]:
        """Every concrete skill the planner may name (waits as wait(1)..wait(20))."""
        out: list[Skill] = []
        for spec in self.specs.values():
            if spec.args == "items":
                out.extend(Skill(spec.name, item) for item in self.items)
            elif spec.args == "steps":
                out.extend(Skill(spec.name, n) for n in range(1, MAX_WAIT + 1))
            else:
                out.append(Skill(spec.name))
        return out

    def failures(self, kitchen: KitchenState, agent: int, skill: Skill) -> list[str]:
        """Unmet preconditions, worded for the failure explainer (empty list: the skill may run)."""
        spec = self.specs[skill.name]
        fmt = {"held": _held_name(kitchen, agent), "obj": skill.arg}
        return [r.fail.format(**fmt) for r in spec.requires if not CHECKS[r.check](kitchen, agent, skill)]

    def targets(self, kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
        return TARGETS[self.specs[skill.name].targets](kitchen, skill)

    def is_done(self, kitchen: KitchenState, agent: int, skill: Skill, steps: int) -> bool:
        return DONE[self.specs[skill.name].done](kitchen, agent, skill, steps)

    def parse(self, text: str) -> Skill:
        """A skill from free text, tolerant of case, quotes, spaces, a missing '()' and list markers."""
        cleaned = text.strip().lower().replace("-", "_")
        match = _SKILL_RE.search(cleaned)
        if match is None and (call := re.search(r"([a-z_]+)\s*\(([^)]*)\)", cleaned)) and call.group(1) in self.specs:
            # e.g. wait(2.5): a known skill with an argument we cannot read is an error, not wait(1)
            raise SkillParseError(f"{call.group(0)}: cannot read the argument {call.group(2).strip()!r}", text)
        if match is None:
            bare = re.search(r"[a-z_]+", cleaned)
            if bare is None or bare.group(0) not in self.specs:
                raise SkillParseError(f"no skill call found in {text!r}; expected one of {self.signatures()}", text)
            name, arg = bare.group(0), ""
        else:
            name, arg = match.group(1), match.group(2)
        return self._validated(name, arg, text)

    def _validated(self, name: str, arg: str, raw: str) -> Skill:
        spec = self.specs.get(name)
        if spec is None:
            raise SkillParseError(f"unknown skill {name!r}; expected one of {self.signatures()}", raw)
        if spec.args == "items":
            if arg not in self.items:
                raise SkillParseError(f"{name}({arg}): argument must be one of {list(self.items)}", raw)
            return Skill(name, arg)
        if spec.args == "steps":
            if arg and not arg.isdigit():
                raise SkillParseError(f"wait({arg}): n must be a whole number of steps", raw)
            n = int(arg) if arg else 1
            if not 1 <= n <= MAX_WAIT:
                raise SkillParseError(f"wait({arg}): n must be between 1 and {MAX_WAIT}", raw)
            return Skill(name, n)
        return Skill(name)

    def is_progress(self, event: Event, agent: int) -> bool:
        """Whether ``event`` moved the team forward from ``agent``'s point of view (skills.toml [progress])."""
        kinds = self.progress_own if event.agent == agent else self.progress_teammate
        return event.kind in kinds

    @_book_or_class
    def skill_of_event(book: SkillBook | None, event: Event) -> Skill | None:
        """The skill an event completes, for belief correction (START_COOKING completes none). A put
        in a pot is the kitchen's pot skill: ``put_onion_in_pot()`` on onion-only kitchens, else
        ``put_in_pot()``; an indicator activation is ``press_button()``. Called on the class (no
        kitchen known: re-scoring a trace) an onion put reads as ``put_onion_in_pot()`` and any other
        ingredient's as ``put_in_pot()``."""
        item = event.item.name if event.item else None
        match event.kind:
            case EventKind.PICKUP_INGREDIENT | EventKind.PICKUP_DISH | EventKind.PICKUP_FROM_COUNTER:
                return Skill("pickup", item)
            case EventKind.PUT_IN_POT:
                if book is not None:
                    return book.put_skill
                return Skill("put_onion_in_pot" if item == "onion" else "put_in_pot")
            case EventKind.FILL_DISH:
                return Skill("fill_dish_with_soup")
            case EventKind.DELIVER:
                return Skill("deliver_soup")
            case EventKind.PLACE_ON_COUNTER:
                return Skill("place_obj_on_counter")
            case EventKind.ACTIVATE_INDICATOR:
                return Skill("press_button")
        return None

    def undo_state(self, kitchen: KitchenState, agent: int) -> UndoState:
        """What an undo loop leaves unchanged: the agent's hands and the objects on the counters (as a
        multiset: putting an onion back on another counter is still putting it back)."""
        counters = tuple(sorted(item.describe() for item in kitchen.counter_items.values()))
        return UndoState(_held_name(kitchen, agent), counters)

    def signatures(self) -> list[str]:
        return [spec.signature for spec in self.specs.values()]
