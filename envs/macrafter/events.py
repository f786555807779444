"""The MA-Crafter event stream: what each agent's action did, derived from (view, actions, next view).

Belief correction, the process metrics (constraints and capability changes) and the episode's
outcomes build on these records. ``extract_events`` reads only the two symbolic views and the
actions (the last step's attempts and shares ride in the next view), so it is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from envs.macrafter.symbolic import Pos


class CrafterEventKind(StrEnum):
    MOVE = "move"
    BLOCKED_MOVE = "blocked_move"  # reason: wall | water | lava | agent | <material>
    COLLECT = "collect"  # one per participant that received a unit (item, qty=1)
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


__all__ = ["CrafterEvent", "CrafterEventKind"]
