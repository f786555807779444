"""One table-driven skill book for every world: skills are rows of data, not classes.

A world lists its skills as `SkillDef` rows (the prompt's signature and description, the
Verificator's precondition checks worded for the failure explainer, the done-test) and says which
values each argument kind takes (`ArgRange`); `TableSkillBook` reads that table every way the agent
needs it (all concrete skills, parsing a model's ``name(arg)``, checks, done-tests, progress, the
undo view, the event -> skill inverse). `parse_call` is the one parser of a ``name(args)`` text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from proagent.world.types import Event, Skill, SkillParseError, State, UndoState

Failures = Callable[[Any, int, Skill], list[str]]  # (state, seat, skill) -> unmet preconditions
Done = Callable[[Any, int, Skill, int], bool]  # (state, seat, skill, steps taken) -> finished

_CALL = re.compile(r"([a-z_]+)\s*\(\s*['\"]?([^)'\"]*)['\"]?\s*\)")


def parse_call(text: str) -> tuple[str, str]:
    """``(name, argument text)`` of the first ``name(arg)`` in ``text`` (lower-cased, ``-`` read as
    ``_``); a bare word is a name without argument. Quotes around the argument are dropped."""
    cleaned = text.strip().lower().replace("-", "_")
    match = _CALL.search(cleaned)
    if match is None:
        return cleaned.strip("` .*"), ""
    return match.group(1), match.group(2).strip()


def no_failures(state: Any, seat: int, skill: Skill) -> list[str]:
    """The check of a skill that may always run (wait, plain moves)."""
    return []


def after_steps(state: Any, seat: int, skill: Skill, steps: int) -> bool:
    """The done-test of ``wait(n)`` and other step-counted skills: n steps taken (1 without n)."""
    return steps >= int(skill.arg or 1)


@dataclass(frozen=True)
class ArgRange:
    """The whole numbers an argument kind takes: ``low`` .. ``high`` inclusive."""

    low: int
    high: int

    def values(self) -> range:
        return range(self.low, self.high + 1)


@dataclass(frozen=True)
class SkillDef:
    """One skill: its wording for the prompt, its checks and its done-test.

    ``args`` names the argument kind (a key of the book's ranges, e.g. ``"block"``, ``"steps"``), or
    None for a skill without argument. ``description`` is a knowledge text: it may read the
    knowledge facts (``{{ duration }}``), so it states the env's real settings. ``tag`` is the
    world's own datum for the row (CUBE: the push direction), unused by the book.
    """

    name: str
    signature: str
    description: str
    args: str | None
    failures: Failures
    done: Done
    tag: Hashable = None


@dataclass(frozen=True)
class TableSkillBook:
    """A world's skill book read from its table of `SkillDef` rows.

    ``ranges`` gives each argument kind's values for this layout (block indices, lamp indices,
    steps); ``progress`` the event kinds that move the team forward (they clear the loop guard);
    ``undo`` the loop guard's view of a state; ``event_skill`` the skill an event completes (belief
    correction), without a state.
    """

    rows: Sequence[SkillDef]
    ranges: Mapping[str, ArgRange]
    progress: frozenset[str]
    undo: Callable[[Any, int], UndoState]
    event_skill: Callable[[Any], Skill | None]
    specs: dict[str, SkillDef] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "specs", {row.name: row for row in self.rows})

    def all_skills(self) -> list[Skill]:
        """Every concrete skill the planner may name, in table order."""
        out: list[Skill] = []
        for spec in self.rows:
            if spec.args is None:
                out.append(Skill(spec.name))
            else:
                out += [Skill(spec.name, v) for v in self.ranges[spec.args].values()]
        return out

    def parse(self, text: str) -> Skill:
        """A skill from free text (``push(1)``, ``press()``, ``wait(2)``); SkillParseError says why not."""
        name, arg = parse_call(text)
        spec = self.specs.get(name)
        if spec is None:
            raise SkillParseError(f"unknown skill {name!r}; expected one of {[s.signature for s in self.rows]}", text)
        if spec.args is None:
            return Skill(name)
        if not arg.isdigit():
            raise SkillParseError(f"{spec.signature}: the argument must be a whole number, got {arg!r}", text)
        value, bounds = int(arg), self.ranges[spec.args]
        if not bounds.low <= value <= bounds.high:
            raise SkillParseError(f"{spec.signature}: the argument must be between {bounds.low} and {bounds.high}", text)
        return Skill(name, value)

    def failures(self, state: State, seat: int, skill: Skill) -> list[str]:
        return self.specs[skill.name].failures(state, seat, skill)

    def is_done(self, state: State, seat: int, skill: Skill, steps: int) -> bool:
        return bool(self.specs[skill.name].done(state, seat, skill, steps))

    def is_progress(self, event: Event, seat: int) -> bool:
        return str(event.kind) in self.progress  # type: ignore[attr-defined]

    def undo_state(self, state: State, seat: int) -> UndoState:
        return self.undo(state, seat)

    def skill_of_event(self, event: Event) -> Skill | None:
        return self.event_skill(event)

    def signatures(self) -> list[str]:
        return [spec.signature for spec in self.rows]
