"""The event stream: what each agent's interaction did, derived from (state, actions, next state).

Belief correction ("what did my teammate actually do?") and the interdependence metrics are built
on these records, so the derivation is deterministic and reads only the symbolic view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

from envs.overcooked.actions import Action
from envs.overcooked.engine import INDICATOR_ACTIVATION_TIME, StaticObject
from envs.overcooked.symbolic import Item, KitchenState, Pos


class EventKind(StrEnum):
    PICKUP_INGREDIENT = "pickup_ingredient"  # from a dispenser
    PICKUP_DISH = "pickup_dish"  # an empty dish from the dish dispenser
    PLACE_ON_COUNTER = "place_on_counter"
    PICKUP_FROM_COUNTER = "pickup_from_counter"
    PUT_IN_POT = "put_in_pot"
    START_COOKING = "start_cooking"
    FILL_DISH = "fill_dish"  # soup from a ready pot onto the held dish
    DELIVER = "deliver"
    ACTIVATE_INDICATOR = "activate_indicator"


@dataclass(frozen=True, slots=True)
class Event:
    step: int  # the step at which the action was taken (state.step before it)
    agent: int
    kind: EventKind
    position: Pos  # the cell interacted with
    item: Item | None = None  # the object moved (for deliveries: the soup)
    correct: bool | None = None  # deliveries: did the soup match the recipe?

    def describe(self) -> str:
        what = f" {self.item.describe()}" if self.item else ""
        verdict = "" if self.correct is None else (" (correct recipe)" if self.correct else " (wrong recipe)")
        return f"{self.kind.value}{what} at {self.position}{verdict}"

    def to_record(self) -> dict:
        record = asdict(self)
        record["kind"] = self.kind.value
        record["item"] = (
            None if self.item is None else {"kind": self.item.kind, "ingredients": list(self.item.ingredients)}
        )
        return record


def extract_events(
    before: KitchenState, actions: Sequence[int], after: KitchenState, auto_cook: bool = True
) -> list[Event]:
    """All events of one step, ordered by agent (the engine resolves interactions in that order).

    ``auto_cook`` says who can start a pot: the agent whose ingredient fills it (classic rules),
    or an empty-handed agent interacting with it (explicit cook start)."""
    events: list[Event] = []
    for player, action in zip(before.players, actions):
        if int(action) == Action.INTERACT:
            events.extend(_interaction(before, player.index, after, auto_cook))
    return _one_start_per_pot(events)


def _one_start_per_pot(events: list[Event]) -> list[Event]:
    """Two agents at one pot in one step: the one who put the last ingredient in started it,
    else (explicit cook start) the first in engine order."""
    fillers = {(e.agent, e.position) for e in events if e.kind == EventKind.PUT_IN_POT}
    starts: dict[Pos, Event] = {}
    for e in events:
        if e.kind == EventKind.START_COOKING and (e.position not in starts or (e.agent, e.position) in fillers):
            starts[e.position] = e
    return [e for e in events if e.kind != EventKind.START_COOKING or starts[e.position] is e]


def _interaction(before: KitchenState, agent: int, after: KitchenState, auto_cook: bool) -> list[Event]:
    player = before.players[agent]
    held, now = player.held, after.players[agent].held
    target = player.facing
    tile = before.map.tile(target)
    step = before.step

    def event(kind: EventKind, item: Item | None, correct: bool | None = None) -> Event:
        return Event(step, agent, kind, target, item, correct)

    if tile >= StaticObject.INGREDIENT_PILE_BASE and held is None and now is not None:
        return [event(EventKind.PICKUP_INGREDIENT, now)]
    if tile == StaticObject.PLATE_PILE and held is None and now is not None:
        return [event(EventKind.PICKUP_DISH, now)]
    if tile == StaticObject.WALL:
        if held is None and now is not None:
            return [event(EventKind.PICKUP_FROM_COUNTER, now)]
        if held is not None and now is None:
            return [event(EventKind.PLACE_ON_COUNTER, held)]
    if tile == StaticObject.POT:
        return _pot_events(before, agent, after, event, auto_cook)
    if tile == StaticObject.GOAL and held is not None and held.kind == "soup" and now is None:
        return [event(EventKind.DELIVER, held, correct=tuple(sorted(held.ingredients)) == tuple(sorted(before.recipe)))]
    if tile == StaticObject.BUTTON_RECIPE_INDICATOR and held is None:
        # A press sets the timer to its full length and the step ticks it once: a press on the very
        # next step reads the same value before and after, so compare with the fresh value.
        fresh = INDICATOR_ACTIVATION_TIME - 1
        if any(i.position == target and i.active_ticks == fresh for i in after.indicators):
            return [event(EventKind.ACTIVATE_INDICATOR, None)]
    return []


def _pot_events(before: KitchenState, agent: int, after: KitchenState, event, auto_cook: bool) -> list[Event]:
    player = before.players[agent]
    held, now = player.held, after.players[agent].held
    pot_before, pot_after = before.pot_at[player.facing], after.pot_at[player.facing]
    out: list[Event] = []
    if held is not None and held.kind == "ingredient" and now is None:
        out.append(event(EventKind.PUT_IN_POT, held))
    elif held is not None and held.kind == "dish" and now is not None and now.kind == "soup":
        out.append(event(EventKind.FILL_DISH, now))
    could_start = (held is not None and held.kind == "ingredient" and now is None) if auto_cook else held is None
    if could_start and pot_before.idle and not pot_after.idle:
        out.append(event(EventKind.START_COOKING, Item("soup", pot_after.ingredients)))
    return out
