"""Play the pending episodes of an evaluation, ``concurrency`` at a time, appending each finished one.

A fixed pool of workers takes jobs from one queue; each job is one `run_episode`. While an
episode awaits its LLM the others run; their env steps are batched per layout (`lockstep`).
A worker checks the budget before it starts a job, so the budget guard never abandons an episode
it has paid for. A failed episode is logged to failures.jsonl and left pending (a resume retries
it); a configuration error from the LLM (bad key, unknown model) stops the run at once.

An `Executor` (`ray_executor`) moves the playing elsewhere: each worker then awaits an episode in
another process, while this process keeps the one queue, the one budget and the only writes to
the run folder, so a run reads, resumes and stops the same wherever its episodes played.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from proagent.eval.config import EvalConfig
from proagent.eval.models import Budget, ModelPool, semaphore_per_endpoint
from proagent.eval.plan import EpisodeJob
from proagent.eval.player import EnvSource, EpisodePlayer, layout_capacity, spent
from proagent.eval.records import FAILURES_FILE, TRACE_FILE, EpisodeLog, EvalRecord
from proagent.eval.world import World
from proagent.files import disk_problem, is_disk_error
from proagent.llm.accounting import MeteredModel
from proagent.llm.types import LLMConfigError
from proagent.runner.episode import StepView
from proagent.runner.run_folder import RunFolder
from proagent.world.interface import Domain
from proagent.world.kit.base import DEFAULT_HORIZON
from proagent.world.types import DomainEnv


@dataclass
class Snapshot:
    """Where a run stands, for progress displays."""

    episodes_done: int
    episodes_total: int
    steps_done: int
    steps_total: int
    llm_calls: int
    tokens: int
    spent_usd: float
    failures: int


@dataclass(frozen=True)
class InFlight:
    """What the episodes still playing elsewhere have done so far (their records are not back)."""

    steps: int = 0
    llm_calls: int = 0
    tokens: int = 0


@dataclass
class EvalOutcome:
    records: list[EvalRecord]  # every finished episode of the run, earlier sessions included
    played: int  # finished in this session
    failures: list[str] = field(default_factory=list)
    stopped: str | None = None  # why episodes were left unstarted; None when the grid is complete
    remaining: int = 0
    disk_error: str | None = None  # the disk refused a write: nothing more could be saved (also in ``stopped``)


# Plays one job somewhere and gives its record; ``models`` collects the LLM models it used in this process.
PlayEpisode = Callable[[EpisodeJob, list[MeteredModel]], Awaitable[EvalRecord]]


class Executor(Protocol):
    """Where the episodes play when not in this process (`ray_executor`): one `PlayEpisode` per
    episode that may be in flight at once; the evaluator keeps the queue, the budget and the files."""

    async def lanes(self, evaluator: Evaluator, jobs: list[EpisodeJob]) -> list[PlayEpisode]: ...

    def end_grid(self) -> None:
        """The run's lanes are done (its workers stay for the command's next grid)."""

    def in_flight(self, finished: set[str]) -> InFlight:
        """The progress of the episodes playing elsewhere, those in ``finished`` (key ids whose
        records arrived) left out, as last heard from the workers."""


class RemoteEpisodeError(Exception):
    """An episode that failed in another process: its error as that process described it
    (``Type: message``), and the money it spent."""

    def __init__(self, described: str, spent_usd: float) -> None:
        super().__init__(described)
        self.described = described
        self.spent_usd = spent_usd


class Evaluator:
    def __init__(
        self,
        config: EvalConfig,
        domain: Domain,
        envs: dict[str, DomainEnv],
        world: World,
        folder: RunFolder,
        executor: Executor | None = None,
    ) -> None:
        self.config = config
        self.domain = domain
        self.envs = envs
        self.world = world
        self.folder = folder
        self.executor = executor
        self.log = EpisodeLog(folder)
        self.attempt = uuid.uuid4().hex[:12]
        self.records: list[EvalRecord] = []
        self.failures: list[str] = []
        self.stopped: str | None = None
        self.disk_error: str | None = None
        self.steps = 0
        self._total = 0
        self._pending = 0
        self.pool: ModelPool | None = None
        self.budget: Budget | None = None

    async def run(self, jobs: list[EpisodeJob], on_record: Callable[[EvalRecord], None] | None = None) -> EvalOutcome:
        """Play the jobs whose keys are not in episodes.jsonl yet."""
        self.log.seal()
        self.records = self.log.read()
        finished = {r.key.id for r in self.records}
        queue = deque(j for j in jobs if j.key.id not in finished)
        self._total, self._pending = len(jobs), len(queue)
        cache_dir = self.config.cache_dir if self.config.cache else None
        self.pool = ModelPool(
            self.world.models_for(self.domain), cache_dir, semaphore_per_endpoint(self.config.llm_concurrency)
        )
        self.budget = Budget(self.config.max_cost_usd, self._spent_before(), self.pool.meter)
        before = len(self.records)
        try:  # what the executor holds for this run goes however the run ends
            lanes = await self._lanes(list(queue)) if queue else []
            await asyncio.gather(*(self._worker(queue, lane, on_record) for lane in lanes))
        finally:
            if self.executor is not None:
                self.executor.end_grid()
        stopped = self.stopped if queue else None
        return EvalOutcome(
            self.records, len(self.records) - before, self.failures, stopped, len(queue), self.disk_error
        )

    async def _lanes(self, jobs: list[EpisodeJob]) -> list[PlayEpisode]:
        """``concurrency`` lanes in this process, all sharing one env source; or the executor's."""
        if self.executor is not None:
            return await self.executor.lanes(self, jobs)
        assert self.pool is not None
        player = EpisodePlayer(self.config, self.domain, self.envs, self.pool, self.attempt)
        source = EnvSource(self.config, self.envs, layout_capacity(self.config.concurrency, jobs))

        async def play(job: EpisodeJob, models: list[MeteredModel]) -> EvalRecord:
            trace = self.tracer(job) if self.config.trace else None
            return await player.play(job, source, models, trace, self._count_step)

        return [play] * min(self.config.concurrency, len(jobs))

    def _spent_before(self) -> float:
        """Money earlier sessions spent on finished and on failed episodes (not on ones a kill cut short)."""
        failed = sum(float(f.get("spent_usd", 0.0)) for f in self.folder.read_jsonl(FAILURES_FILE))
        return sum(r.spent_usd for r in self.records) + failed

    async def _worker(
        self, queue: deque[EpisodeJob], play: PlayEpisode, on_record: Callable[[EvalRecord], None] | None
    ) -> None:
        assert self.budget is not None
        while queue and self.stopped is None:
            if self.budget.exhausted:
                self.stopped = f"budget reached: ${self.budget.spent:.4f} spent of max ${self.budget.limit:.4f}"
                return
            job = queue.popleft()
            models: list[MeteredModel] = []  # every LLM model this episode uses (the agent's, LLM partners')
            try:
                record = await play(job, models)
            except LLMConfigError as exc:
                queue.appendleft(job)
                self._fail(job, exc, models)
                self.stopped = f"LLM configuration error: {exc}"
                return
            except Exception as exc:  # noqa: BLE001 - one broken episode must not lose the others
                if is_disk_error(exc):
                    self._stop_on_disk(job, queue, exc)
                    return
                self._fail(job, exc, models)
                if len(self.failures) >= self.config.max_failures:
                    self.stopped = f"{len(self.failures)} episodes failed (max_failures); see {FAILURES_FILE}"
                continue
            try:
                self.log.append(record)
            except OSError as exc:  # the episode is lost with the disk; its answers may still be cached
                self._stop_on_disk(job, queue, exc)
                return
            self.records.append(record)
            if on_record is not None:
                on_record(record)

    def _stop_on_disk(self, job: EpisodeJob, queue: deque[EpisodeJob], exc: OSError) -> None:
        """A disk that refuses writes stops the run: ``job`` goes back to the pending ones (a resume
        plays it), finished episodes stay as written, and nothing more is written."""
        queue.appendleft(job)
        self.stopped = self.disk_error = disk_problem(exc)

    def _fail(self, job: EpisodeJob, exc: BaseException, models: list[MeteredModel]) -> None:
        remote = exc if isinstance(exc, RemoteEpisodeError) else None
        message = f"{job.key.id}: {remote.described if remote else f'{type(exc).__name__}: {exc}'}"
        self.failures.append(message)
        cost = spent(models) + (remote.spent_usd if remote else 0.0)
        line = {"key": job.key.id, "attempt": self.attempt, "error": message, "spent_usd": cost}
        try:
            self.folder.append_jsonl(FAILURES_FILE, line, durable=True)
        except OSError as write_error:  # the failure is still reported (self.failures); the run stops
            self.stopped = self.disk_error = disk_problem(write_error)

    def tracer(self, job: EpisodeJob) -> Callable[[dict], None]:
        """Writes ``job``'s steps to trace.jsonl, each tagged with its key and this run attempt's id."""
        tag = {"key": job.key.id, "attempt": self.attempt}
        return lambda step: self.folder.append_jsonl(TRACE_FILE, {**tag, **step})

    def _count_step(self, view: StepView) -> None:
        self.steps += 1

    def snapshot(self) -> Snapshot:
        usage = self.pool.meter.summary() if self.pool is not None else None
        # a remote worker's calls are metered in its own process: counted here from its records,
        # and, while its episodes play, from what the workers last said of them
        earlier = [r for r in self.records if r.attempt != self.attempt or self.executor is not None]
        live = self.executor.in_flight({r.key.id for r in self.records}) if self.executor is not None else InFlight()
        return Snapshot(
            episodes_done=len(self.records),
            episodes_total=self._total,
            steps_done=self.steps + live.steps,
            steps_total=self._pending
            * (self.config.horizon or DEFAULT_HORIZON),  # an estimate where layouts set their own
            # every seat's calls: the pool meters all of this process's models, the records each team's
            llm_calls=sum(r.team_llm_calls for r in earlier) + (usage.calls if usage else 0) + live.llm_calls,
            tokens=sum(r.team_tokens for r in earlier)
            + (usage.prompt_tokens + usage.completion_tokens if usage else 0)
            + live.tokens,
            spent_usd=self.budget.spent if self.budget is not None else 0.0,
            failures=len(self.failures),
        )

