"""The LLM side of an evaluation: one shared model per endpoint (llm, api_base), a cap on requests
in flight to each endpoint, metering of tokens and money, and the budget guard.

Layers, outermost first: MeteredModel (run totals) -> CachedModel (replays) -> LimitedModel (cap)
-> the backend. The cap sits inside the cache so that a cache hit never queues behind slow fresh
requests; a rate-limited provider is still retried (with backoff) by the backend itself. Each
episode wraps the shared model in its own MeteredModel, which gives the money that episode spent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Protocol

from proagent.eval.config import AgentSpec
from proagent.llm.accounting import MeteredModel, UsageMeter
from proagent.llm.cache import CachedModel
from proagent.llm.factory import make_model
from proagent.llm.scripted import ScriptedPlanner, is_scripted
from proagent.llm.types import Completion, Grounding, Message, Model, StructuredOutput

ModelFactory = Callable[[AgentSpec], Model]


def default_model_factory(spec: AgentSpec, planner: ScriptedPlanner | None = None) -> Model:
    """The uncached backend for ``spec`` (the pool adds the cache); ``planner`` is the world's
    scripted planner, which ``llm: scripted`` plays."""
    return make_model(
        spec.llm,
        api_base=spec.api_base,
        cache_dir=None,
        timeout_s=spec.llm_timeout_s,
        planner=planner,
        adapter=spec.adapter,
    )


Endpoint = tuple[str, str | None]  # (llm, api_base): what a provider's rate limit applies to


def endpoint_of(spec: AgentSpec) -> Endpoint:
    return spec.llm, spec.api_base


class RequestLimit(Protocol):
    """What caps requests in flight to one endpoint: an ``asyncio.Semaphore`` in one process, a
    slot of the endpoint's cluster-wide cap on Ray (proagent.eval.request_slots)."""

    async def __aenter__(self) -> object: ...

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> object: ...


class LimitedModel:
    """At most ``limit``'s worth of concurrent requests. The reported latency is the whole wait,
    queueing included, so the agent's overhead figure never counts time spent in the queue."""

    def __init__(self, inner: Model, limit: RequestLimit) -> None:
        self._inner = inner
        self._limit = limit

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
        started = time.perf_counter()
        async with self._limit:
            completion = await self._inner.generate(
                messages,
                structured=structured,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                grounding=grounding,
            )
        return completion.model_copy(update={"latency_s": time.perf_counter() - started})


def semaphore_per_endpoint(capacity: int) -> Callable[[Endpoint], RequestLimit]:
    """The local executor's caps: ``capacity`` requests in flight to each endpoint."""
    semaphores: dict[Endpoint, asyncio.Semaphore] = {}

    def limit_for(endpoint: Endpoint) -> RequestLimit:
        return semaphores.setdefault(endpoint, asyncio.Semaphore(capacity))

    return limit_for


class ModelPool:
    """Shared models by endpoint (llm, api_base), each behind its endpoint's request cap; all
    share one usage meter."""

    def __init__(
        self, factory: ModelFactory, cache_dir: Path | None, limit_for: Callable[[Endpoint], RequestLimit]
    ) -> None:
        self._factory = factory
        self._cache_dir = cache_dir
        self._limit_for = limit_for
        self._models: dict[Endpoint, Model] = {}
        self.meter = UsageMeter()

    def get(self, spec: AgentSpec) -> Model:
        key = endpoint_of(spec)
        if key not in self._models:
            model: Model = LimitedModel(self._factory(spec), self._limit_for(key))
            if self._cache_dir is not None and not is_scripted(spec.llm):  # a scripted planner's answers are code's
                model = CachedModel(model, self._cache_dir)
            self._models[key] = MeteredModel(model, self.meter)
        return self._models[key]

    def for_episode(self, spec: AgentSpec) -> MeteredModel:
        """The shared model behind a fresh meter: what one episode used and spent."""
        return MeteredModel(self.get(spec), UsageMeter())


class Budget:
    """Money spent so far (earlier sessions of the run plus this one) against ``limit``."""

    def __init__(self, limit: float | None, spent_before: float, meter: UsageMeter) -> None:
        self.limit = limit
        self.spent_before = spent_before
        self._meter = meter
        self._charged = 0.0

    def charge(self, amount: float) -> None:
        """Money this run attempt spent outside ``meter``: an episode played by another process (a
        Ray worker meters its own calls), so one budget holds over every worker of the run."""
        self._charged += amount

    @property
    def spent(self) -> float:
        return self.spent_before + self._charged + (self._meter.summary().cost_usd or 0.0)

    @property
    def exhausted(self) -> bool:
        return self.limit is not None and self.spent > self.limit
