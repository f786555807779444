"""One table-driven skill book for every world: skills are rows of data, not classes.

A world lists its skills as `SkillDef` rows (the prompt's signature and description, the
Verificator's precondition checks worded for the failure explainer, the done-test, the cells a
controller walks to) and says which values each argument kind takes (`ArgRange`, `ArgChoices`);
`TableSkillBook` reads that table every way the agent needs it (all concrete skills, parsing a
model's ``name(arg)``, checks, done-tests, targets, progress, the undo view, the event -> skill
inverse). `parse_call` is the one parser of a ``name(args)`` text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proagent.bounded import NumberError, read_int
from proagent.world.types import Event, Skill, SkillParseError, State, UndoState

Failures = Callable[[Any, int, Skill], list[str]]  # (state, seat, skill) -> unmet preconditions
Done = Callable[[Any, int, Skill, int], bool]  # (state, seat, skill, steps taken) -> finished
Targets = Callable[[Any, Skill], tuple]  # (state, skill) -> the cells the controller may walk to

_CALL = re.compile(r"([a-z_]+)\s*\(\s*['\"]?([a-z0-9_]*)['\"]?\s*\)")
_ANY_CALL = re.compile(r"([a-z_]+)\s*\(([^)]*)\)")
_WORD = re.compile(r"[a-z_]+")


def parse_call(text: str, known: Iterable[str]) -> tuple[str, str]:
    """``(name, argument text)`` of the first ``name(arg)`` in ``text``, tolerant of case, quotes,
    spaces, ``-`` for ``_``, list markers and a missing ``()`` (a bare known name has no argument).
    SkillParseError where a known skill's argument cannot be read (``wait(2.5)``: an error, not
    ``wait(1)``) or no skill call is found."""
    cleaned, names = text.strip().lower().replace("-", "_"), set(known)
    match = _CALL.search(cleaned)
    if match is not None:
        return match.group(1), match.group(2)
    call = _ANY_CALL.search(cleaned)
    if call is not None and call.group(1) in names:
        raise SkillParseError(f"{call.group(0)}: cannot read the argument {call.group(2).strip()!r}", text)
    bare = _WORD.search(cleaned)
    if bare is None or bare.group(0) not in names:
        raise SkillParseError(f"no skill call found in {text!r}; expected one of {sorted(names)}", text)
    return bare.group(0), ""


def no_failures(state: Any, seat: int, skill: Skill) -> list[str]:
    """The check of a skill that may always run (wait, plain moves)."""
    return []


def after_steps(state: Any, seat: int, skill: Skill, steps: int) -> bool:
    """The done-test of ``wait(n)`` and other step-counted skills: n steps taken (1 without n)."""
    return steps >= int(skill.arg or 1)


@dataclass(frozen=True)
class ArgRange:
    """Whole numbers ``low`` .. ``high``; ``default`` (if any) stands for an empty argument."""

    low: int
    high: int
    default: int | None = None

    def values(self) -> list[int]:
        return list(range(self.low, self.high + 1))

    def read(self, signature: str, arg: str, raw: str) -> int:
        if not arg and self.default is not None:
            return self.default
        try:  # ASCII digits only, and never int() of a 5,000-digit answer
            return read_int(arg, f"{signature}: the argument", self.low, self.high)
        except NumberError as exc:
            raise SkillParseError(str(exc), raw) from None


@dataclass(frozen=True)
class ArgChoices:
    """One of a few names (Overcooked's items)."""

    choices: tuple[str, ...]

    def values(self) -> list[str]:
        return list(self.choices)

    def read(self, signature: str, arg: str, raw: str) -> str:
        if arg not in self.choices:
            raise SkillParseError(f"{signature}: the argument must be one of {list(self.choices)}, got {arg!r}", raw)
        return arg


@dataclass(frozen=True)
class SkillDef:
    """One skill: its wording for the prompt, its checks, its done-test and its targets.

    ``args`` names the argument kind (a key of the book's ranges, e.g. ``"block"``, ``"steps"``), or
    None for a skill without argument. ``description`` is a knowledge text: it may read the
    knowledge facts (``{{ duration }}``), so it states the env's real settings. ``targets`` is None
    for a skill that goes nowhere (wait). ``tag`` is the world's own datum for the row (CUBE: the
    push direction), unused by the book.
    """

    name: str
    signature: str
    description: str
    args: str | None
    failures: Failures
    done: Done
    tag: Hashable = None
    targets: Targets | None = None


class TableSkillBook:
    """A world's skill book read from its table of `SkillDef` rows.

    ``ranges`` gives each argument kind's values for this layout (block indices, lamp indices,
    steps, items); ``progress`` the event kinds that move the team forward (they clear the loop
    guard), and ``teammate_progress`` those of a teammate's events where they differ; ``undo`` the
    loop guard's view of a state; ``event_skill`` the skill an event completes (belief correction),
    without a state; ``aliases`` other names that find a row (not listed, not parsed).
    """

    def __init__(
        self,
        rows: Sequence[SkillDef],
        ranges: Mapping[str, ArgRange | ArgChoices],
        progress: frozenset[str],
        undo: Callable[[Any, int], UndoState],
        event_skill: Callable[[Any], Skill | None],
        teammate_progress: frozenset[str] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.rows = tuple(rows)
        self.specs: dict[str, SkillDef] = {row.name: row for row in self.rows}
        self.ranges, self.undo, self.event_skill = dict(ranges), undo, event_skill
        self.progress_own = frozenset(progress)
        self.progress_teammate = self.progress_own if teammate_progress is None else frozenset(teammate_progress)
        self.aliases = dict(aliases or {})

    def spec(self, name: str) -> SkillDef:
        """The row of ``name`` or of the name it aliases."""
        return self.specs[name] if name in self.specs else self.specs[self.aliases[name]]

    def all_skills(self) -> list[Skill]:
        """Every concrete skill the planner may name, in table order."""
        out: list[Skill] = []
        for spec in self.rows:
            values = [None] if spec.args is None else self.ranges[spec.args].values()
            out += [Skill(spec.name, v) for v in values]
        return out

    def parse(self, text: str) -> Skill:
        """A skill from free text (``push(1)``, ``press()``, ``wait(2)``); SkillParseError says why not."""
        name, arg = parse_call(text, self.specs)
        spec = self.specs.get(name)
        if spec is None:
            raise SkillParseError(f"unknown skill {name!r}; expected one of {self.signatures()}", text)
        if spec.args is None:
            return Skill(name)
        return Skill(name, self.ranges[spec.args].read(spec.signature, arg, text))

    def failures(self, state: State, seat: int, skill: Skill) -> list[str]:
        return self.spec(skill.name).failures(state, seat, skill)

    def is_done(self, state: State, seat: int, skill: Skill, steps: int) -> bool:
        return bool(self.spec(skill.name).done(state, seat, skill, steps))

    def targets(self, state: State, skill: Skill) -> tuple:
        find = self.spec(skill.name).targets
        return () if find is None else find(state, skill)

    def is_progress(self, event: Event, seat: int) -> bool:
        kinds = self.progress_own if event.agent == seat else self.progress_teammate
        return str(event.kind) in kinds  # type: ignore[attr-defined]

    def undo_state(self, state: State, seat: int) -> UndoState:
        return self.undo(state, seat)

    def skill_of_event(self, event: Event) -> Skill | None:
        return self.event_skill(event)

    def signatures(self) -> list[str]:
        return [spec.signature for spec in self.rows]
