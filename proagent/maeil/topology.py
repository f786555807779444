"""Communication topologies as configuration: who thinks in each cognitive round, who may speak,
to whom, and which arrivals interrupt.

- ``individual``: no messages; agents that need a plan reason side by side.
- ``debate``: an agent that needs a plan asks for a debate; every agent then takes one turn in
  seat order, reading what was said before it and broadcasting before it commits.
- ``centralized``: a leader plans for the team and broadcasts directives; followers adopt them
  (one model call each, side by side) and acknowledge; acknowledgements let the leader resume
  without another call. A follower that needs a plan asks the leader.
- ``decentralized``: anyone may message anyone (``to player k: ...``, else everyone) within a
  per-step budget; an arrival interrupts its receiver, who may answer while it has budget.
- ``broadcast_chain`` (COOP², EmCoop v2): a fixed speaker order (seat order); an agent that plans
  reads the proposals of the earlier speakers this round, commits, and broadcasts its proposal to
  every later speaker, whose running plans it interrupts (each re-plans once a phase, in order).

EmCoop v1's paper ran the first four; COOP² (v2) runs individual, centralized and broadcast chain.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from proagent.bounded import small_whole
from proagent.limits import MAX_MESSAGE_BUDGET
from proagent.llm.sanitize import clean_field
from proagent.maeil.talk import Deliberation, Message, Stage
from proagent.topologies import TOPOLOGIES

TopologyName = Literal["individual", "debate", "centralized", "decentralized", "broadcast_chain"]
assert get_args(TopologyName) == TOPOLOGIES  # one list of names (proagent.topologies, for the command line)
EMCOOP_V1_TOPOLOGIES: tuple[str, ...] = ("individual", "debate", "centralized", "decentralized")  # EmCoop v1's grid
COOP2_STRUCTURES: tuple[str, ...] = ("individual", "centralized", "broadcast_chain")  # COOP²'s communication structures
_TO = re.compile(r"^\s*to\s+((?:player\s*[0-9]+\s*(?:,|and)?\s*)+)[:\-]\s*", re.IGNORECASE)


class TopologyConfig(BaseModel):
    """Recorded with every run that uses MAEIL."""

    model_config = ConfigDict(extra="forbid")
    name: TopologyName = "individual"
    leader: int = Field(
        0, ge=0, description="centralized: the leader's seat (the first talking seat if this one cannot talk)"
    )
    message_budget: int = Field(
        1, ge=0, le=MAX_MESSAGE_BUDGET, description="decentralized: messages each agent may send per environment step"
    )
    max_rounds: int = Field(8, ge=1, description="bound on cognitive rounds per environment step")
    message_max_chars: int = Field(300, ge=20, description="longer messages are cut before delivery")
    repair: Literal["off", "observe", "on"] = Field(
        "off",
        description="COOP²-Repair: check the committed plans before they run (observe: predict and score only; "
        "on: also send targeted guidance to the agents a predicted failure involves, who may revise)",
    )
    repair_window: int = Field(
        30, ge=1, le=10_000, description="steps a prediction waits for the attempt that scores it"
    )
    feedback: bool = Field(
        False,
        description="environment feedback: the world's constraint and dependency snapshot attached to the leader's "
        "messages "
        "(centralized: its directives; debate and decentralized: the messages of seat `leader`)",
    )


@dataclass
class Phase:
    """The cognitive phase before one environment step, as the topology sees it."""

    talkers: tuple[int, ...]
    t_env: int
    stage: dict[int, Stage]
    t_cog: int = 0
    thoughts: Counter = field(default_factory=Counter)  # deliberations this phase, per seat
    sent: Counter = field(default_factory=Counter)  # spoken messages this phase, per seat
    turns_taken: set[int] = field(default_factory=set)  # debate turns
    debating: bool = False
    closing: bool = False  # the round bound was reached: last deliberations, no more messages

    def message(self, sender: int, recipients: tuple[int, ...], text: str, kind: str) -> Message:
        """A message from ``sender`` (set here, by the framework): its text is one clean line."""
        return Message(sender, recipients, clean_field(text, one_line=True), kind, self.t_cog, self.t_env)

    def needing(self) -> list[int]:
        """Talkers in R or I: they must deliberate before they are ready."""
        return [s for s in self.talkers if self.stage[s] in (Stage.REASON, Stage.INTERRUPT)]


class Topology:
    """Individual: no conversation. The base of the others."""

    name = "individual"

    def __init__(self, config: TopologyConfig, talkers: tuple[int, ...]) -> None:
        self.config = config
        self.talkers = talkers

    def role(self, seat: int) -> str:
        return "peer"

    def begin(self, phase: Phase, needing: list[int]) -> list[Message]:
        return []

    def thinkers(self, phase: Phase) -> list[int]:
        return phase.needing()

    def may_send(self, seat: int, phase: Phase) -> bool:
        return False

    def messages(self, seat: int, result: Deliberation, phase: Phase) -> list[Message]:
        return []

    def interrupts(self, receiver: int, message: Message, phase: Phase) -> bool:
        return False

    def resumes_unprompted(self, seat: int, unread: list[Message]) -> bool:
        """An interrupted agent that goes back to its plan without a model call."""
        return False

    def _others(self, seat: int) -> tuple[int, ...]:
        return tuple(s for s in self.talkers if s != seat)

    def feedback_seat(self) -> int | None:
        """The seat whose spoken messages carry environment feedback: ``leader`` where it talks."""
        return self.config.leader if self.config.leader in self.talkers else None


class Debate(Topology):
    name = "debate"

    def begin(self, phase: Phase, needing: list[int]) -> list[Message]:
        if not needing:
            return []
        phase.debating = True
        return [phase.message(s, self._others(s), f"player {s} needs a new plan", "request") for s in needing]

    def thinkers(self, phase: Phase) -> list[int]:
        waiting = [s for s in phase.needing() if s not in phase.turns_taken]
        if waiting:
            return waiting[:1]  # one speaker at a time, in seat order
        return [s for s in phase.needing() if s in phase.turns_taken][:1]  # never left without a plan

    def may_send(self, seat: int, phase: Phase) -> bool:
        return seat not in phase.turns_taken

    def messages(self, seat: int, result: Deliberation, phase: Phase) -> list[Message]:
        first_turn = seat not in phase.turns_taken
        phase.turns_taken.add(seat)
        if not first_turn or not result.message:
            return []
        return [phase.message(seat, self._others(seat), result.message, "say")]

    def interrupts(self, receiver: int, message: Message, phase: Phase) -> bool:
        return phase.debating and receiver not in phase.turns_taken  # later messages wait for the next phase


class Centralized(Topology):
    name = "centralized"

    def __init__(self, config: TopologyConfig, talkers: tuple[int, ...]) -> None:
        super().__init__(config, talkers)
        self.leader = config.leader if config.leader in talkers else (talkers[0] if talkers else -1)

    def role(self, seat: int) -> str:
        return "leader" if seat == self.leader else "follower"

    def feedback_seat(self) -> int | None:
        return self.leader if self.leader >= 0 else None

    def begin(self, phase: Phase, needing: list[int]) -> list[Message]:
        return [
            phase.message(s, (self.leader,), f"player {s} needs a new plan", "request")
            for s in needing
            if s != self.leader
        ]

    def thinkers(self, phase: Phase) -> list[int]:
        needing = phase.needing()
        if self.leader in needing:
            return [self.leader]  # the leader's directives come first
        return needing

    def may_send(self, seat: int, phase: Phase) -> bool:
        return seat == self.leader and phase.sent[seat] == 0

    def messages(self, seat: int, result: Deliberation, phase: Phase) -> list[Message]:
        if seat == self.leader:
            if phase.sent[seat]:
                return []
            phase.sent[seat] += 1
            return [phase.message(seat, self._others(seat), result.message or "(no directive)", "directive")]
        return [phase.message(seat, (self.leader,), f"ack: {result.plan}", "ack")]

    def interrupts(self, receiver: int, message: Message, phase: Phase) -> bool:
        if message.kind == "ack":
            return True
        return phase.thoughts[receiver] <= 1  # each follower adopts one directive per step; the leader answers requests

    def resumes_unprompted(self, seat: int, unread: list[Message]) -> bool:
        return seat == self.leader and bool(unread) and all(m.kind == "ack" for m in unread)


class Decentralized(Topology):
    name = "decentralized"

    def may_send(self, seat: int, phase: Phase) -> bool:
        return phase.sent[seat] < self.config.message_budget

    def messages(self, seat: int, result: Deliberation, phase: Phase) -> list[Message]:
        if not result.message or not self.may_send(seat, phase):
            return []
        phase.sent[seat] += 1
        recipients, text = self._addressed(seat, result.message)
        return [phase.message(seat, recipients, text, "say")] if recipients else []

    def interrupts(self, receiver: int, message: Message, phase: Phase) -> bool:
        return phase.thoughts[receiver] <= self.config.message_budget  # bounded: at most budget + 1 thoughts a step

    def _addressed(self, seat: int, text: str) -> tuple[tuple[int, ...], str]:
        """``to player 2, player 3: ...`` addresses those; anything else goes to every teammate."""
        match = _TO.match(text)
        if not match:
            return self._others(seat), text
        named = tuple(small_whole(n) for n in re.findall(r"[0-9]+", match.group(1)))  # "player 99999..." names no one
        return tuple(s for s in self._others(seat) if s in named), text[match.end():]


class BroadcastChain(Topology):
    """COOP²'s Broadcast Chain (EmCoop's ``comm_topology/llm_broadcast_chain.py``): speakers in a
    fixed order. Why one thinker at a time: a later speaker must read what every earlier one
    proposed this round before it commits. The broadcast is the committed plan (as EmCoop's, which
    builds it from the plan, not from model prose), followed by the speaker's own message when it
    wrote one; it interrupts later speakers that were executing, who re-plan once a phase."""

    name = "broadcast_chain"

    def role(self, seat: int) -> str:
        order = self.talkers.index(seat) if seat in self.talkers else 0
        if order == 0:
            return "first speaker"
        if order == len(self.talkers) - 1:
            return "final speaker"
        return f"speaker {order + 1} of {len(self.talkers)}"

    def thinkers(self, phase: Phase) -> list[int]:
        return phase.needing()[:1]  # the earliest speaker that needs a plan; talkers are in seat order

    def may_send(self, seat: int, phase: Phase) -> bool:
        return phase.sent[seat] == 0 and bool(self._later(seat))

    def messages(self, seat: int, result: Deliberation, phase: Phase) -> list[Message]:
        later = self._later(seat)
        if not later or phase.sent[seat]:
            return []
        phase.sent[seat] += 1
        text = f"proposed plan: {result.plan}" + (f". {result.message}" if result.message else "")
        return [phase.message(seat, later, text[: self.config.message_max_chars], "say")]

    def interrupts(self, receiver: int, message: Message, phase: Phase) -> bool:
        return receiver in self._later(message.sender) and phase.thoughts[receiver] == 0

    def _later(self, seat: int) -> tuple[int, ...]:
        return tuple(s for s in self.talkers if s > seat)


_KINDS: dict[str, type[Topology]] = {
    "individual": Topology,
    "debate": Debate,
    "centralized": Centralized,
    "decentralized": Decentralized,
    "broadcast_chain": BroadcastChain,
}


def make_topology(config: TopologyConfig, talkers: tuple[int, ...]) -> Topology:
    return _KINDS[config.name](config, talkers)
