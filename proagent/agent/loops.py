"""The undo-loop check: a named Verificator check against degenerate skill cycles.

A small model can alternate skills that cancel each other (pick an object up from a counter, put it
back, again and again, maybe with a wait in between) forever: each is legal, each "succeeds", and
nothing changes. The precondition checks cannot see this, because it is a property of the recent
history, not of the state. This guard remembers, at each decision, what an undo leaves unchanged
(the skill book's ``undo_state``: in Overcooked the agent's hands and the counters) and the skill chosen there.
Any progress event (the skill book's ``is_progress``: in Overcooked an ingredient into a
cooking vessel, a delivery, a hand-over the teammate took) clears the history. A loop is detected when the state is
back to what it was at an earlier decision, the agent's hands changed in between (so later skills undid
that decision's skill) and nothing progressed since; choosing that decision's skill again is then
rejected with the reason, and the planner re-plans.

The agent counts detections whether or not the check is on (``oscillations``), so raw model
behaviour can be studied with the check off and compared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from proagent.agent.records import LoopRecord
from proagent.world.types import Event, Skill, SkillBook, State, UndoState

WINDOW = 8  # decisions remembered since the last progress; a cycle longer than this is not looked for


@dataclass(frozen=True)
class _Mark:
    """The agent's state at one decision and the skill chosen there."""

    step: int
    state: UndoState
    skill: Skill


@dataclass(frozen=True)
class Loop:
    """A skill that would repeat an undo cycle, and the reason the Verificator gives; ``since_step``
    is the decision that chose it before and ``undone_by`` the skills that undid it since (what the
    trace records, so a replay can show where the agent looped)."""

    skill: Skill
    reason: str
    since_step: int = 0
    undone_by: tuple[str, ...] = ()


class UndoLoopGuard:
    """Tracks one agent's decisions; `blocked` names the skills that would repeat an undo cycle."""

    def __init__(self, book: SkillBook, seat: int, window: int = WINDOW) -> None:
        self.book = book
        self.seat = seat
        self.window = window
        self._marks: list[_Mark] = []  # decisions since the last progress event, oldest first

    def observe(self, events: Iterable[Event]) -> None:
        """Events of the last step; a progress event means no earlier decision is part of a loop."""
        if any(self.book.is_progress(e, self.seat) for e in events):
            self._marks.clear()

    def blocked(self, state: State) -> list[Loop]:
        """The skills this decision must not choose, and why (empty when there is no loop)."""
        now = self.book.undo_state(state, self.seat)
        loops: dict[Skill, Loop] = {}
        for i, mark in enumerate(self._marks):
            later = self._marks[i + 1 :]
            hands_changed = any(m.state.own != mark.state.own for m in later)
            if mark.state == now and hands_changed and mark.skill not in loops:
                undone_by = ", ".join(str(m.skill) for m in later)
                reason = (
                    f"it would repeat {mark.skill}, which {undone_by} undid: your hands and the counters are as they "
                    f"were at step {mark.step} and nothing was gained since; do something else"
                )
                loops[mark.skill] = Loop(mark.skill, reason, mark.step, tuple(str(m.skill) for m in later))
        return list(loops.values())

    def record(self, state: State, skill: Skill) -> None:
        """Remember the decision taken in ``state``."""
        mark = _Mark(state.step, self.book.undo_state(state, self.seat), skill)
        self._marks = [*self._marks, mark][-self.window :]


def loop_record(loop: Loop, blocked: bool) -> LoopRecord:
    """The trace's record of a detection (``blocked``: the check was on, so the skill was refused)."""
    return LoopRecord(
        skill=str(loop.skill), since_step=loop.since_step, undone_by=list(loop.undone_by), blocked=blocked
    )
