"""The lamps skills: one `SkillDef` per skill, read every way the agent needs it.

Each definition carries the planner's wording (a Jinja text that reads the knowledge facts, so
``{{ duration }}`` is the env's real setting), the Verificator's precondition checks (worded for
the failure explainer) and the done-test. The controller (Gamma) turns a skill into one primitive
action per step; the scripted walker partner uses the same controller, so it differs from ProAgent
only in which skill it picks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from lamps_world.env import Action, LampEvent, LineState
from proagent.domains.base import WAIT, Skill, SkillParseError

MAX_WAIT = 5

Failures = Callable[[LineState, int, Skill], list[str]]
Done = Callable[[LineState, int, Skill, int], bool]


@dataclass(frozen=True)
class SkillDef:
    """One skill: its signature and description for the prompt, its checks and its done-test."""

    name: str
    signature: str
    description: str  # a knowledge text: may read the knowledge facts ({{ duration }})
    args: Literal["lamp", "steps"] | None
    failures: Failures
    done: Done


def _go_failures(state: LineState, seat: int, skill: Skill) -> list[str]:
    lamp = int(skill.arg or 0)
    if lamp >= len(state.lamp_cells):
        return [f"there is no lamp {lamp} (lamps are 0..{len(state.lamp_cells) - 1})"]
    if state.positions[seat] == state.lamp_cells[lamp]:
        return [f"you are already at lamp {lamp}"]
    return []


def _press_failures(state: LineState, seat: int, skill: Skill) -> list[str]:
    lamp = state.lamp_at(state.positions[seat])
    if lamp is None:
        return [f"you are not standing on a lamp (you are at cell {state.positions[seat]})"]
    if state.timers[lamp] > 0:
        return [f"lamp {lamp} is already lit for {state.timers[lamp]} more steps"]
    return []


def _at_lamp(state: LineState, seat: int, skill: Skill, steps: int) -> bool:
    lamp = int(skill.arg or 0)
    return lamp < len(state.lamp_cells) and state.positions[seat] == state.lamp_cells[lamp]


SKILLS: tuple[SkillDef, ...] = (
    SkillDef(
        "go_to_lamp", "go_to_lamp(i)", "walk to lamp i, one cell a step, and stop on it", "lamp", _go_failures, _at_lamp
    ),
    SkillDef(
        "press",
        "press()",
        "press the lamp you stand on: a dark lamp lights for {{ duration }} steps",
        None,
        _press_failures,
        lambda state, seat, skill, steps: steps >= 1,  # a press takes one step, whatever it did
    ),
    SkillDef(
        WAIT,
        "wait(n)",
        f"stay where you are for n steps (1 to {MAX_WAIT})",
        "steps",
        lambda state, seat, skill: [],
        lambda state, seat, skill, steps: steps >= int(skill.arg or 1),
    ),
)

_CALL = re.compile(r"([a-z_]+)\s*\(\s*['\"]?([^)'\"]*)['\"]?\s*\)")


class Spot(NamedTuple):
    """What an undo cycle leaves unchanged: where the agent stands (walking away and back is a loop)."""

    held: int


class LampsSkillBook:
    """The skills of one line (its lamp count decides the go_to_lamp arguments)."""

    def __init__(self, num_lamps: int) -> None:
        self.num_lamps = num_lamps
        self.specs: dict[str, SkillDef] = {d.name: d for d in SKILLS}

    @classmethod
    def for_state(cls, state: LineState) -> LampsSkillBook:
        return cls(len(state.lamp_cells))

    def all_skills(self) -> list[Skill]:
        """Every concrete skill the planner may name."""
        out: list[Skill] = []
        for spec in self.specs.values():
            if spec.args == "lamp":
                out += [Skill(spec.name, i) for i in range(self.num_lamps)]
            elif spec.args == "steps":
                out += [Skill(spec.name, n) for n in range(1, MAX_WAIT + 1)]
            else:
                out.append(Skill(spec.name))
        return out

    def parse(self, text: str) -> Skill:
        """A skill from free text: ``go_to_lamp(1)``, ``press()``, ``wait(2)``; a bare name means no argument."""
        cleaned = text.strip().lower().replace("-", "_")
        match = _CALL.search(cleaned)
        name, arg = (match.group(1), match.group(2).strip()) if match else (cleaned.strip("` .*"), "")
        spec = self.specs.get(name)
        if spec is None:
            raise SkillParseError(f"unknown skill {name!r}; expected one of {[s.signature for s in SKILLS]}", text)
        if spec.args is None:
            return Skill(name)
        if not arg.isdigit():
            raise SkillParseError(f"{spec.signature}: the argument must be a whole number, got {arg!r}", text)
        value = int(arg)
        bound = self.num_lamps - 1 if spec.args == "lamp" else MAX_WAIT
        low = 0 if spec.args == "lamp" else 1
        if not low <= value <= bound:
            raise SkillParseError(f"{spec.signature}: the argument must be between {low} and {bound}", text)
        return Skill(name, value)

    def failures(self, state: LineState, seat: int, skill: Skill) -> list[str]:
        return self.specs[skill.name].failures(state, seat, skill)

    def is_done(self, state: LineState, seat: int, skill: Skill, steps: int) -> bool:
        return self.specs[skill.name].done(state, seat, skill, steps)

    def is_progress(self, event: LampEvent, seat: int) -> bool:
        """A lamp lit or the line completed, by anyone, is progress (it clears the loop guard)."""
        return event.kind in ("light", "complete")

    def undo_state(self, state: LineState, seat: int) -> Spot:
        return Spot(state.positions[seat])

    @staticmethod
    def skill_of_event(event: LampEvent) -> Skill | None:
        """The teammate's completed skill, for belief correction (a completion completes no skill of its own)."""
        if event.kind == "arrive":
            return Skill("go_to_lamp", event.lamp)
        if event.kind in ("light", "wasted_press"):
            return Skill("press")
        return None


class LineController:
    """Gamma(skill, state): one primitive action per step. A line needs no search: step toward the target."""

    def __init__(self, book: LampsSkillBook, seat: int, seed: int = 0) -> None:
        self.book = book
        self.seat = seat

    def act(self, state: LineState, skill: Skill) -> int:
        if skill.name == "press":
            return int(Action.PRESS)
        if skill.name == "go_to_lamp":
            return int(step_toward(state.positions[self.seat], state.lamp_cells[int(skill.arg or 0)]))
        return int(Action.STAY)


def step_toward(cell: int, target: int) -> Action:
    if target < cell:
        return Action.LEFT
    if target > cell:
        return Action.RIGHT
    return Action.STAY
