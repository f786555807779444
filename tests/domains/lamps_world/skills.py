"""The lamps skills as rows of the world kit's table, and Gamma: one primitive action per step."""

from __future__ import annotations

from lamps_world.env import Action, LampEvent, LineState
from proagent.world.kit.skills import ArgRange, SkillDef, TableSkillBook, after_steps, no_failures
from proagent.world.types import WAIT, Skill, UndoState

MAX_WAIT = 5


def _go_failures(state: LineState, seat: int, skill: Skill) -> list[str]:
    return [f"you are already at lamp {skill.arg}"] if state.positions[seat] == state.lamp_cells[int(skill.arg or 0)] else []


def _press_failures(state: LineState, seat: int, skill: Skill) -> list[str]:
    lamp = state.lamp_at(state.positions[seat])
    if lamp is None:
        return [f"you are not standing on a lamp (you are at cell {state.positions[seat]})"]
    return [f"lamp {lamp} is already lit for {state.timers[lamp]} more steps"] if state.timers[lamp] > 0 else []


SKILLS = (
    SkillDef("go_to_lamp", "go_to_lamp(i)", "walk to lamp i, one cell a step, and stop on it", "lamp", _go_failures,
             lambda state, seat, skill, steps: state.positions[seat] == state.lamp_cells[int(skill.arg or 0)]),
    SkillDef("press", "press()", "press the lamp you stand on: a dark lamp lights for {{ duration }} steps", None,
             _press_failures, lambda state, seat, skill, steps: steps >= 1),
    SkillDef(WAIT, "wait(n)", f"stay where you are for n steps (1 to {MAX_WAIT})", "steps", no_failures, after_steps),
)


def _skill_of_event(event: LampEvent) -> Skill | None:  # a teammate's completed skill (belief correction)
    if event.kind == "arrive":
        return Skill("go_to_lamp", event.lamp)
    return Skill("press") if event.kind in ("light", "wasted_press") else None


def skill_book(state: LineState) -> TableSkillBook:
    """A lamp lit or the line completed, by anyone, is progress; an undo is walking away and back."""
    ranges = {"lamp": ArgRange(0, len(state.lamp_cells) - 1), "steps": ArgRange(1, MAX_WAIT)}
    own_cell = lambda s, seat: UndoState(s.positions[seat])
    return TableSkillBook(SKILLS, ranges, frozenset({"light", "complete"}), own_cell, _skill_of_event)


class LineController:
    """Gamma(skill, state): press, or step toward the named lamp, or stay."""

    def __init__(self, book: TableSkillBook, seat: int, seed: int = 0) -> None:
        self.seat = seat

    def act(self, state: LineState, skill: Skill) -> int:
        if skill.name == "press":
            return int(Action.PRESS)
        if skill.name == "go_to_lamp":
            here, target = state.positions[self.seat], state.lamp_cells[int(skill.arg or 0)]
            return int(Action.LEFT if target < here else Action.RIGHT if target > here else Action.STAY)
        return int(Action.STAY)
