"""When the world moves while the model thinks: ``--clock turns | tokens:N[:R] | seconds:S``.

- ``turns`` (the default): the world waits for every decision, as in the papers the pipeline
  comes from.
- ``tokens:N``: the world advances one step for every N tokens a decision reads and writes
  (RealtimeGym's token budget as hardware-agnostic time). A prompt token counts ``R`` (default 1:
  reading costs what writing costs; 0.25 says prompt processing runs four times as fast as
  generation). Deterministic: the counts are the model's, cached answers included, so a cached run
  replays exactly.
- ``seconds:S``: one step every S seconds of wall clock, whatever the model does (DPT-Agent's 0.25 s).

While a decision is under way the agent's fallback (``--clock-fallback``) chooses its actions:

- ``idle`` (the default): the idle action, as RealtimeGym's default action when no answer came.
- ``continue``: the controller keeps executing the skill that ended last while the skill book says it
  can still run in this step's world (neither done nor failed: a skill cut off by its step limit,
  ``skill_timeout``), then idles. It does not repeat the last primitive action of a skill that ended:
  that action is usually the one that completed it (a pick-up, a put-down), and repeated it would undo it.
- ``scripted``: the world's scripted planner (its ``scripted`` capability, `--llm scripted`'s) chooses
  stand-in skills from the agent's own grounded facts and memory, checked against the skill book's
  preconditions (a refused one: idle that step) and executed through the controller, a new one when
  the last ends. No model call: the stand-ins are neither decisions nor memory records.

When the decision lands, its skill replaces whatever the fallback ran and is judged against the
world of *that* step, so a plan the delay made stale fails at once and a new one is asked for.
Each decision's `DecisionTiming` goes into the trace beside its decision record; the episode's
`ClockLedger` into its record.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_TOKENS_PER_STEP = 1_000_000
MAX_SECONDS_PER_STEP = 60.0
ClockFallback = Literal["idle", "continue", "scripted"]
CLOCK_FALLBACKS: tuple[ClockFallback, ...] = ("idle", "continue", "scripted")


class ClockError(ValueError):
    """A clock spec that cannot be read, said in one line."""


class Clock(BaseModel):
    """A parsed ``--clock``; recorded with the agent's config."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    kind: Literal["turns", "tokens", "seconds"] = "turns"
    tokens_per_step: int | None = Field(None, ge=1, le=MAX_TOKENS_PER_STEP)
    prompt_token_weight: float = Field(1.0, ge=0.0, le=1.0)
    seconds_per_step: float | None = Field(None, gt=0.0, le=MAX_SECONDS_PER_STEP)

    def steps_for(self, prompt_tokens: int, completion_tokens: int) -> int:
        """World steps that pass while a decision of these token counts is made (tokens clock)."""
        if self.kind != "tokens" or self.tokens_per_step is None:
            return 0
        return math.floor((prompt_tokens * self.prompt_token_weight + completion_tokens) / self.tokens_per_step)


def tick_pace(
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Callable[[], Awaitable[None]]:
    """The episode runner's ``pace`` for a seconds clock (an LLM agent's ``--clock seconds:S``, a
    person's real-time game): each step starts on its tick, one tick after the last. The ticks are
    counted from the last one, not from when the sleep woke, so a sleep that wakes late does not push
    every later step back (``1/S`` steps a second, not fewer). A step whose tick has passed (the step
    before ran over) starts at once and the ticks go on from there: a slow step is not made up for
    by a burst."""
    due = [clock()]

    async def pace() -> None:
        now = clock()
        if now < due[0]:
            await sleep(due[0] - now)
        else:
            due[0] = now
        due[0] += seconds

    return pace


class DecisionTiming(BaseModel):
    """When one decision was asked and acted on, and what it cost: the trace's ``clock`` record."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    based_on: int = Field(ge=0, description="the step whose world the decision read")
    lands: int = Field(ge=0, description="the step its skill was (or will be) acted on")
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    wall_s: float = Field(ge=0.0, description="seconds of wall clock the decision took")

    @property
    def steps(self) -> int:
        """World steps that passed while it was made: how stale its world was when acted on."""
        return self.lands - self.based_on

    def record(self) -> dict[str, Any]:
        return {**self.model_dump(), "steps": self.steps}


@dataclass
class ClockLedger:
    """One episode of a clocked agent, counted step by step for its record."""

    steps_played: int = 0
    idle_steps: int = 0  # idled while a decision was under way
    fallback_steps: int = 0  # acted by the fallback (continue, scripted) while a decision was under way
    stale_steps: int = 0  # acted on a skill decided on an earlier world than the one it started in
    decision_steps: list[int] = field(default_factory=list)  # per traced decision: steps it took

    def stats(self) -> dict[str, Any]:
        """The episode record's clock fields."""
        steps, made = max(1, self.steps_played), self.decision_steps
        return {
            "clock_idle_steps": self.idle_steps,
            "clock_stale_steps": self.stale_steps,
            "clock_fallback_steps": self.fallback_steps,
            "decisions_per_100_steps": 100 * len(made) / steps,
            "decision_steps_mean": sum(made) / len(made) if made else 0.0,
        }


HELP = (
    "how the world moves while the model thinks: turns (it waits, the default), tokens:N[:R] (one step per N "
    "tokens read and written; a prompt token counts R, default 1) or seconds:S (one step every S seconds)"
)

FALLBACK_HELP = (
    "what the agent does while a decision is under way on a tokens or seconds clock: idle (the default), continue "
    "(the controller keeps executing its last skill while it can still run, then idles) or scripted (the world's "
    "scripted planner chooses stand-in skills)"
)


def parse_clock(text: str) -> Clock:
    """``turns``, ``tokens:N``, ``tokens:N:R`` or ``seconds:S`` as a Clock; ClockError says why not."""
    kind, _, rest = text.strip().partition(":")
    parts = rest.split(":") if rest else []
    try:
        if kind == "turns" and not parts:
            return Clock()
        if kind == "tokens" and len(parts) in (1, 2):
            weight = float(parts[1]) if len(parts) == 2 else 1.0
            return Clock(kind="tokens", tokens_per_step=int(parts[0]), prompt_token_weight=weight)
        if kind == "seconds" and len(parts) == 1:
            return Clock(kind="seconds", seconds_per_step=float(parts[0]))
    except ValueError as exc:  # a bad number, or one out of bounds (pydantic names the bound)
        lines = [
            line.strip()
            for line in str(exc).splitlines()
            if line.strip() and not line.strip().startswith("For further")
        ]
        bound = lines[-1].split(" [")[0] if len(lines) > 1 else "not a number"
        raise ClockError(f"--clock {text[:40]!r}: {bound}; expected turns, tokens:N, tokens:N:R or seconds:S") from None
    raise ClockError(f"--clock {text[:40]!r}: expected turns, tokens:N, tokens:N:R or seconds:S (e.g. tokens:200)")


__all__ = [
    "CLOCK_FALLBACKS",
    "FALLBACK_HELP",
    "HELP",
    "Clock",
    "ClockError",
    "ClockFallback",
    "ClockLedger",
    "DecisionTiming",
    "parse_clock",
    "tick_pace",
]
