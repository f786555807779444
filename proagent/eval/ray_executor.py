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
in flight are capped per worker at its share of ``llm_concurrency``, so the cap holds over the
cluster without a round trip per request.

Ray is imported only here, and only when this executor runs: the local executor needs no Ray.
"""

from __future__ import annotations

import math
import os
import re
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import proagent
from proagent.eval.config import EvalConfig
from proagent.eval.models import ModelPool
from proagent.eval.plan import EpisodeJob
from proagent.eval.player import EnvSource, EpisodePlayer, layout_capacity, spent
from proagent.eval.records import EvalRecord
from proagent.eval.runner import Evaluator, PlayEpisode, RemoteEpisodeError
from proagent.eval.world import World, resolve
from proagent.llm.accounting import MeteredModel
from proagent.llm.types import LLMConfigError
from proagent.runner.episode import StepView

EXECUTORS = ("local", "ray")
RAY_REQUIREMENT = "ray>=2.9"
# Endings of the names of environment variables that carry credentials or endpoints the LLM
# backends read: each node's workers should see the ones this shell sets (names compared, never values).
CREDENTIAL_SUFFIXES = ("_API_KEY", "_API_BASE", "_API_VERSION", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY")
# A head node's address as `ray start --head` prints it, a Ray client address, or auto.
ADDRESS = re.compile(r"^(auto|local|(ray://)?[A-Za-z0-9.\-]+:\d{1,5})$")
MAX_RESTARTS = 3  # a worker process that dies is started again this often
MAX_RETRIES = 3  # an episode whose worker died is played again this often


class ExecutorError(Exception):
    """The executor cannot run: one line that says why and what to do."""


def executor_problem(executor: str, address: str | None) -> str | None:
    """Why these flags cannot run, in one actionable line; None when they can. Checked before the
    run folder exists, so a typo costs no folder."""
    if address is not None and executor != "ray":
        return "--ray-address needs --executor ray (the local executor plays every episode in this process)"
    if executor != "ray":
        return None
    try:
        import ray  # noqa: F401 - only whether it imports
    except ImportError:
        return f'--executor ray needs Ray here and on every node: pip install "{RAY_REQUIREMENT}" (or run without it)'
    if address is not None and not ADDRESS.match(address):
        return f"--ray-address {address!r}: give a running head's host:port (as `ray start --head` prints), or auto"
    return None


def credential_names(environ: Mapping[str, str]) -> list[str]:
    """The names of the credentials and API endpoints set in ``environ``, by their endings."""
    return sorted(name for name in environ if name.upper().endswith(CREDENTIAL_SUFFIXES))


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
        self, config: EvalConfig, world: World, attempt: str, capacity: dict[str, int], llm_slots: int
    ) -> None:
        resolved = resolve(config, world)
        pool = ModelPool(world.model_factory, config.cache_dir if config.cache else None, llm_slots)
        self._player = EpisodePlayer(config, resolved.domain, resolved.envs, pool, attempt)
        self._source = EnvSource(config, resolved.envs, capacity)
        self._trace = config.trace

    async def play(self, job: EpisodeJob) -> EpisodeResult:
        """``job``'s record, or its error as a string: the driver decides what a failure means."""
        models: list[MeteredModel] = []
        steps: list[dict] = []
        try:
            record = await self._player.play(
                job, self._source, models, steps.append if self._trace else None, _no_count
            )
        except LLMConfigError as exc:
            return EpisodeResult(None, str(exc), config_error=True, spent_usd=spent(models))
        except Exception as exc:  # noqa: BLE001 - reported to the driver, which logs it in failures.jsonl
            return EpisodeResult(None, f"{type(exc).__name__}: {exc}", spent_usd=spent(models))
        return EpisodeResult(record, spent_usd=spent(models), trace=steps)


def _no_count(view: StepView) -> None:
    """Steps are counted by the driver when the record arrives."""


def _node_check(names: list[str]) -> tuple[str, list[str]]:
    """Runs on each node before the workers start (importing this module there is the check): the
    project's version there, and which of ``names`` its workers' environment lacks."""
    return proagent.__version__, [name for name in names if not os.environ.get(name)]


class RayExecutor:
    """Connects to a cluster (``address``) or starts a local one, and gives the evaluator one lane
    per episode that may be in flight on it."""

    def __init__(self, address: str | None, world: World) -> None:
        self._address = address
        # only what a worker needs: its own env cache is built (and compiled) in its own process
        self.worker_world = World(model_factory=world.model_factory, domains=world.domains)
        self._started = False
        self._actors: list[Any] = []
        self.warnings: list[str] = []  # one line each, for the command to show before the run

    def connect(self) -> None:
        """Join the cluster, then check that every node can import this project (ExecutorError)."""
        import ray

        unreachable = head_problem(self._address)
        if unreachable is not None:
            raise ExecutorError(unreachable)
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no reporting home from a research run
            try:
                ray.init(
                    address=self._address or "local",
                    include_dashboard=False,
                    log_to_driver=True,
                    logging_level="WARNING",
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self._address or "a local cluster"
                raise ExecutorError(f"cannot start Ray on {where}: {_first_line(exc)}") from None
            self._started = True
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
        llm_slots = max(1, config.llm_concurrency // workers)
        options = worker_options(slots)
        remote = ray.remote(EpisodeWorker).options(**options)
        capacity = layout_capacity(slots, jobs)
        self._actors = [
            remote.remote(config, self.worker_world, evaluator.attempt, capacity, llm_slots) for _ in range(workers)
        ]
        return [self._lane(evaluator, actor) for actor in self._actors for _ in range(slots)]

    def _lane(self, evaluator: Evaluator, actor: Any) -> PlayEpisode:
        """Plays on ``actor`` and brings the result home: its money into the one budget, its trace
        into trace.jsonl, its failure into the evaluator's failure handling."""
        from ray.exceptions import RayError

        async def play(job: EpisodeJob, models: list[MeteredModel]) -> EvalRecord:
            try:
                result: EpisodeResult = await actor.play.remote(job)
            except RayError as exc:  # the worker is gone for good (restarts spent, or it never started)
                raise RemoteEpisodeError(f"worker lost: {_first_line(exc)}", 0.0) from None
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
        self._actors = []
        if self._started:
            ray.shutdown()
            self._started = False


def worker_options(slots: int) -> dict[str, Any]:
    """Ray options of a worker actor: one CPU, ``slots`` episodes at once, restarted (with its
    episodes in flight retried) when its process dies. No runtime_env: its env_vars are logged."""
    return {"num_cpus": 1, "max_concurrency": slots, "max_restarts": MAX_RESTARTS, "max_task_retries": MAX_RETRIES}


NodeCheck = Callable[[list[str]], tuple[str, list[str]]]


def check_nodes(probe: NodeCheck = _node_check) -> tuple[list[str], list[str]]:
    """Problems (a node that cannot import this project, or runs another version of it) and
    warnings (a node whose workers lack a credential this shell sets), one line per node each.
    ``probe`` runs on every alive node; it is this module's, so unpickling it there is the import."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [node for node in ray.nodes() if node.get("Alive")]
    names = credential_names(os.environ)
    remote = ray.remote(num_cpus=0, max_retries=0)(probe)
    calls = [
        remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote(names)
        for node in nodes
    ]
    problems: list[str] = []
    warnings: list[str] = []
    for node, call in zip(nodes, calls, strict=True):
        name = f"node {node.get('NodeManagerHostname', '?')} ({node.get('NodeManagerAddress', '?')})"
        try:
            version, lacking = ray.get(call)
        except ray.exceptions.RayError as exc:
            problems.append(
                f"{name} cannot import proagent: {_first_line(exc)}; install the project there (pip install -e .)"
            )
            continue
        if version != proagent.__version__:
            problems.append(
                f"{name} runs proagent {version}, this machine {proagent.__version__}; install one version everywhere"
            )
        if lacking:
            warnings.append(
                f"{name}: its workers lack {', '.join(lacking)}, set here; export them before `ray start` on that node"
            )
    return problems, warnings


def head_problem(address: str | None, timeout_s: float = 5.0) -> str | None:
    """Why the head at ``host:port`` cannot be reached, or None (also for auto and ray://). Checked
    with one TCP connection first, because `ray.init` retries an unreachable head for minutes."""
    if address is None or "://" in address or ":" not in address:
        return None
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return f"--ray-address {address}: no Ray head answers there ({reason}); run `ray start --head` there or fix it"


def _first_line(exc: BaseException) -> str:
    """The gist of a (Ray) error, whose message may run to a remote traceback: its last non-blank
    line, which names the exception that started it."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


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
