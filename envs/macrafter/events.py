"""The MA-Crafter event stream: what each agent's action did, derived from (view, actions, next view).

Belief correction, the process metrics (constraints and capability changes) and the episode's
outcomes build on these records. ``extract_events`` reads only the two symbolic views and the
actions (the last step's attempts and shares ride in the next view), so it is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from envs.macrafter.rules import CRAFTS, NUM_ACTIONS, VECTORS, Action, decode_share
from envs.macrafter.settings import RESOURCE_GIVES
from envs.macrafter.symbolic import CrafterView, Pos


class CrafterEventKind(StrEnum):
    MOVE = "move"
    BLOCKED_MOVE = "blocked_move"  # reason: wall | water | lava | agent | <material>
    COLLECT = "collect"  # one per collected cell a participant got a unit of (item, qty=1)
    COLLECT_FAILED = "collect_failed"  # reason: the target's outcome (too_few, no_tool); one per target
    CRAFT = "craft"  # one per participant that received the item
    CRAFT_FAILED = "craft_failed"
    PLACE = "place"  # item: table | furnace | stone | sapling
    PLACE_FAILED = "place_failed"  # reason: missing_items | occupied | no_table
    SHARE = "share"  # the giver's event; other = the receiver
    SHARE_FAILED = "share_failed"  # reason: nothing | receiver_down
    DRINK = "drink"  # a water cell in reach (qty: 1 drink)
    EAT = "eat"  # item: cow (qty: food gained)
    SLEEP = "sleep"  # fell asleep
    ASLEEP = "asleep"  # slept through its action (a sleeper acts again only when rested)
    WAKE = "wake"
    DOWN = "down"  # health reached 0: the episode ends (EmCoop removes the agent)


@dataclass(frozen=True, slots=True)
class CrafterEvent:
    step: int  # the step at which the action was taken (view.step before it)
    agent: int
    kind: CrafterEventKind
    position: Pos  # the agent's cell before the step
    target: Pos | None = None  # the cell acted on or stepped into
    item: str | None = None  # what was collected, crafted, placed, shared, eaten
    qty: int = 0
    other: int | None = None  # a share's receiver
    participants: tuple[int, ...] = ()  # a collection's or craft's participants
    reason: str | None = None

    def describe(self) -> str:
        what = f"{self.kind.value} {self.item or ''}".rstrip()
        if self.other is not None:
            what += f" to agent {self.other}"
        if len(self.participants) > 1:
            what += f" with agents {', '.join(str(p) for p in self.participants if p != self.agent)}"
        return what + (f" ({self.reason})" if self.reason else "")

    def to_record(self) -> dict:
        return {
            "step": self.step,
            "agent": self.agent,
            "kind": self.kind.value,
            "position": list(self.position),
            "target": None if self.target is None else list(self.target),
            "item": self.item,
            "qty": self.qty,
            "other": self.other,
            "participants": list(self.participants),
            "reason": self.reason,
        }


_PLACED_ITEM = {
    Action.PLACE_STONE: "stone",
    Action.PLACE_TABLE: "table",
    Action.PLACE_FURNACE: "furnace",
    Action.PLACE_PLANT: "sapling",
}


def _ahead(cell: Pos, facing: Pos) -> Pos:
    return (cell[0] + facing[0], cell[1] + facing[1])


def _blocked_reason(view: CrafterView, target: Pos) -> str:
    material = view.material(target)
    if material is None:
        return "wall"
    if view.agent_at(target) is not None:
        return "agent"
    return material.name.lower()


def _collect_events(before: CrafterView, seat: int, after: CrafterView) -> list[CrafterEvent]:
    """One event per target in reach of a seat's ``do``: what it got, or why the target failed."""
    at, step, out = before.agents[seat].position, before.step, []
    for attempt in after.attempts:
        if seat not in attempt.participants:
            continue
        got = attempt.outcome == "ok" and seat in attempt.capable
        item = RESOURCE_GIVES[attempt.target]
        if not got:
            reason = attempt.outcome if attempt.outcome != "ok" else "no_tool"
            out.append(CrafterEvent(step, seat, CrafterEventKind.COLLECT_FAILED, at, attempt.cell, item,
                                    participants=attempt.participants, reason=reason))  # fmt: skip
        elif attempt.target == "water":
            out.append(CrafterEvent(step, seat, CrafterEventKind.DRINK, at, attempt.cell, "water", 1))
        elif attempt.target == "cow":
            qty = after.settings.cow_food
            out.append(CrafterEvent(step, seat, CrafterEventKind.EAT, at, attempt.cell, "cow", qty,
                                    participants=attempt.participants))  # fmt: skip
        else:
            out.append(CrafterEvent(step, seat, CrafterEventKind.COLLECT, at, attempt.cell, item, 1,
                                    participants=attempt.capable))  # fmt: skip
    return out


def _action_events(before: CrafterView, seat: int, action: int, after: CrafterView) -> list[CrafterEvent]:
    """The events of one seat's action, from its result in ``after``."""
    me, result = before.agents[seat], after.results[seat]
    at, step = me.position, before.step
    if result == "asleep":
        return [CrafterEvent(step, seat, CrafterEventKind.ASLEEP, at)]
    if action in (Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN):
        target = _ahead(at, VECTORS[Action(action)])
        if result in ("ok", "died"):
            return [CrafterEvent(step, seat, CrafterEventKind.MOVE, at, target)]
        return [
            CrafterEvent(step, seat, CrafterEventKind.BLOCKED_MOVE, at, target, reason=_blocked_reason(before, target))
        ]
    if action == Action.DO:
        return _collect_events(before, seat, after)
    if action == Action.SLEEP:
        return [CrafterEvent(step, seat, CrafterEventKind.SLEEP, at)] if result == "sleep" else []
    if action in _PLACED_ITEM:
        target, item = _ahead(at, me.facing), _PLACED_ITEM[Action(action)]
        if result == "ok":
            return [CrafterEvent(step, seat, CrafterEventKind.PLACE, at, target, item, 1)]
        return [CrafterEvent(step, seat, CrafterEventKind.PLACE_FAILED, at, target, item, reason=result)]
    if action < len(Action) and Action(action) in CRAFTS:
        name = CRAFTS[Action(action)].name.lower()
        kind = CrafterEventKind.CRAFT if result == "ok" else CrafterEventKind.CRAFT_FAILED
        return [CrafterEvent(step, seat, kind, at, None, name, int(result == "ok"), participants=(seat,),
                             reason=None if result == "ok" else result)]  # fmt: skip
    shared = decode_share(action)
    if shared is not None:
        other, good, _ = shared
        target = before.agents[other].position if other < len(before.agents) else None
        if result == "ok":
            qty = next((q for g, _, _, q in after.shares if g == seat), 0)
            return [CrafterEvent(step, seat, CrafterEventKind.SHARE, at, target, good, qty, other=other)]
        return [CrafterEvent(step, seat, CrafterEventKind.SHARE_FAILED, at, target, good, other=other, reason=result)]
    return []


def extract_events(before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[CrafterEvent]:
    """Per seat in order: its action's events, a wake-up when it woke this step, and DOWN when its
    health ran out. A frozen (already done) step has no events. Reads each seat's result from
    ``after.results`` (which `decode` fills); a view without them yields no events."""
    if before.done or not after.results:
        return []
    events: list[CrafterEvent] = []
    for seat, me in enumerate(before.agents):
        if not me.alive and not after.agents[seat].alive:
            continue
        action = int(actions[seat]) if 0 <= int(actions[seat]) < NUM_ACTIONS else int(Action.NOOP)
        events.extend(_action_events(before, seat, action, after))
        if me.sleeping and not after.agents[seat].sleeping and after.agents[seat].alive:
            events.append(CrafterEvent(before.step, seat, CrafterEventKind.WAKE, me.position))
        if me.alive and not after.agents[seat].alive:
            events.append(CrafterEvent(before.step, seat, CrafterEventKind.DOWN, me.position))
    return events


__all__ = ["CrafterEvent", "CrafterEventKind", "extract_events"]
