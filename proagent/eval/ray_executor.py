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
in flight are capped per model endpoint by one actor for the whole cluster, shared by every run
that uses the endpoint (proagent.eval.request_slots), not a share per worker or per run.

Ray is imported only here, and only when this executor runs: the local executor needs no Ray.
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from dataclasses import dataclass, field
from typing import Any

from proagent.cluster import ClusterError, check_nodes, connect, first_line, flags_problem, this_node
from proagent.eval.config import EvalConfig
from proagent.eval.models import Endpoint, ModelPool, RequestLimit, endpoint_of, semaphore_per_endpoint
from proagent.eval.plan import EpisodeJob
from proagent.eval.player import EnvSource, EpisodePlayer, layout_capacity, llm_specs, spent
from proagent.eval.records import EvalRecord
from proagent.eval.request_slots import ClusterSlot, endpoint_slots
from proagent.eval.runner import Evaluator, InFlight, PlayEpisode, RemoteEpisodeError
from proagent.eval.world import Resolved, World, resolve
from proagent.limits import MAX_CONCURRENCY
from proagent.llm.accounting import MeteredModel
from proagent.llm.types import LLMConfigError
from proagent.runner.episode import StepView

EXECUTORS = ("local", "ray")
MAX_RESTARTS = 3  # a worker process that dies is started again this often
MAX_RETRIES = 3  # an episode whose worker died is played again this often
PROGRESS_EVERY_S = 1.0  # how often the driver asks the workers how their episodes are going
# how long the driver waits for the workers' progress reports: a restarting worker's report waits for its new
# process (minutes on a busy machine), and the run's lease must be renewed meanwhile (request_slots.LEASE_S)
REPORT_WAIT_S = 5.0
MAX_EPISODES_PER_WORKER = MAX_CONCURRENCY  # calls Ray lets into a worker at once; the lanes send fewer

log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class GridSetup:
    """What a worker needs to play one grid's episodes. The driver puts it in the object store
    once per grid and every play call carries its reference, so a worker that Ray restarted (its
    constructor knows no grid) sets the grid up again from the call it retries."""

    config: EvalConfig
    attempt: str
    capacity: dict[str, int]
    run: str  # this grid's run, as the request caps know it
    slots: dict[Endpoint, Any]  # each endpoint's RequestSlots actor


@dataclass
class _Grid:
    """A grid as one worker process set it up: its player and envs."""

    player: EpisodePlayer
    source: EnvSource
    registered: list[Any]  # the slot registrations, awaited before the first request
    trace: bool  # send the episode's steps back (--trace)


@dataclass
class _Live:
    """An episode playing in a worker: its steps so far and the models it calls (their meters)."""

    steps: int = 0
    models: list[MeteredModel] = field(default_factory=list)

    def step(self, view: StepView) -> None:
        self.steps += 1

    def progress(self) -> tuple[int, int, int]:
        """(steps, LLM calls, tokens) so far."""
        usage = [model.meter.summary() for model in self.models]
        return self.steps, sum(u.calls for u in usage), sum(u.prompt_tokens + u.completion_tokens for u in usage)


class EpisodeWorker:
    """A Ray actor: plays the jobs it is given, in one process that resolves each grid's config
    itself (same domain, layouts and partners as the driver's). It is started before the first
    grid is known, so that its process imports the project while the driver prepares the run, and
    it plays every grid of a command (the grids of a paper table) in turn."""

    def __init__(self, world: World, index: int) -> None:
        self._node = this_node()
        self._world = world
        self._index = index
        self._grid_id: str | None = None
        self._grid: _Grid | str = ""  # the grid set up last, or why this node cannot play it
        self._setting_up = asyncio.Lock()
        self._resolved: tuple[str, Resolved | str] | None = None  # the last config resolved, and how
        self._live: dict[str, _Live] = {}  # key id -> the episode playing here

    def ready(self) -> bool:
        """True once the process is up (the constructor has run)."""
        return True

    def prepare(self, config: EvalConfig) -> None:
        """Resolve ``config`` now (its envs, its model's client library), before its grid's first
        episode arrives: the driver asks this while it resolves the grid itself."""
        self._resolution(config)

    def _resolution(self, config: EvalConfig) -> Resolved | str:
        """``config`` resolved in this process (kept for the grid that comes next), or why this
        node cannot."""
        key = config.model_dump_json()
        if self._resolved is None or self._resolved[0] != key:
            try:
                self._resolved = (key, resolve(config, self._world))
            except Exception as exc:  # noqa: BLE001 - a node without a partner or layout file: the run stops with its name
                self._resolved = (key, f"{self._node} cannot set up the run: {type(exc).__name__}: {first_line(exc)}")
        return self._resolved[1]

    async def play(self, grid_id: str, setup: list[Any], job: EpisodeJob) -> EpisodeResult:
        """``job``'s record, or its error as a string: the driver decides what a failure means.
        ``setup``: the grid's `GridSetup` reference, in a list so that Ray does not fetch it for
        every call, only when this process meets the grid for the first time."""
        grid = await self._grid_for(grid_id, setup[0])
        if isinstance(grid, str):
            return EpisodeResult(None, grid, config_error=True)
        await asyncio.gather(*grid.registered)
        live = self._live[job.key.id] = _Live()
        steps: list[dict] = []
        try:
            record = await grid.player.play(
                job, grid.source, live.models, steps.append if grid.trace else None, live.step
            )
        except LLMConfigError as exc:  # e.g. a model this node cannot load: the run stops, naming it
            return EpisodeResult(None, f"{self._node}: {exc}", config_error=True, spent_usd=spent(live.models))
        except Exception as exc:  # noqa: BLE001 - reported to the driver, which logs it in failures.jsonl
            return EpisodeResult(None, f"{type(exc).__name__}: {exc}", spent_usd=spent(live.models))
        finally:
            self._live.pop(job.key.id, None)
        return EpisodeResult(record, spent_usd=spent(live.models), trace=steps)

    def progress(self) -> dict[str, tuple[int, int, int]]:
        """Each episode playing here: (steps, LLM calls, tokens) so far, by key id."""
        return {key: live.progress() for key, live in self._live.items()}

    async def _grid_for(self, grid_id: str, setup_ref: Any) -> _Grid | str:
        async with self._setting_up:  # the grid's first calls arrive together: one sets it up
            if self._grid_id != grid_id:
                self._grid = self._set_up(await setup_ref)
                self._grid_id = grid_id
            return self._grid

    def _set_up(self, setup: GridSetup) -> _Grid | str:
        resolved = self._resolution(setup.config)
        if isinstance(resolved, str):
            return resolved
        config, worker, generation = setup.config, f"{setup.run}/{self._index}", uuid.uuid4().hex
        # frees what an earlier process of this worker held; awaited before this process's first request
        registered = [actor.register.remote(worker, generation) for actor in setup.slots.values()]

        in_process = semaphore_per_endpoint(config.llm_concurrency)

        def limit_for(endpoint: Endpoint) -> RequestLimit:
            """The endpoint's cluster-wide cap; a model that runs in this process (the embedded
            one) has no shared endpoint, so its cap is this process's."""
            actor = setup.slots.get(endpoint)
            return (
                in_process(endpoint)
                if actor is None
                else ClusterSlot(actor, setup.run, config.llm_concurrency, worker, generation)
            )

        pool = ModelPool(self._world.models_for(resolved.domain), config.cache_dir if config.cache else None, limit_for)
        player = EpisodePlayer(config, resolved.domain, resolved.envs, pool, setup.attempt)
        return _Grid(player, EnvSource(config, resolved.envs, setup.capacity), registered, config.trace)


class RayExecutor:
    """Connects to a cluster (``address``) or starts a local one, and gives the evaluator one lane
    per episode that may be in flight on it. Its workers live as long as the executor: started as
    soon as the command knows how many it wants (`start_workers`), reused by every grid."""

    def __init__(self, address: str | None, world: World) -> None:
        self._address = address
        # only what a worker needs: its own env cache is built (and compiled) in its own process
        self.worker_world = World(model_factory=world.model_factory, domains=world.domains)
        self._started = False
        self._actors: list[Any] = []
        self._setup: list[Any] = []  # the playing grid's GridSetup reference, kept alive while it plays
        self._live: dict[str, tuple[int, int, int]] = {}  # what the workers last said of their episodes
        self._poller: asyncio.Task[None] | None = None
        self._run = ""  # the playing grid's run, as the request caps know it
        self.request_slots: dict[Endpoint, Any] = {}  # the playing grid's endpoints' request caps
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

    def start_workers(self, wanted: int) -> int:
        """Start workers up to ``wanted`` (at most one per CPU of the cluster) without waiting for
        them: their processes start and import the project while this one goes on. Returns how
        many the executor has."""
        import ray

        count = max(1, min(int(ray.cluster_resources().get("CPU", 1)), wanted))
        remote = ray.remote(EpisodeWorker).options(**worker_options())
        self._actors += [remote.remote(self.worker_world, i) for i in range(len(self._actors), count)]
        return count

    def start_workers_for(self, configs: list[EvalConfig]) -> None:
        """Start the workers the largest of these grids can keep busy (its episodes in flight),
        and have them resolve the first grid meanwhile."""
        self.start_workers(max(min(c.concurrency, c.grid_episodes()) for c in configs))
        for actor in self._actors:
            actor.prepare.remote(configs[0])  # a head start only: a worker that misses it resolves later

    async def lanes(self, evaluator: Evaluator, jobs: list[EpisodeJob]) -> list[PlayEpisode]:
        """The lanes of one grid: ``jobs`` spread over the workers, each an equal share of the
        run's concurrency."""
        import ray

        config = evaluator.config
        in_flight = min(config.concurrency, len(jobs))
        workers = self.start_workers(in_flight)
        slots = math.ceil(in_flight / workers)
        self.end_grid()
        await self._join_request_caps(config)
        setup = GridSetup(config, evaluator.attempt, layout_capacity(slots, jobs), self._run, self.request_slots)
        self._setup = [ray.put(setup)]
        self._poller = asyncio.create_task(self._poll(self._actors[:workers]))
        return [self._lane(evaluator, actor) for actor in self._actors[:workers] for _ in range(slots)]

    async def _join_request_caps(self, config: EvalConfig) -> None:
        """Join the cluster-wide request cap of each endpoint the grid calls, as a new run; say
        so when another run holds an endpoint to a stricter cap than this one asks."""
        self._run = uuid.uuid4().hex
        self.request_slots = {endpoint: endpoint_slots(endpoint) for endpoint in played_endpoints(config)}
        joined = [actor.join.remote(self._run, config.llm_concurrency) for actor in self.request_slots.values()]
        for (llm, _), cap in zip(self.request_slots, await asyncio.gather(*joined), strict=True):
            if cap < config.llm_concurrency:
                log.warning("%s: %d requests in flight at most, not %d: another run on this cluster asked for %d",
                            llm, cap, config.llm_concurrency, cap)  # fmt: skip

    async def _poll(self, actors: list[Any]) -> None:
        """Ask the workers what their episodes have done, every ``PROGRESS_EVERY_S``, so the
        progress view moves between records as in a local run; and keep the run's lease on its
        request caps. The reports are waited for ``REPORT_WAIT_S`` at most: a worker whose process
        is being replaced answers only when its new process is up, and waiting for it would stop the
        renewals until the lease ran out (the run's waiting requests then refused)."""
        from ray.exceptions import RayError

        while True:
            await asyncio.sleep(PROGRESS_EVERY_S)
            for actor in self.request_slots.values():
                actor.renew.remote(self._run)
            asked = asyncio.gather(*(actor.progress.remote() for actor in actors))
            try:
                reports = await asyncio.wait_for(asked, REPORT_WAIT_S)
            except (RayError, TimeoutError):  # a worker restarting: it reports again when it is back
                continue
            self._live = {key: done for report in reports for key, done in report.items()}

    def in_flight(self, finished: set[str]) -> InFlight:
        live = [done for key, done in self._live.items() if key not in finished]
        return InFlight(*(sum(values) for values in zip(*live, strict=True))) if live else InFlight()

    def _lane(self, evaluator: Evaluator, actor: Any) -> PlayEpisode:
        """Plays on ``actor`` and brings the result home: its money into the one budget, its trace
        into trace.jsonl, its failure into the evaluator's failure handling."""
        from ray.exceptions import RayError

        grid_id, setup = evaluator.attempt, self._setup

        async def play(job: EpisodeJob, models: list[MeteredModel]) -> EvalRecord:
            try:
                result: EpisodeResult = await actor.play.remote(grid_id, setup, job)
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

    def end_grid(self) -> None:
        """The grid is played: it leaves its endpoints' request caps (which other runs may still
        use), and the workers stay for the next grid."""
        if self._poller is not None:
            self._poller.cancel()
        for actor in self.request_slots.values():
            actor.leave.remote(self._run)
        self.request_slots, self._setup, self._poller, self._live = {}, [], None, {}

    def close(self) -> None:
        """Stop the workers; end the Ray session only if this executor started it."""
        import ray

        self.end_grid()
        for actor in self._actors:
            ray.kill(actor)
        self._actors = []
        if self._started:
            ray.shutdown()
            self._started = False


def played_endpoints(config: EvalConfig) -> list[Endpoint]:
    """The endpoints of the LLM agents ``config`` plays (as agents, or as partners by name) that
    the cluster shares: not the embedded model, of which each worker process runs its own copy."""
    played = {a.name for a in config.agents} | set(config.partners)
    specs = [spec for name, spec in llm_specs(config).items() if name in played and not spec.embedded]
    return sorted({endpoint_of(spec) for spec in specs}, key=str)


def worker_options() -> dict[str, Any]:
    """Ray options of a worker actor: one CPU, as many episodes at once as the driver's lanes send
    it (they bound it, grid by grid), restarted (with its episodes in flight retried) when its
    process dies. No runtime_env: its env_vars are logged."""
    return {
        "num_cpus": 1,
        "max_concurrency": MAX_EPISODES_PER_WORKER,
        "max_restarts": MAX_RESTARTS,
        "max_task_retries": MAX_RETRIES,
    }


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
