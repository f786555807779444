"""What a line of a run folder's episodes.jsonl or trace.jsonl may hold, checked before anyone reads it.

Run folders are shared between labs, so what `replay`, `report` and `analyze` read back is
untrusted. Each line passes two checks (`read_jsonl` skips a line that fails either, with one
warning naming the file and its line numbers): `check_plain` bounds the whole value (nesting depth,
container sizes, string lengths, integers a float can hold, no NaN or infinity, which no writer
produces), and a strict model (no coercion: a ``"3"`` is not a 3, a ``true`` not a 1) types the
fields the readers use, with ranges that keep them usable as indices and counts. Fields a world
adds (its drawing's extras) stay as they are, inside the bounds.
"""

from __future__ import annotations

import math
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_DEPTH = 16  # nesting of containers in one line
MAX_ITEMS = 20_000  # items in one list or object
MAX_TEXT = 2_000_000  # characters in one string (a prompt kept in a trace is a few thousand)
MAX_INT = 2**53  # integers beyond this are not exact as the page's numbers
MAX_SEATS = 64
MAX_EPISODES = 10_000_000
MAX_STEPS = 10_000_000
NAME = 400  # characters of a name, key, skill or layout
_M = TypeVar("_M", bound=BaseModel)
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def check_plain(value: Any, depth: int = 0) -> None:
    """ValueError (naming what) unless ``value`` is JSON data within the bounds above."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            raise ValueError(f"an integer beyond ±2^53 ({str(value)[:20]}...)")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a number that is {value}")
    elif isinstance(value, str):
        _check_text(value)
    elif isinstance(value, list | dict):
        if len(value) > MAX_ITEMS:
            raise ValueError(f"a {type(value).__name__} of {len(value)} items")
        for key in value if isinstance(value, dict) else ():
            _check_text(key)
        for item in value.values() if isinstance(value, dict) else value:
            check_plain(item, depth + 1)
    else:
        raise ValueError(f"a {type(value).__name__}, not JSON data")  # noqa: TRY004 - readers skip a line on ValueError


def _check_text(text: str) -> None:
    """ValueError for a string no writer produces: too long, or holding a control character (tab
    and newline aside) or a lone surrogate. Every text a run writes was cleaned first, so such a
    string was crafted, and printed it would drive the reader's terminal (clear it, retitle it,
    overwrite a line) or break a UTF-8 writer."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"a string of {len(text)} characters")
    bad = _UNPRINTABLE.search(text)
    if bad is not None:
        raise ValueError(f"a string holding the control character or surrogate U+{ord(bad.group()):04X}")


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)


class AttemptLine(_Strict):
    plan: str | None = Field(None, max_length=MAX_TEXT)
    failures: list[str] = Field(default_factory=list)
    explanation: str | None = None
    parse_error: str | None = None


class DecisionLine(_Strict):
    step: int | None = Field(None, ge=0, le=MAX_STEPS)
    skill: str | None = None
    fallback: bool = False
    llm_calls: int = Field(0, ge=0)
    llm_latency_s: float = Field(0.0, ge=0)
    analysis: str | None = None
    intention: str | None = None
    attempts: list[AttemptLine] = Field(default_factory=list)


class BeliefLine(_Strict):
    correct: bool | None = None
    predicted: str | None = None
    predicted_at: int | None = None
    actual: str | None = None


class EventLine(_Strict):
    agent: int = Field(ge=-1, le=MAX_SEATS)  # -1: the environment
    kind: str = Field(max_length=NAME)


class CognitionLine(_Strict):
    kind: str | None = Field(None, max_length=NAME)
    wall_ms: float | None = None


class ConstraintLine(_Strict):
    outcome: str | None = Field(None, max_length=NAME)
    attributed: str | None = Field(None, max_length=NAME)
    delta_z: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    satisfied: list[str] = Field(default_factory=list)
    violated: list[str] = Field(default_factory=list)


class ClockLine(_Strict):
    """A decision's timing under a clock (`proagent.agent.clock.DecisionTiming`)."""

    based_on: int = Field(ge=0, le=MAX_STEPS)
    lands: int = Field(ge=0, le=MAX_STEPS)
    tokens_in: int = Field(0, ge=0)
    tokens_out: int = Field(0, ge=0)
    wall_s: float | None = Field(None, ge=0)


class TraceLine(_Strict):
    """One step of trace.jsonl: the fields the replay and the analysis read."""

    key: str = Field("", max_length=NAME)
    attempt: str = Field("", max_length=NAME)
    episode: int = Field(0, ge=0, le=MAX_EPISODES)
    step: int = Field(0, ge=0, le=MAX_STEPS)
    seat: int | None = Field(None, ge=0, lt=MAX_SEATS)
    actions: list[str] | None = Field(None, max_length=MAX_SEATS)
    events: list[EventLine] = Field(default_factory=list)
    reward: float = 0.0
    score: float = 0.0
    skill: str | None = Field(None, max_length=NAME)
    partner_skill: str | None = Field(None, max_length=NAME)
    thinking: bool = False
    decision: DecisionLine | None = None
    belief: BeliefLine | None = None
    cognition: list[CognitionLine] | None = None
    stages: dict[str, str] | None = None
    constraints: list[ConstraintLine] | None = None
    clock: ClockLine | None = None


class EpisodeLine(_Strict):
    """One record of episodes.jsonl: the fields the replay and the analysis read (the report reads
    the whole record, strictly, as `proagent.eval.records.EvalRecord`)."""

    key: str = Field("", max_length=NAME)
    attempt: str = Field("", max_length=NAME)
    episode: int = Field(0, ge=0, le=MAX_EPISODES)
    seed: int | None = None
    layout: str = Field("", max_length=NAME)
    partner: str = Field("", max_length=NAME)
    agent: str | None = Field(None, max_length=NAME)
    agent_kind: str | None = Field(None, max_length=NAME)
    seat: int = Field(0, ge=0, lt=MAX_SEATS)
    score: float | None = None
    steps: int | None = Field(None, ge=0, le=MAX_STEPS)
    domain_metrics: dict[str, Any] | None = None  # the replay shows the numbers among them
    int_total: int | None = Field(None, ge=0)
    int_constructive: int | None = Field(None, ge=0)
    int_initiated: list[int] = Field(default_factory=list, max_length=MAX_SEATS)
    int_accepted: list[int] = Field(default_factory=list, max_length=MAX_SEATS)
    intention_hits: int = Field(0, ge=0)
    intention_total: int = Field(0, ge=0)


def trace_line(data: dict) -> dict:
    """``data`` if it is a bounded trace line with typed fields; ValueError (naming the field) otherwise."""
    check_plain(data)
    typed(TraceLine, data)
    return data


def episode_line(data: dict) -> dict:
    """``data`` if it is a bounded episode record with typed fields; ValueError (naming the field) otherwise."""
    check_plain(data)
    typed(EpisodeLine, data)
    return data


def typed(model: type[_M], data: dict) -> _M:
    """``data`` validated as ``model`` (strict where the model is); a ValueError whose one line
    names the first bad field and why (what the skipped-lines warning shows)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "the line"
        raise ValueError(f"{where}: {error['msg']}") from None
