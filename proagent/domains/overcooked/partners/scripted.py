"""Scripted partners: fixed teammates that make cooperation measurable without any learning.

``random`` and ``stay`` are the degenerate baselines. The others are heuristic chefs built on the
same SkillBook + Controller that ground ProAgent's own plans, so a scripted teammate and an LLM
agent differ only in *which* skill they choose, never in how well they walk:

- ``greedy`` cooks alone if it can and passes items over counters when its side of the kitchen
  cannot reach the pot or the serving spot (forced_coordination);
- ``onion_passer`` plays the green-hat role of the counter_circuit coordination policy (Carroll et
  al. 2020, used in the interdependence paper): it only fetches onions and puts them on the middle
  counters, leaving the cooking to its teammate;
- ``supplier`` is forced_coordination's left-side role: onions and dishes onto the shared counters,
  as the pots need them.

The heuristics assume the classic single recipe (three onions). A heuristic is a generator of
candidate :class:`Choice` objects in priority order; the first whose preconditions hold is played.
Choices may narrow a skill's targets (``scope``): a passer must put onions on counters its teammate
can reach and must not re-collect the onions it already passed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from envs import Action, EnvState, KitchenMap, KitchenState, Player, Pos, Pot
from proagent.contract import ImmediateAgent, Observation
from proagent.domains.overcooked.controller import Controller
from proagent.domains.overcooked.navigation import distances, spots
from proagent.domains.overcooked.skills import Skill, SkillBook, dispensers_of

ONION = "onion"
SOUP_SIZE = 3  # ingredients per soup in the classic recipes

PICKUP_ONION = Skill("pickup", ONION)
PICKUP_DISH = Skill("pickup", "dish")
PUT_ONION = Skill("put_onion_in_pot")
FILL_DISH = Skill("fill_dish_with_soup")
DELIVER = Skill("deliver_soup")
PLACE = Skill("place_obj_on_counter")
WAIT = Skill("wait", 1)


# ---- baselines ---------------------------------------------------------------------------------


class RandomPartner(ImmediateAgent):
    """Uniform random primitive actions: the floor of every cross-play table."""

    def __init__(self, name: str = "random") -> None:
        self.name = name
        self._rng = np.random.default_rng(0)

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def policy(self, kitchen: KitchenState, state: EnvState) -> Action:
        return Action(int(self._rng.integers(len(Action))))


class StayPartner(ImmediateAgent):
    """Never moves: shows what an agent achieves alone (and that it routes around an obstacle)."""

    def __init__(self, name: str = "stay") -> None:
        self.name = name

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        pass

    def policy(self, kitchen: KitchenState, state: EnvState) -> Action:
        return Action.STAY


# ---- what a heuristic sees -------------------------------------------------------------------


def floor_region(kmap: KitchenMap, start: Pos) -> frozenset[Pos]:
    """Floor cells walkable from ``start``, teammates ignored (they move)."""
    return frozenset(distances(kmap, start))


def middle_counters(kmap: KitchenMap) -> frozenset[Pos]:
    """Counters with floor on two opposite sides: islands and dividers, the natural pass points."""
    out = set()
    for x, y in kmap.counters:
        across = kmap.is_floor((x - 1, y)) and kmap.is_floor((x + 1, y))
        along = kmap.is_floor((x, y - 1)) and kmap.is_floor((x, y + 1))
        if across or along:
            out.add((x, y))
    return frozenset(out)


@dataclass(frozen=True)
class Choice:
    """A skill and, optionally, the only cells it may target (None: the skill's own targets)."""

    skill: Skill
    scope: frozenset[Pos] | None = None


class ScopedSkillBook(SkillBook):
    """A SkillBook whose targets the partner can narrow for the current choice.

    The Controller only asks the book for targets, so narrowing here steers it to the middle
    counters or to the dispensers without touching the Controller.
    """

    scope: frozenset[Pos] | None = None

    def targets(self, kitchen: KitchenState, skill: Skill) -> tuple[Pos, ...]:
        return self.targets_within(kitchen, skill, self.scope)

    def targets_within(self, kitchen: KitchenState, skill: Skill, scope: frozenset[Pos] | None) -> tuple[Pos, ...]:
        """Targets under an explicit scope, whatever the current one is."""
        base = super().targets(kitchen, skill)
        return base if scope is None else tuple(t for t in base if t in scope)


@dataclass(frozen=True)
class TeamView:
    """One decision's facts about the team: who can reach what, what is needed, what is passed."""

    kitchen: KitchenState
    seat: int
    book: ScopedSkillBook

    @property
    def me(self) -> Player:
        return self.kitchen.players[self.seat]

    @cached_property
    def others(self) -> tuple[Player, ...]:
        return tuple(p for p in self.kitchen.players if p.index != self.seat)

    @cached_property
    def mine(self) -> frozenset[Pos]:
        return floor_region(self.kitchen.map, self.me.position)

    @cached_property
    def mates(self) -> frozenset[Pos]:
        return frozenset().union(*(floor_region(self.kitchen.map, p.position) for p in self.others))

    def reaches(self, region: frozenset[Pos], target: Pos) -> bool:
        return any(stand in region for stand, _ in spots(self.kitchen.map, target))

    @cached_property
    def i_reach_a_pot(self) -> bool:
        return any(self.reaches(self.mine, p) for p in self.kitchen.map.pots)

    @cached_property
    def soup_pots(self) -> tuple[Pot, ...]:
        """Pots that are cooking or ready: each needs one dish."""
        return tuple(p for p in self.kitchen.pots if not p.idle)

    @cached_property
    def onion_slots(self) -> int:
        """Onions still missing from pots that accept them."""
        return sum(SOUP_SIZE - len(p.ingredients) for p in self.kitchen.pots if p.idle and not p.is_full)

    def held_by_others(self, name: str) -> int:
        return sum(1 for p in self.others if p.held is not None and p.held.name == name)

    def passed(self, name: str) -> int:
        """Items of this kind lying where a teammate can take them (already passed, in effect)."""
        return sum(
            1 for pos, item in self.kitchen.counter_items.items() if item.name == name and self.reaches(self.mates, pos)
        )

    @cached_property
    def pass_counters(self) -> frozenset[Pos]:
        """Counters both I and a teammate can reach; the middle ones only, when there are any."""
        shared = frozenset(
            c for c in self.kitchen.map.counters if self.reaches(self.mine, c) and self.reaches(self.mates, c)
        )
        middle = shared & middle_counters(self.kitchen.map)
        return middle or shared

    @cached_property
    def free_pass_counters(self) -> int:
        return sum(1 for c in self.pass_counters if c not in self.kitchen.counter_items)

    def own_sources(self, name: str) -> frozenset[Pos]:
        """Dispensers and counters the teammates cannot reach: never take back what was passed.
        ``name``: "dish" or an ingredient ("onion", "tomato", ...)."""
        kmap = self.kitchen.map
        dispensers = dispensers_of(kmap, name)
        counters = self.kitchen.counter_items.items()
        mine = (pos for pos, item in counters if item.name == name and not self.reaches(self.mates, pos))
        return frozenset(dispensers) | frozenset(mine)

    def feasible(self, choice: Choice) -> bool:
        """Preconditions hold and some allowed target is reachable (waiting always is)."""
        if self.book.failures(self.kitchen, self.seat, choice.skill):
            return False
        if self.book.spec(choice.skill.name).targets is None:
            return True
        targets = self.book.targets_within(self.kitchen, choice.skill, choice.scope)
        return any(self.reaches(self.mine, t) for t in targets)


Heuristic = Callable[[TeamView], Iterator[Choice]]


def work_cells(kmap: KitchenMap) -> frozenset[Pos]:
    """Floor cells from which a pot, dispenser or serving spot is used: where idlers are in the way."""
    stations = kmap.pots + kmap.serving + kmap.dish_dispensers
    stations += tuple(p for cells in kmap.ingredient_dispensers.values() for p in cells)
    return frozenset(stand for station in stations for stand, _ in spots(kmap, station))


def make_room(view: TeamView) -> Action | None:
    """First step from a work cell to the nearest free cell that is none, for a chef with nothing
    to do: in cramped_room an idler at the pot's only access cell blocks the whole kitchen."""
    kmap = view.kitchen.map
    work = work_cells(kmap)
    if view.me.position not in work:
        return None
    occupied = frozenset(p.position for p in view.others)
    routes = distances(kmap, view.me.position, blocked=occupied)
    rests = [(dist, pos) for pos, (dist, _) in routes.items() if pos not in work]
    if not rests:
        return None
    _, rest = min(rests)
    return routes[rest][1]


def first_feasible(view: TeamView, heuristic: Heuristic) -> Choice:
    """The heuristic's first candidate whose preconditions hold, else wait a step."""
    for choice in heuristic(view):
        if view.feasible(choice):
            return choice
    return Choice(WAIT)


# ---- heuristics ------------------------------------------------------------------------------


def pass_over(view: TeamView) -> Choice:
    """Put what I hold where a teammate can take it (the middle counters when there are any)."""
    return Choice(PLACE, view.pass_counters)


def park() -> Choice:
    """Free my hands on the nearest empty counter (the item stays available to whoever needs it)."""
    return Choice(PLACE)


def still_needed(view: TeamView, name: str, wanted: int) -> int:
    """``wanted`` items of ``name`` less those on the way: held by a teammate, or (for a chef who
    cannot reach the pot) already passed. A cook who reaches the pot still fetches a passed item
    itself, so for it passed ones are not on the way."""
    need = wanted - view.held_by_others(name)
    return need if view.i_reach_a_pot else need - view.passed(name)


def dishes_needed(view: TeamView) -> int:
    """Soups without a dish on the way."""
    return still_needed(view, "dish", len(view.soup_pots))


def onions_needed(view: TeamView) -> int:
    """Onions the accepting pots still miss, minus those on the way (same rule as dishes)."""
    return still_needed(view, ONION, view.onion_slots)


def fetch_scope(view: TeamView, name: str) -> frozenset[Pos] | None:
    """Where a fetch of ``name`` may take from: a cook takes from anywhere; a chef who cannot reach
    the pot only from its own sources, or it would take back what it just passed."""
    return None if view.i_reach_a_pot else view.own_sources(name)


def free_hands(view: TeamView) -> Choice:
    """What to do with something the pot cannot take now: park it (a cook), pass it (a chef who
    cannot reach the pot)."""
    return park() if view.i_reach_a_pot else pass_over(view)


def greedy(view: TeamView) -> Iterator[Choice]:
    """A cook: finish what is in hand, else fetch what the pots need; pass over counters when my
    side cannot reach the pot (forced_coordination)."""
    held = view.me.held
    if held is None:
        yield from _greedy_fetch(view)
    elif held.kind == "soup":
        yield Choice(DELIVER)
        yield pass_over(view)
    elif held.kind == "dish":
        yield Choice(FILL_DISH)
        yield free_hands(view)
    else:
        yield Choice(PUT_ONION)
        yield free_hands(view)


def _greedy_fetch(view: TeamView) -> Iterator[Choice]:
    """Empty hands: a soup someone parked, a dish for a cooking pot, onions for an idle one
    (from where ``fetch_scope`` allows)."""
    if any(item.kind == "soup" for item in view.kitchen.counter_items.values()):
        yield Choice(Skill("pickup", "soup"))  # feasible only if it lies within my reach
    if dishes_needed(view) > 0:
        yield Choice(PICKUP_DISH, fetch_scope(view, "dish"))
    if onions_needed(view) > 0:
        yield Choice(PICKUP_ONION, fetch_scope(view, ONION))


def supplier(view: TeamView) -> Iterator[Choice]:
    """forced_coordination's left role: dishes and onions onto the shared counters, never cooking.

    Onions for the next soup are stocked while a pot cooks, but one shared counter is kept free so
    the dish always has somewhere to go (otherwise the team deadlocks: full counters, no dish)."""
    held = view.me.held
    if held is None:
        need_dish = len(view.soup_pots) - view.held_by_others("dish") - view.passed("dish")
        if need_dish > 0:
            yield Choice(PICKUP_DISH, view.own_sources("dish"))
        stock = view.onion_slots + SOUP_SIZE * len(view.soup_pots) - view.held_by_others(ONION) - view.passed(ONION)
        reserve = 1 if len(view.pass_counters) > 1 else 0
        if stock > 0 and view.free_pass_counters > reserve:
            yield Choice(PICKUP_ONION, view.own_sources(ONION))
        return
    if held.kind == "soup":
        yield Choice(DELIVER)
    yield pass_over(view)


def passer_stock(view: TeamView) -> int:
    """Onions the passer keeps waiting for its teammate: every middle counter (the coordination
    policy), but no more than a pot's worth on kitchens without one, where counters are also the
    teammate's parking space."""
    if view.pass_counters & middle_counters(view.kitchen.map):
        return len(view.pass_counters)
    return min(len(view.pass_counters), SOUP_SIZE)


def onion_passer(view: TeamView) -> Iterator[Choice]:
    """counter_circuit's green-hat role: onions from the dispenser onto the middle counters, only.

    Pickups are scoped to the dispensers so it never takes back an onion it passed. With its stock
    out (``passer_stock``) it rests; with the pass counters full it waits holding the next onion.
    On a kitchen where no counter is shared (asymmetric_advantages) it can only wait."""
    held = view.me.held
    kmap = view.kitchen.map
    if held is None:
        if view.passed(ONION) < passer_stock(view):
            yield Choice(PICKUP_ONION, frozenset(kmap.ingredient_dispensers.get(0, ())))
    elif held.kind == "ingredient" and held.name == ONION:
        yield pass_over(view)
    else:  # something it does not deal in (a random interaction picked it up): out of the way
        yield Choice(PLACE, frozenset(kmap.counters) - view.pass_counters)
        yield park()


# ---- the partner -----------------------------------------------------------------------------


class SkillPartner(ImmediateAgent):
    """A scripted teammate: a heuristic picks skills, the shared Controller walks them.

    A new skill is chosen when the current one is done or no longer feasible, and, while the hands
    are empty, whenever the heuristic now prefers another fetch (the teammate took the dish first:
    do not fetch a second one). ``epsilon`` replaces that many actions by uniform random ones.
    With nothing to do it steps off the cells teammates need (``make_room``) instead of standing.
    """

    def __init__(
        self, name: str, heuristic: Heuristic, epsilon: float = 0.0, stuck_patience: int = 3, make_room: bool = True
    ) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        self.name = name
        self.heuristic = heuristic
        self.epsilon = epsilon
        self.stuck_patience = stuck_patience
        self.make_room = make_room
        self.seat = -1
        self._seed = 0
        self._rng = np.random.default_rng(0)
        self._book: ScopedSkillBook | None = None
        self._map: KitchenMap | None = None
        self._controller: Controller | None = None
        self._choice: Choice | None = None
        self._steps = 0

    @property
    def choice(self) -> Choice | None:
        """The skill being played (for traces and tests)."""
        return self._choice

    def info(self) -> dict:
        """The trace shows the skill being played."""
        return {"skill": str(self._choice.skill)} if self._choice is not None else {}

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        noise, control = np.random.SeedSequence(seed).spawn(2)
        self.seat = seat
        self._rng = np.random.default_rng(noise)
        self._seed = int(control.generate_state(1)[0])
        self._controller = None
        self._choice = None
        self._steps = 0

    def policy(self, kitchen: KitchenState, state: EnvState) -> Action:
        if self.seat < 0:
            raise RuntimeError(f"partner {self.name!r}: call reset(seat, seed) before act()")
        controller, book = self._ground(kitchen)
        if self.epsilon and self._rng.random() < self.epsilon:
            return self.noise_action()
        view = self.team_view(kitchen, book)
        choice = self._update_choice(view)
        book.scope = choice.scope
        self._steps += 1
        if choice.skill.name == WAIT.name:
            step_aside = make_room(view) if self.make_room else None
            if step_aside is not None:
                return step_aside
        return controller.act(kitchen, choice.skill)

    def noise_action(self) -> Action:
        """The epsilon action: uniform over all primitive actions."""
        return Action(int(self._rng.integers(len(Action))))

    def team_view(self, kitchen: KitchenState, book: ScopedSkillBook) -> TeamView:
        """The facts the heuristic decides on (a subclass adds what it knows beyond the kitchen)."""
        return TeamView(kitchen, self.seat, book)

    def _ground(self, kitchen: KitchenState) -> tuple[Controller, ScopedSkillBook]:
        """The controller for this episode (built on the first step: the book needs the kitchen)."""
        if self._book is None or self._map is not kitchen.map:
            self._book, self._map = ScopedSkillBook.for_kitchen(kitchen), kitchen.map
            self._controller = None
        if self._controller is None:
            self._controller = Controller(self._book, self.seat, self._seed, self.stuck_patience)
        return self._controller, self._book

    def _update_choice(self, view: TeamView) -> Choice:
        current = self._choice
        finished = current is None or self._finished(view, current)
        if finished or view.me.held is None:
            choice = first_feasible(view, self.heuristic)
            if finished or choice != current:
                self._choice, self._steps = choice, 0
        assert self._choice is not None
        return self._choice

    def _finished(self, view: TeamView, choice: Choice) -> bool:
        return self._book is not None and (
            self._book.is_done(view.kitchen, self.seat, choice.skill, self._steps) or not view.feasible(choice)
        )
