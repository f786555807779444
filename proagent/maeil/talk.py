"""What agents say to each other and what a deliberating agent is told: stages, messages, talk.

An agent is in one MAEIL stage at a time: Reason (choosing a plan), eXecute (acting on a committed
plan), Wait (ready: a plan and no conversation pending) or Interrupt (a message arrived while it
executed or waited: it re-plans or resumes). A message is a payload with a recipient set; each
agent's unread messages sit in its buffer until it next deliberates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from proagent.contract import Observation
from proagent.world.types import Event


class Stage(StrEnum):
    REASON = "R"
    EXECUTE = "X"
    WAIT = "W"
    INTERRUPT = "I"


# Message kinds: what the model wrote ("say", a leader's "directive") and what the protocol sends
# without a model call ("request": an agent needs a new plan; "ack": a follower adopted a directive).
SPOKEN_KINDS = ("say", "directive")
# How a recipient sees environment feedback attached to a message: the world's truth, not the sender's words.
# (no quote marks: prompts may render messages as JSON strings, which escape them)
FEEDBACK_LABEL = "[environment feedback, the true state of the world:]"


@dataclass(frozen=True)
class Message:
    sender: int
    recipients: tuple[int, ...]
    text: str
    kind: str  # say | directive | request | ack
    t_cog: int  # the cognitive clock when it was sent
    t_env: int  # the environment step it was sent before
    feedback: str | None = (
        None  # environment feedback attached by the framework (``--feedback``), not written by the sender
    )

    def to_record(self) -> dict:
        """The trace's record: ``kind`` "message", its own kind under ``type``; ``feedback`` when attached."""
        record = {
            "kind": "message",
            "type": self.kind,
            "from": self.sender,
            "to": list(self.recipients),
            "text": self.text,
        }
        record |= {"t_cog": self.t_cog, "t_env": self.t_env}
        if self.feedback is not None:
            record["feedback"] = self.feedback
        return record

    @property
    def shown(self) -> str:
        """What the recipient reads: the text, then any environment feedback, labelled as such."""
        if self.feedback is None:
            return self.text
        return f"{self.text} {FEEDBACK_LABEL} {self.feedback}"


@dataclass(frozen=True)
class Talk:
    """The conversation as one deliberating agent sees it: its role, its unread messages, whether it
    may send one now, and the plan it is executing (when interrupted)."""

    topology: str
    role: str  # peer | leader | follower
    inbox: tuple[Message, ...]
    may_send: bool
    current_plan: str | None
    teammates: tuple[int, ...]

    def to_prompt(self) -> dict:
        """The template variables (`talk` in planner_user.j2)."""
        return {
            "topology": self.topology,
            "role": self.role,
            "messages": [{"from": m.sender, "text": m.shown, "kind": m.kind} for m in self.inbox],
            "may_send": self.may_send,
            "current_plan": self.current_plan,
            "teammates": list(self.teammates),
        }


@dataclass(frozen=True)
class Deliberation:
    """A deliberation's outcome: the committed plan, the message to send (None: nothing to say), and
    whether an interrupted agent kept its running plan (a resumption) rather than re-planning."""

    plan: str
    message: str | None
    resumed: bool


@runtime_checkable
class Deliberative(Protocol):
    """An agent that can take part in MAEIL: its `act` split into observe / deliberate / execute."""

    def prepare(self, obs: Observation, events: Sequence[Event]) -> bool:
        """Read the step's events and judge the running plan; True when it needs a new plan."""
        ...

    async def deliberate(self, obs: Observation, talk: Talk) -> Deliberation:
        """Reason (or re-plan after an interruption) with the conversation in view; commit a plan."""
        ...

    def execute(self, obs: Observation) -> int:
        """The primitive action of the committed plan."""
        ...
