"""Play the pending episodes of an evaluation, ``concurrency`` at a time, appending each finished one.

A fixed pool of workers takes jobs from one queue; each job is one `run_episode`. While an
episode awaits its LLM the others run; their env steps are batched per layout (`lockstep`).
A worker checks the budget before it starts a job, so the budget guard never abandons an episode
it has paid for. A failed episode is logged to failures.jsonl and left pending (a resume retries
it); a configuration error from the LLM (bad key, unknown model) stops the run at once.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from proagent.builder import AgentBuilder, llm_agent
from proagent.contract import Agent
from proagent.eval.config import PROAGENT, AgentSpec, EvalConfig
from proagent.eval.lockstep import LockstepEnv, SlotEnv
from proagent.eval.models import Budget, ModelPool
from proagent.eval.plan import EpisodeJob
from proagent.eval.records import FAILURES_FILE, TRACE_FILE, EpisodeLog, EvalRecord
from proagent.eval.world import World
from proagent.files import disk_problem, is_disk_error
from proagent.llm.accounting import MeteredModel
from proagent.llm.types import LLMConfigError
from proagent.maeil.topology import TopologyConfig
from proagent.runner.episode import EpisodeEnv, SingleEnv, StepView, run_episode
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


@dataclass
class EvalOutcome:
    records: list[EvalRecord]  # every finished episode of the run, earlier sessions included
    played: int  # finished in this session
    failures: list[str] = field(default_factory=list)
    stopped: str | None = None  # why episodes were left unstarted; None when the grid is complete
    remaining: int = 0
    disk_error: str | None = None  # the disk refused a write: nothing more could be saved (also in ``stopped``)


class EnvSource:
    """Per-episode environments: a slot of the layout's LockstepEnv, or a SingleEnv."""

    def __init__(self, config: EvalConfig, envs: dict[str, DomainEnv], jobs: list[EpisodeJob]) -> None:
        self._lockstep = config.stepping == "lockstep"
        self._envs = envs
        counts = {name: sum(1 for j in jobs if j.key.layout == name) for name in envs}
        self._capacity = {name: min(config.concurrency, n) for name, n in counts.items() if n}
        self._batches: dict[str, LockstepEnv] = {}

    def open(self, job: EpisodeJob) -> EpisodeEnv:
        layout = job.key.layout
        if not self._lockstep:
            return SingleEnv(self._envs[layout], job.seed)
        if layout not in self._batches:
            self._batches[layout] = LockstepEnv(self._envs[layout], self._capacity[layout])
        return self._batches[layout].open(job.seed)

    @staticmethod
    def close(episode_env: EpisodeEnv) -> None:
        if isinstance(episode_env, SlotEnv):
            episode_env.close()


class Evaluator:
    def __init__(self, config: EvalConfig, domain: Domain, envs: dict[str, DomainEnv], world: World, folder: RunFolder) -> None:
        self.config = config
        self.domain = domain
        self.envs = envs
        self.world = world
        self.folder = folder
        self.log = EpisodeLog(folder)
        self.attempt = uuid.uuid4().hex[:12]
        self.llm_specs = {a.name: a for a in config.agents if a.kind == PROAGENT}
        self.llm_specs.setdefault(PROAGENT, AgentSpec())  # `--partners proagent` without a proagent agent: the default one
        self.agent_configs = {name: spec.agent_config() for name, spec in self.llm_specs.items()}
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
        self.pool = ModelPool(self.world.model_factory, cache_dir, self.config.llm_concurrency)
        self.budget = Budget(self.config.max_cost_usd, self._spent_before(), self.pool.meter)
        source = EnvSource(self.config, self.envs, list(queue))
        before = len(self.records)
        workers = [self._worker(queue, source, on_record) for _ in range(min(self.config.concurrency, len(queue)))]
        await asyncio.gather(*workers)
        stopped = self.stopped if queue else None
        return EvalOutcome(self.records, len(self.records) - before, self.failures, stopped, len(queue), self.disk_error)

    def _spent_before(self) -> float:
        """Money earlier sessions spent on finished and on failed episodes (not on ones a kill cut short)."""
        failed = sum(float(f.get("spent_usd", 0.0)) for f in self.folder.read_jsonl(FAILURES_FILE))
        return sum(r.spent_usd for r in self.records) + failed

    async def _worker(self, queue: deque[EpisodeJob], source: EnvSource, on_record: Callable[[EvalRecord], None] | None) -> None:
        assert self.budget is not None
        while queue and self.stopped is None:
            if self.budget.exhausted:
                self.stopped = f"budget reached: ${self.budget.spent:.4f} spent of max ${self.budget.limit:.4f}"
                return
            job = queue.popleft()
            models: list[MeteredModel] = []  # every LLM model this episode uses (the agent's, LLM partners')
            try:
                record = await self._play(job, source, models)
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
        message = f"{job.key.id}: {type(exc).__name__}: {exc}"
        self.failures.append(message)
        line = {"key": job.key.id, "attempt": self.attempt, "error": message, "spent_usd": _spent(models)}
        try:
            self.folder.append_jsonl(FAILURES_FILE, line, durable=True)
        except OSError as write_error:  # the failure is still reported (self.failures); the run stops
            self.stopped = self.disk_error = disk_problem(write_error)

    async def _play(self, job: EpisodeJob, source: EnvSource, models: list[MeteredModel]) -> EvalRecord:
        env = self.envs[job.key.layout]
        builder = self._builder(models)
        agent = builder.make(job.spec.name if job.spec.kind == PROAGENT else job.spec.kind, env)
        team = builder.team(env, job.key.seat, agent, job.key.partner)
        episode_env = source.open(job)
        try:
            record = await run_episode(
                env, self.domain, team, job.key.seat, job.seed, job.key.episode,
                trace=self._tracer(job) if self.config.trace else None,
                on_step=self._count_step,
                episode_env=episode_env,
                topology=self._topology(job),
            )  # fmt: skip
        finally:
            source.close(episode_env)
        extra = {
            "partner": job.key.partner, "agent": job.key.agent, "agent_kind": job.spec.kind, "spent_usd": _spent(models),
            "attempt": self.attempt, "topology": job.topology,
        }  # fmt: skip
        return EvalRecord(**{**record.model_dump(), **extra})

    def _topology(self, job: EpisodeJob) -> TopologyConfig | None:
        if job.topology is None:
            return None
        config = self.config
        return TopologyConfig(name=job.topology, leader=config.leader, message_budget=config.message_budget, feedback=config.feedback)  # type: ignore[arg-type]

    def _builder(self, models: list[MeteredModel]) -> AgentBuilder:
        """This episode's builder: each LLM agent it builds gets the episode's own metered model
        (``models`` collects them, for the money the episode spent)."""

        def make(name: str) -> Callable[[DomainEnv], Agent]:
            def build(env: DomainEnv) -> Agent:
                assert self.pool is not None
                model = self.pool.for_episode(self.llm_specs[name])
                models.append(model)
                return llm_agent(self.domain, env, self.agent_configs[name], model)

            return build

        return AgentBuilder(self.domain, {name: make(name) for name in self.llm_specs})

    def _tracer(self, job: EpisodeJob) -> Callable[[dict], None]:
        tag = {"key": job.key.id, "attempt": self.attempt}
        return lambda step: self.folder.append_jsonl(TRACE_FILE, {**tag, **step})

    def _count_step(self, view: StepView) -> None:
        self.steps += 1

    def snapshot(self) -> Snapshot:
        usage = self.pool.meter.summary() if self.pool is not None else None
        earlier = [r for r in self.records if r.attempt != self.attempt]
        return Snapshot(
            episodes_done=len(self.records),
            episodes_total=self._total,
            steps_done=self.steps,
            steps_total=self._pending * (self.config.horizon or DEFAULT_HORIZON),  # an estimate where layouts set their own
            # every seat's calls: the pool meters all of this process's models, the records each team's
            llm_calls=sum(r.team_llm_calls for r in earlier) + (usage.calls if usage else 0),
            tokens=sum(r.team_tokens for r in earlier) + (usage.prompt_tokens + usage.completion_tokens if usage else 0),
            spent_usd=self.budget.spent if self.budget is not None else 0.0,
            failures=len(self.failures),
        )


def _spent(models: list[MeteredModel]) -> float:
    """Money an episode's models spent on fresh calls (their own meters; cache hits are free)."""
    return sum(model.meter.summary().cost_usd or 0.0 for model in models)
