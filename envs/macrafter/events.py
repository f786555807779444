"""The MA-Crafter event stream: what each agent's action did, derived from (view, actions, next view).

Belief correction, the process metrics (constraints and capability changes) and the episode's
outcomes build on these records. ``extract_events`` reads only the two symbolic views and the
actions (the last step's attempts and shares ride in the next view), so it is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from envs.macrafter.rules import CRAFTS, NUM_ACTIONS, VECTORS, WALKABLE, Action, decode_share
from envs.macrafter.symbolic import Attempt, CrafterView, Pos


class CrafterEventKind(StrEnum):
    MOVE = "move"
    BLOCKED_MOVE = "blocked_move"  # reason: wall | water | lava | agent | <material>
    COLLECT = "collect"  # one per participant that received a unit (item, qty=1); also a sapling found on grass
    COLLECT_FAILED = "collect_failed"  # reason: the attempt's outcome (too_few, no_tool, ...)
    CRAFT = "craft"  # one per participant that received the item
    CRAFT_FAILED = "craft_failed"
    PLACE = "place"  # item: table | furnace | stone | sapling
    PLACE_FAILED = "place_failed"  # reason: missing_items | occupied | no_table
    SHARE = "share"  # the giver's event; other = the receiver
    SHARE_FAILED = "share_failed"  # reason: missing_items | out_of_reach | receiver_down
    DRINK = "drink"
    EAT = "eat"  # item: cow | plant
    SLEEP = "sleep"  # fell asleep
    WAKE = "wake"
    DOWN = "down"  # health reached 0: the agent is out for the rest of the episode
    ATTACKED = "attacked"  # the agent's DO hit a creature (item: its kind) that survived
    CREATURE_KILLED = "creature_killed"  # the agent's DO (with any others that step) killed a creature
    AGENT_DAMAGED = "agent_damaged"  # a creature hurt the agent (qty: health lost)


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
_GIVES = {"tree": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond"}
_EATEN = {"eat_cow": "cow", "eat_plant": "plant"}


def _ahead(cell: Pos, facing: Pos) -> Pos:
    return (cell[0] + facing[0], cell[1] + facing[1])


def _line_target(view: CrafterView, cell: Pos, facing: Pos) -> Pos:
    """The first non-walkable cell along the facing line (the faced cell when there is none)."""
    here = _ahead(cell, facing)
    while view.material(here) is not None:
        if view.material(here) not in WALKABLE:
            return here
        here = _ahead(here, facing)
    return _ahead(cell, facing)


def _blocked_reason(view: CrafterView, target: Pos) -> str:
    material = view.material(target)
    if material is None:
        return "wall"
    if material in WALKABLE and view.agent_at(target) is None and view.creature_at(target) is not None:
        return "creature"
    return "agent" if material in WALKABLE else material.name.lower()


def _attempt_of(view: CrafterView, seat: int, kind: str) -> Attempt | None:
    return next((a for a in view.attempts if a.kind == kind and seat in a.participants), None)


def _action_event(before: CrafterView, seat: int, action: int, after: CrafterView) -> CrafterEvent | None:
    """The event of one awake seat's action, from its result in ``after``."""
    me, result = before.agents[seat], after.results[seat]
    at = me.position
    step = before.step
    if action in (Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN):
        target = _ahead(at, VECTORS[Action(action)])
        if result == "ok":
            return CrafterEvent(step, seat, CrafterEventKind.MOVE, at, target)
        return CrafterEvent(
            step, seat, CrafterEventKind.BLOCKED_MOVE, at, target, reason=_blocked_reason(before, target)
        )
    if action == Action.DO and result in ("hit", "kill"):
        kind = CrafterEventKind.CREATURE_KILLED if result == "kill" else CrafterEventKind.ATTACKED
        return CrafterEvent(step, seat, kind, at, _ahead(at, me.facing), after.struck[seat], 1)
    if action == Action.DO:
        attempt = _attempt_of(after, seat, "collect")
        if attempt is not None:
            ok = attempt.outcome == "ok" and seat in attempt.capable
            kind = CrafterEventKind.COLLECT if ok else CrafterEventKind.COLLECT_FAILED
            reason = None if ok else (attempt.outcome if attempt.outcome != "ok" else "no_tool")
            item = _GIVES[attempt.target]
            return CrafterEvent(
                step, seat, kind, at, attempt.cell, item, int(ok), participants=attempt.participants, reason=reason
            )
        target = _line_target(before, at, me.facing)
        if result == "drink":
            return CrafterEvent(step, seat, CrafterEventKind.DRINK, at, target, "water", 1)
        if result in _EATEN:
            return CrafterEvent(step, seat, CrafterEventKind.EAT, at, target, _EATEN[result], 1)
        if result == "sapling":
            target = _ahead(at, me.facing)
            return CrafterEvent(step, seat, CrafterEventKind.COLLECT, at, target, "sapling", 1, participants=(seat,))
        return None
    if action == Action.SLEEP:
        return CrafterEvent(step, seat, CrafterEventKind.SLEEP, at) if result == "sleep" else None
    if action in _PLACED_ITEM:
        target = _ahead(at, me.facing)
        if result == "ok":
            return CrafterEvent(step, seat, CrafterEventKind.PLACE, at, target, _PLACED_ITEM[Action(action)], 1)
        return CrafterEvent(
            step, seat, CrafterEventKind.PLACE_FAILED, at, target, _PLACED_ITEM[Action(action)], reason=result
        )
    if action < len(Action) and Action(action) in CRAFTS:
        name = CRAFTS[Action(action)].name.lower()
        attempt = _attempt_of(after, seat, "craft")
        participants = attempt.participants if attempt is not None else (seat,)
        cell = attempt.cell if attempt is not None else None
        if result == "ok":
            return CrafterEvent(step, seat, CrafterEventKind.CRAFT, at, cell, name, 1, participants=participants)
        return CrafterEvent(
            step, seat, CrafterEventKind.CRAFT_FAILED, at, cell, name, participants=participants, reason=result
        )
    shared = decode_share(action)
    if shared is not None:
        other, item = shared
        target = before.agents[other].position if other < len(before.agents) else None
        if result == "ok":
            return CrafterEvent(step, seat, CrafterEventKind.SHARE, at, target, item.name.lower(), 1, other=other)
        return CrafterEvent(
            step, seat, CrafterEventKind.SHARE_FAILED, at, target, item.name.lower(), other=other, reason=result
        )
    return None


def extract_events(before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[CrafterEvent]:
    """Per seat in order: a wake-up (a sleeper's action or a full rest), its action's event, and
    DOWN when its health ran out. A frozen (already done) step has no events. Reads each seat's
    result from ``after.results`` (which `decode` fills); a view without them yields no events."""
    if before.done or not after.results:
        return []
    events: list[CrafterEvent] = []
    for seat, me in enumerate(before.agents):
        if not me.alive:
            continue
        action = int(actions[seat]) if 0 <= int(actions[seat]) < NUM_ACTIONS else int(Action.NOOP)
        woken = me.sleeping and action not in (Action.NOOP, Action.SLEEP)
        if woken:
            events.append(CrafterEvent(before.step, seat, CrafterEventKind.WAKE, me.position))
        if not me.sleeping or woken:
            event = _action_event(before, seat, action, after)
            if event is not None:
                events.append(event)
        elif not after.agents[seat].sleeping and after.agents[seat].alive:
            events.append(CrafterEvent(before.step, seat, CrafterEventKind.WAKE, me.position))
        if after.damage and after.damage[seat] > 0:
            events.append(
                CrafterEvent(before.step, seat, CrafterEventKind.AGENT_DAMAGED, me.position, qty=after.damage[seat])
            )
        if not after.agents[seat].alive:
            events.append(CrafterEvent(before.step, seat, CrafterEventKind.DOWN, me.position))
    return events


__all__ = ["CrafterEvent", "CrafterEventKind", "extract_events"]
