"""Play an evaluation's episodes on a Ray cluster (`proagent eval --executor ray`).

Ray does the distributing: each worker is a Ray actor (one per CPU of the cluster, at most one per
episode in flight) that resolves the run's config once in its own process, so its environments
are compiled once and its episodes share one lockstep batch per layout, exactly as the local
pool does. The driver keeps what must be one: the queue, the budget, and the run folder, whose
episodes.jsonl, failures.jsonl and trace.jsonl only it writes, as each episode comes back in
whatever order. A record is the same wherever its episode played, so `--resume` continues a Ray
run locally and a local run on Ray.

Faults: a worker process that dies is restarted by Ray and its episodes in flight are retried
there (``max_restarts``/``max_task_retries``); an episode is written once, when its call returns.
Credentials reach workers only through the environment they inherit from their node's `ray start`
(or from this process, for a local cluster it starts): never as an argument of a call, and not as
``runtime_env`` env_vars either, which Ray writes in clear to its runtime_env_agent.log. A node
that lacks a credential this shell sets is named in a warning before any episode. LLM requests
in flight are capped by one actor for the whole cluster (``llm_concurrency`` slots,
proagent.eval.request_slots), not a share per worker.

Ray is imported only here, and only when this executor runs: the local executor needs no Ray.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from proagent.cluster import ClusterError, check_nodes, connect, first_line, flags_problem, this_node
from proagent.eval.config import EvalConfig
from proagent.eval.models import ModelPool
from proagent.eval.plan import EpisodeJob
from proagent.eval.player import EnvSource, EpisodePlayer, layout_capacity, spent
from proagent.eval.records import EvalRecord
from proagent.eval.request_slots import ClusterSlot, RequestSlots
from proagent.eval.runner import Evaluator, PlayEpisode, RemoteEpisodeError
from proagent.eval.world import World, resolve
from proagent.llm.accounting import MeteredModel
from proagent.llm.types import LLMConfigError
from proagent.runner.episode import StepView

EXECUTORS = ("local", "ray")
MAX_RESTARTS = 3  # a worker process that dies is started again this often
MAX_RETRIES = 3  # an episode whose worker died is played again this often


class ExecutorError(Exception):
    """The executor cannot run: one line that says why and what to do."""


def executor_problem(executor: str, address: str | None) -> str | None:
    """Why these flags cannot run, in one actionable line; None when they can. Checked before the
    run folder exists, so a typo costs no folder."""
    return flags_problem(executor, address, "plays every episode in this process")


@dataclass
class EpisodeResult:
    """What a worker sends back for one job: the record, or the error, and what it cost."""

    record: EvalRecord | None
    error: str | None = None  # "Type: message", as the local runner writes it
    config_error: bool = False  # an LLMConfigError: the run stops, as it does locally
    spent_usd: float = 0.0
    trace: list[dict] = field(default_factory=list)  # the episode's steps, with --trace


class EpisodeWorker:
    """A Ray actor: plays the jobs it is given, ``slots`` at a time, in one process that resolved
    the run's config itself (same domain, layouts and partners as the driver's)."""

    def __init__(
        self, config: EvalConfig, world: World, attempt: str, capacity: dict[str, int], slots: Any, index: int
    ) -> None:
        self._node = this_node()
        self._trace = config.trace
        self._broken: str | None = None  # why this node cannot play the run, said by every play
        try:
            resolved = resolve(config, world)
        except Exception as exc:  # noqa: BLE001 - a node without a partner or layout file: the run stops with its name
            self._broken = f"{self._node} cannot set up the run: {type(exc).__name__}: {first_line(exc)}"
            return
        slot = ClusterSlot(slots, index)
        # frees what an earlier process of this worker held; awaited before this process's first request
        self._registered = slots.register.remote(index, slot.generation)
        pool = ModelPool(world.model_factory, config.cache_dir if config.cache else None, slot)
        self._player = EpisodePlayer(config, resolved.domain, resolved.envs, pool, attempt)
        self._source = EnvSource(config, resolved.envs, capacity)

    async def play(self, job: EpisodeJob) -> EpisodeResult:
        """``job``'s record, or its error as a string: the driver decides what a failure means."""
        if self._broken is not None:
            return EpisodeResult(None, self._broken, config_error=True)
        await self._registered
        models: list[MeteredModel] = []
        steps: list[dict] = []
        try:
            record = await self._player.play(
                job, self._source, models, steps.append if self._trace else None, _no_count
            )
        except LLMConfigError as exc:  # e.g. a model this node cannot load: the run stops, naming it
            return EpisodeResult(None, f"{self._node}: {exc}", config_error=True, spent_usd=spent(models))
        except Exception as exc:  # noqa: BLE001 - reported to the driver, which logs it in failures.jsonl
            return EpisodeResult(None, f"{type(exc).__name__}: {exc}", spent_usd=spent(models))
        return EpisodeResult(record, spent_usd=spent(models), trace=steps)


def _no_count(view: StepView) -> None:
    """Steps are counted by the driver when the record arrives."""


class RayExecutor:
    """Connects to a cluster (``address``) or starts a local one, and gives the evaluator one lane
    per episode that may be in flight on it."""

    def __init__(self, address: str | None, world: World) -> None:
        self._address = address
        # only what a worker needs: its own env cache is built (and compiled) in its own process
        self.worker_world = World(model_factory=world.model_factory, domains=world.domains)
        self._started = False
        self._actors: list[Any] = []
        self.request_slots: Any = None  # the cluster's one cap on LLM requests, while lanes play
        self.warnings: list[str] = []  # one line each, for the command to show before the run

    def connect(self) -> None:
        """Join the cluster, then check that every node can import this project (ExecutorError)."""
        try:
            self._started = connect(self._address)
        except ClusterError as exc:
            raise ExecutorError(str(exc)) from None
        problems, self.warnings = check_nodes()
        if problems:
            raise ExecutorError("; ".join(problems))

    async def lanes(self, evaluator: Evaluator, jobs: list[EpisodeJob]) -> list[PlayEpisode]:
        """Start the workers for ``jobs``; each gets an equal share of the run's concurrency."""
        import ray

        config = evaluator.config
        in_flight = min(config.concurrency, len(jobs))
        workers = max(1, min(int(ray.cluster_resources().get("CPU", 1)), in_flight))
        slots = math.ceil(in_flight / workers)
        self.request_slots = ray.remote(RequestSlots).options(num_cpus=0).remote(config.llm_concurrency)
        remote = ray.remote(EpisodeWorker).options(**worker_options(slots))
        capacity = layout_capacity(slots, jobs)
        attempt, world = evaluator.attempt, self.worker_world
        self._actors = [remote.remote(config, world, attempt, capacity, self.request_slots, i) for i in range(workers)]
        return [self._lane(evaluator, actor) for actor in self._actors for _ in range(slots)]

    def _lane(self, evaluator: Evaluator, actor: Any) -> PlayEpisode:
        """Plays on ``actor`` and brings the result home: its money into the one budget, its trace
        into trace.jsonl, its failure into the evaluator's failure handling."""
        from ray.exceptions import RayError

        async def play(job: EpisodeJob, models: list[MeteredModel]) -> EvalRecord:
            try:
                result: EpisodeResult = await actor.play.remote(job)
            except RayError as exc:  # the worker is gone for good (restarts spent, or it never started)
                raise RemoteEpisodeError(f"worker lost: {first_line(exc)}", 0.0) from None
            assert evaluator.budget is not None
            evaluator.budget.charge(result.spent_usd)
            if result.config_error:
                raise LLMConfigError(result.error or "LLM configuration error")
            if result.record is None:
                raise RemoteEpisodeError(result.error or "unknown error", result.spent_usd)
            trace = evaluator.tracer(job)
            for step in result.trace:
                trace(step)
            evaluator.steps += result.record.steps
            return result.record

        return play

    def close(self) -> None:
        """Stop this run's workers; end the Ray session only if this executor started it."""
        import ray

        for actor in self._actors:
            ray.kill(actor)
        if self.request_slots is not None:
            ray.kill(self.request_slots)
        self._actors, self.request_slots = [], None
        if self._started:
            ray.shutdown()
            self._started = False


def worker_options(slots: int) -> dict[str, Any]:
    """Ray options of a worker actor: one CPU, ``slots`` episodes at once, restarted (with its
    episodes in flight retried) when its process dies. No runtime_env: its env_vars are logged."""
    return {"num_cpus": 1, "max_concurrency": slots, "max_restarts": MAX_RESTARTS, "max_task_retries": MAX_RETRIES}


def open_executor(name: str, address: str | None, world: World) -> RayExecutor | None:
    """The executor ``--executor name [--ray-address address]`` asks for, connected and with every
    node checked; None for the local one (and then nothing of Ray is imported). Called before any
    run folder exists: a bad flag, a missing Ray or an unreachable cluster is an ExecutorError."""
    if name == "local" and address is None:
        return None
    problem = executor_problem(name, address)
    if problem is not None:
        raise ExecutorError(problem)
    executor = RayExecutor(address, world)
    try:
        executor.connect()
    except ExecutorError:
        executor.close()
        raise
    return executor
