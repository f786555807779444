"""When the world moves while the model thinks: ``--clock turns | tokens:N[:R] | seconds:S``.

- ``turns`` (the default): the world waits for every decision, as in the papers the pipeline
  comes from.
- ``tokens:N``: the world advances one step for every N tokens a decision reads and writes
  (RealtimeGym's token budget as hardware-agnostic time). A prompt token counts ``R`` (default 1:
  reading costs what writing costs; 0.25 says prompt processing runs four times as fast as
  generation). Deterministic: the counts are the model's, cached answers included, so a cached run
  replays exactly.
- ``seconds:S``: one step every S seconds of wall clock, whatever the model does (DPT-Agent's 0.25 s).

While a decision is under way the agent plays the idle action (its skill has ended: that is why it
decides); when the decision lands, its skill is judged against the world of *that* step, so a plan
the delay made stale fails at once and a new one is asked for.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_TOKENS_PER_STEP = 1_000_000
MAX_SECONDS_PER_STEP = 60.0


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


def tick_pace(seconds: float, clock: Callable[[], float] = time.monotonic) -> Callable[[], Awaitable[None]]:
    """The episode runner's ``pace`` for a seconds clock: each step starts one tick after the last
    (at once when the step before ran over its tick, so a slow step is not made up for by a burst)."""
    due = [clock()]

    async def pace() -> None:
        delay = due[0] - clock()
        if delay > 0:
            await asyncio.sleep(delay)
        due[0] = max(due[0], clock()) + seconds

    return pace


HELP = (
    "how the world moves while the model thinks: turns (it waits, the default), tokens:N[:R] (one step per N "
    "tokens read and written; a prompt token counts R, default 1) or seconds:S (one step every S seconds)"
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


__all__ = ["HELP", "Clock", "ClockError", "parse_clock", "tick_pace"]
