"""The Overcooked mapping module: an episode's event stream to a grounded STRIPS trace.

The operators, their preconditions and effects are data (knowledge/overcooked/strips.toml); this
module only says which operator each event is and binds its parameters to tracked objects
(``identity``) and fixed places. Input is what both a live episode and a run folder have: per
step the joint action and the events, plus (when recorded) the initial kitchen, so the same
code serves `play`/`eval` at episode end and `proagent analyze` afterwards.

What the core calls (the generic analysis lives in ``proagent.interdependence``):
``interdependence_collector(first)`` while an episode runs, ``interdependence_model(layout)`` and
``skill_of_event`` when `proagent analyze` regrounds a run folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from envs import Action, get_layout
from envs.overcooked.events import Event, EventKind
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.symbolic import Item, KitchenMap, KitchenState, Pos
from proagent.domains.overcooked.identity import KitchenTracker
from proagent.domains.overcooked.skills import SkillBook
from proagent.interdependence.episode import EpisodeCollector
from proagent.interdependence.model import StepInput
from proagent.interdependence.strips import (
    ENV_AGENT,
    Domain,
    GroundedOperator,
    GroundedTrace,
    Proposition,
    agent_name,
    ground,
)
from proagent.paths import KNOWLEDGE_DIR
from proagent.world.types import Skill

DOMAIN_FILE = KNOWLEDGE_DIR / "overcooked" / "strips.toml"


@cache
def overcooked_domain() -> Domain:
    """The declared Overcooked domain (parsed once; ``Domain`` is immutable)."""
    return Domain.from_toml(DOMAIN_FILE)


def place_name(kind: str, pos: Pos) -> str:
    return f"{kind}_{pos[0]}_{pos[1]}"


@dataclass(frozen=True)
class Scene:
    """The objects present when the trace starts (classic layouts start empty)."""

    held: dict[int, Item] = field(default_factory=dict)
    counters: dict[Pos, Item] = field(default_factory=dict)
    pots: dict[Pos, tuple[int, ...]] = field(default_factory=dict)  # ingredients (not cooking yet)
    soups: tuple[Pos, ...] = ()  # pots holding a cooking or ready soup


def item_record(item: Item | None) -> dict | None:
    return None if item is None else {"kind": item.kind, "ingredients": list(item.ingredients)}


def item_from_record(record: dict | None) -> Item | None:
    return None if record is None else Item(record["kind"], tuple(record.get("ingredients", ())))


def scene_record(kitchen: KitchenState) -> dict:
    """The compact initial scene saved with the first trace line of an episode."""
    return {
        "held": {str(p.index): item_record(p.held) for p in kitchen.players if p.held is not None},
        "counters": [[list(pos), item_record(item)] for pos, item in kitchen.counter_items.items()],
        "pots": [[list(p.position), list(p.ingredients), p.cooking or p.ready] for p in kitchen.pots if p.ingredients],
    }


def scene_from_record(record: dict) -> Scene:
    pots = {tuple(pos): tuple(ingr) for pos, ingr, busy in record.get("pots", []) if not busy}
    soups = tuple(tuple(pos) for pos, _, busy in record.get("pots", []) if busy)
    return Scene(
        held={int(k): item_from_record(v) for k, v in record.get("held", {}).items()},
        counters={tuple(pos): item_from_record(item) for pos, item in record.get("counters", [])},
        pots=pots,
        soups=soups,
    )


def scene_from_kitchen(kitchen: KitchenState) -> Scene:
    return scene_from_record(scene_record(kitchen))


def event_from_record(record: dict) -> Event:
    """An event as stored in trace.jsonl (``Event.to_record``) back to an Event."""
    return Event(
        step=int(record["step"]),
        agent=int(record["agent"]),
        kind=EventKind(record["kind"]),
        position=tuple(record["position"]),
        item=item_from_record(record.get("item")),
        correct=record.get("correct"),
    )


def _base(item: Item | None, fallback: str) -> tuple[str, str]:
    """(id base, type) of an item: ('onion', 'ingredient'), ('dish', 'dish'), ('soup', 'soup')."""
    if item is None:
        return fallback, "ingredient" if fallback not in ("dish", "soup") else fallback
    if item.kind == "ingredient":
        return item.name, "ingredient"
    return item.kind, item.kind


class _Grounder:
    """Turns steps into operators in engine order, tracking objects and the initial state."""

    def __init__(self, domain: Domain, kmap: KitchenMap, agents: int) -> None:
        self.domain = domain
        self.kmap = kmap
        self.agents = agents
        self.tracker = KitchenTracker()
        self.operators: list[GroundedOperator] = []
        self.places: dict[str, str] = {}

    def op(
        self, name: str, binding: dict[str, str], step: int, agent: int, members: Sequence[dict[str, str]] = ()
    ) -> None:
        full = {"?a": agent_name(agent), **binding}
        self.operators.append(
            ground(self.domain, name, full, index=len(self.operators), step=step, agent=agent, members=members)
        )

    def place(self, kind: str, pos: Pos) -> str:
        name = place_name(kind, pos)
        self.places[name] = kind
        return name

    def initial(self, scene: Scene) -> frozenset[Proposition]:
        props: set[Proposition] = set()
        for i in range(self.agents):
            item = scene.held.get(i)
            if item is None:
                props.add(Proposition("hand-empty", (agent_name(i),)))
            else:
                props.add(Proposition("holding", (agent_name(i), self.tracker.seed_held(i, *_base(item, "onion")))))
        for pos in self.kmap.counters:
            item = scene.counters.get(pos)
            counter = self.place("counter", pos)
            if item is None:
                props.add(Proposition("counter-empty", (counter,)))
            else:
                props.add(Proposition("on", (self.tracker.seed_counter(pos, *_base(item, "onion")), counter)))
        for pos in self.kmap.pots:
            pot = self.place("pot", pos)
            for ingredient in scene.pots.get(pos, ()):
                obj = self.tracker.new(ingredient_name(ingredient), "ingredient")
                self.tracker.in_pot.setdefault(pos, []).append(obj)
                props.add(Proposition("in", (obj, pot)))
            if pos in scene.soups:
                soup = self.tracker.new("soup", "soup")
                self.tracker.soup_in_pot[pos] = soup
                props |= {Proposition("in", (soup, pot)), Proposition("pot-cooking", (pot,))}
            else:
                props.add(Proposition("pot-idle", (pot,)))
        return frozenset(props)

    def step(self, s: StepInput) -> None:
        by_agent: dict[int, list[Event]] = {}
        for e in s.events:
            by_agent.setdefault(e.agent, []).append(e)
        for agent in range(self.agents):
            events = by_agent.get(agent)
            if not events:
                motion = s.actions[agent] if agent < len(s.actions) else "stay"
                self.op("move", {"?m": str(motion).lower()}, s.step, agent)
                continue
            for event in events:
                self.event(event)

    def event(self, e: Event) -> None:  # one branch per event kind, flat on purpose
        t, a, pos, item = self.tracker, e.agent, e.position, e.item
        base, kind = _base(item, "onion")
        match e.kind:
            case EventKind.PICKUP_INGREDIENT:
                obj = t.take_new(a, base, "ingredient")
                self.op("pickup_ingredient", {"?o": obj, "?x": self.place(f"{base}-dispenser", pos)}, e.step, a)
            case EventKind.PICKUP_DISH:
                obj = t.take_new(a, "dish", "dish")
                self.op("pickup_dish", {"?d": obj, "?x": self.place("dish-dispenser", pos)}, e.step, a)
            case EventKind.PLACE_ON_COUNTER:
                obj = t.place(a, pos, base, kind)
                self.op("place_on_counter", {"?o": obj, "?c": self.place("counter", pos)}, e.step, a)
            case EventKind.PICKUP_FROM_COUNTER:
                obj = t.pick(a, pos, base, kind)
                self.op("pickup_from_counter", {"?o": obj, "?c": self.place("counter", pos)}, e.step, a)
            case EventKind.PUT_IN_POT:
                obj = t.put_in_pot(a, pos, base)
                self.op("put_in_pot", {"?o": obj, "?p": self.place("pot", pos)}, e.step, a)
            case EventKind.START_COOKING:
                names = [ingredient_name(i) for i in (item.ingredients if item else ())]
                soup, ingredients = t.cook(pos, names)
                members = [{"?i": i} for i in ingredients]
                self.op("start_cooking", {"?s": soup, "?p": self.place("pot", pos)}, e.step, a, members)
            case EventKind.FILL_DISH:
                dish, soup = t.fill(a, pos)
                pot = self.place("pot", pos)
                self.op("finish_cooking", {"?s": soup, "?p": pot}, e.step, ENV_AGENT)
                self.op("fill_dish", {"?d": dish, "?s": soup, "?p": pot}, e.step, a)
            case EventKind.DELIVER:
                soup = t.release(a, "soup", "soup")
                name = "deliver" if e.correct is not False else "deliver_wrong"
                self.op(name, {"?s": soup, "?g": self.place("serving", pos)}, e.step, a)
            case EventKind.ACTIVATE_INDICATOR:
                self.op("activate_indicator", {"?x": self.place("indicator", pos)}, e.step, a)


def ground_episode(
    steps: Iterable[StepInput],
    kmap: KitchenMap,
    scene: Scene | None = None,
    domain: Domain | None = None,
    *,
    agents: int,
) -> GroundedTrace:
    """The grounded trace of one episode. ``scene`` is the initial kitchen (empty if unknown).

    ``finish_cooking`` (the environment's timer) is placed just before the fill that reveals it:
    the analysis never needs its exact step, since no agent is its actor."""
    grounder = _Grounder(domain or overcooked_domain(), kmap, agents)
    initial = grounder.initial(scene or Scene())
    count = 0
    for s in steps:
        grounder.step(s)
        count += 1
    objects = {**grounder.tracker.types, **grounder.places, **{agent_name(i): "agent" for i in range(agents)}}
    notes = [f"identity repair: {r}" for r in grounder.tracker.repairs]
    return GroundedTrace(
        domain=grounder.domain.name,
        objects=objects,
        initial=initial,
        operators=grounder.operators,
        steps=count,
        agents=agents,
        notes=notes,
    )


@dataclass(frozen=True)
class OvercookedModel:
    """One kitchen as the generic interdependence analysis sees it (``InterdependenceModel``)."""

    kmap: KitchenMap
    strips: Domain = field(default_factory=overcooked_domain)

    def action_name(self, action: int) -> str:
        return Action(int(action)).name.lower()

    def scene_of(self, first: KitchenState) -> Scene:
        return scene_from_kitchen(first)

    def scene_from_trace(self, line: Mapping[str, Any]) -> Scene | None:
        return scene_from_record(line["scene"]) if "scene" in line else None

    def event_from_record(self, record: Mapping[str, Any]) -> Event:
        return event_from_record(dict(record))

    def ground(self, steps: Iterable[StepInput], scene: Scene | None, agents: int) -> GroundedTrace:
        return ground_episode(steps, self.kmap, scene, self.strips, agents=agents)

    @cached_property
    def book(self) -> SkillBook:
        return SkillBook.for_map(self.kmap)

    def skill_of_event(self, event: Event) -> Skill | None:
        """The skill an event completes in this kitchen (the skill book's one definition, with the
        kitchen's own names): what intention accuracy compares a prediction with."""
        return self.book.skill_of_event(event)


def interdependence_model(layout: str) -> OvercookedModel:
    """The model of a layout by what ``get_layout`` accepts (a name or a kitchen file): `proagent analyze`."""
    return OvercookedModel(KitchenMap(get_layout(layout)))


def interdependence_collector(first: KitchenState) -> EpisodeCollector:
    """What the episode runner feeds each step (``add``), then summarizes (``result``)."""
    return EpisodeCollector(OvercookedModel(first.map), first, len(first.players))
