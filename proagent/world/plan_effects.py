"""A world's side of COOP²-Repair (`proagent.maeil.repair`): the plan-effect estimate and the
realised outcomes it is scored against, both as `Requirement` records.

Why a world provides them: which cooperative requirements a plan touches (a quorum at an iron
cell, a block's weight) and how an attempt turned out are the world's rules; the repair controller
that acts on them is the same for every world.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from proagent.world.types import State

REQUIREMENT_KINDS: tuple[str, ...] = ("spatial", "temporal", "participation", "dependency")


@dataclass(frozen=True)
class Requirement:
    """One cooperative requirement of one task, predicted or realised: e.g. whether ``iron (12, 30)``
    gets its quorum ("participation"), the seats it involves, and why (a line an agent can read)."""

    task: str
    constraint: str  # one of REQUIREMENT_KINDS
    satisfied: bool
    seats: tuple[int, ...]
    reason: str = ""

    def to_record(self) -> dict:
        return {
            "task": self.task,
            "constraint": self.constraint,
            "satisfied": self.satisfied,
            "seats": list(self.seats),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class PlanEffects:
    """``predict(state, plans)``: from the whole state and each seat's committed plan (a skill such
    as ``collect(iron)``), the requirements of the tasks those plans work on, predicted met or not.
    ``realised(before, actions, after)``: the requirements a step's attempts met or missed, as the
    world's process metrics define them (task names equal to ``predict``'s)."""

    predict: Callable[[State, Mapping[int, str]], Sequence[Requirement]]
    realised: Callable[[State, Sequence[int], State], Sequence[Requirement]]


__all__ = ["REQUIREMENT_KINDS", "PlanEffects", "Requirement"]
