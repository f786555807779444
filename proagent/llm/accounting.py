"""`UsageMeter`: running totals of calls, tokens, latency and money.

Experiments report what a policy cost to run; the meter is updated once per
`Completion` (a few additions under a lock), so it can sit on every call.
Cache hits are counted but cost nothing: ``cost_usd`` is money actually spent.
"""

from __future__ import annotations

import threading

from pydantic import BaseModel, ConfigDict

from proagent.llm.types import Completion, Grounding, Message, Model, StructuredOutput

__all__ = ["MeteredModel", "UsageMeter", "UsageSummary"]


class UsageSummary(BaseModel):
    """A snapshot of a `UsageMeter`.

    Token counts cover all calls (cached ones included, as the workload the
    policy generated).  ``cost_usd`` sums fresh calls with a known price and is
    None when no call had one; ``calls_without_cost`` counts fresh calls whose
    price was unknown, so a non-zero value means ``cost_usd`` is a lower bound.
    ``retries`` counts failed requests that were retried before an answer came, so
    the requests a server saw are ``fresh_calls + retries`` (plus any that ended in an error).
    """

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_latency_s: float = 0.0
    mean_fresh_latency_s: float | None = None
    cost_usd: float | None = None
    calls_without_cost: int = 0
    retries: int = 0

    @property
    def fresh_calls(self) -> int:
        return self.calls - self.cached_calls


class UsageMeter:
    """Accumulates `Completion` records; safe to share between threads and tasks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self._cached = 0
        self._prompt = 0
        self._completion = 0
        self._latency = 0.0
        self._fresh_latency = 0.0
        self._cost: float | None = None
        self._no_cost = 0
        self._retries = 0

    def record(self, completion: Completion) -> None:
        with self._lock:
            self._calls += 1
            self._prompt += completion.prompt_tokens
            self._completion += completion.completion_tokens
            self._latency += completion.latency_s
            self._retries += completion.retries
            if completion.cached:
                self._cached += 1
                return
            self._fresh_latency += completion.latency_s
            if completion.cost_usd is None:
                self._no_cost += 1
            else:
                self._cost = (self._cost or 0.0) + completion.cost_usd

    def summary(self) -> UsageSummary:
        with self._lock:
            fresh = self._calls - self._cached
            return UsageSummary(
                calls=self._calls,
                cached_calls=self._cached,
                prompt_tokens=self._prompt,
                completion_tokens=self._completion,
                total_latency_s=self._latency,
                mean_fresh_latency_s=self._fresh_latency / fresh if fresh else None,
                cost_usd=self._cost,
                calls_without_cost=self._no_cost,
                retries=self._retries,
            )


class MeteredModel:
    """Wraps a `Model` and records every `Completion` it returns into ``meter``."""

    def __init__(self, inner: Model, meter: UsageMeter | None = None) -> None:
        self._inner = inner
        self.meter = meter if meter is not None else UsageMeter()

    @property
    def name(self) -> str:
        return self._inner.name

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        completion = await self._inner.generate(
            messages,
            structured=structured,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            grounding=grounding,
        )
        self.meter.record(completion)
        return completion
