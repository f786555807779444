"""Play one episode of an evaluation: build its team, open its environment, run it, label the record.

This is what every worker of a run does for each job, whichever process it lives in: the local
pool in `runner` and each Ray worker in `ray_executor` hold one `EpisodePlayer` and one
`EnvSource`, so an episode plays the same wherever it runs (same seed, same team, same env).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from proagent.agent.clock import tick_pace
from proagent.builder import AgentBuilder, llm_agent
from proagent.contract import Agent
from proagent.eval.config import PROAGENT, AgentSpec, EvalConfig
from proagent.eval.lockstep import LockstepEnv, SlotEnv
from proagent.eval.models import ModelPool
from proagent.eval.plan import EpisodeJob
from proagent.eval.records import EvalRecord
from proagent.llm.accounting import MeteredModel
from proagent.maeil.topology import TopologyConfig
from proagent.runner.episode import EpisodeEnv, SingleEnv, StepView, run_episode
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv

Tracer = Callable[[dict], None]


def layout_capacity(concurrency: int, jobs: list[EpisodeJob]) -> dict[str, int]:
    """Episodes of each layout that can be in flight at once: a lockstep batch needs no more slots."""
    counts: dict[str, int] = {}
    for job in jobs:
        counts[job.key.layout] = counts.get(job.key.layout, 0) + 1
    return {name: min(concurrency, n) for name, n in counts.items()}


class EnvSource:
    """Per-episode environments: a slot of the layout's LockstepEnv, or a SingleEnv."""

    def __init__(self, config: EvalConfig, envs: dict[str, DomainEnv], capacity: Mapping[str, int]) -> None:
        self._lockstep = config.stepping == "lockstep"
        self._envs = envs
        self._capacity = dict(capacity)
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


class EpisodePlayer:
    """Plays jobs of one run in this process: its LLM agents' models come from ``pool``."""

    def __init__(
        self, config: EvalConfig, domain: Domain, envs: dict[str, DomainEnv], pool: ModelPool, attempt: str
    ) -> None:
        self.config = config
        self.domain = domain
        self.envs = envs
        self.pool = pool
        self.attempt = attempt
        self.llm_specs = llm_specs(config)
        self.agent_configs = {name: spec.agent_config(domain.prompts_root) for name, spec in self.llm_specs.items()}

    async def play(
        self,
        job: EpisodeJob,
        source: EnvSource,
        models: list[MeteredModel],
        trace: Tracer | None,
        on_step: Callable[[StepView], None],
    ) -> EvalRecord:
        """The finished episode's record; ``models`` collects the LLM models it used (for what it spent)."""
        env = self.envs[job.key.layout]
        builder = self._builder(models)
        agent = builder.make(job.spec.name if job.spec.kind == PROAGENT else job.spec.kind, env)
        team = builder.team(env, job.key.seat, agent, job.key.partner)
        episode_env = source.open(job)
        try:
            record = await run_episode(
                env, self.domain, team, job.key.seat, job.seed, job.key.episode,
                trace=trace,
                on_step=on_step,
                episode_env=episode_env,
                topology=self._topology(job),
                wall_clock_s=self.config.wall_clock_s,
                pace=_pace(job),
            )  # fmt: skip
        finally:
            source.close(episode_env)
        extra = {
            "partner": job.key.partner, "agent": job.key.agent, "agent_kind": job.spec.kind, "spent_usd": spent(models),
            "attempt": self.attempt, "topology": job.topology, "repair": job.repair,
        }  # fmt: skip
        return EvalRecord(**{**record.model_dump(), **extra})

    def _topology(self, job: EpisodeJob) -> TopologyConfig | None:
        if job.topology is None:
            return None
        config = self.config
        return TopologyConfig(
            name=job.topology,
            leader=config.leader,
            message_budget=config.message_budget,
            feedback=config.feedback,
            repair=job.repair,
        )  # type: ignore[arg-type]

    def _builder(self, models: list[MeteredModel]) -> AgentBuilder:
        """This episode's builder: each LLM agent it builds gets the episode's own metered model
        (``models`` collects them, for the money the episode spent)."""

        def make(name: str) -> Callable[[DomainEnv], Agent]:
            def build(env: DomainEnv) -> Agent:
                model = self.pool.for_episode(self.llm_specs[name])
                models.append(model)
                return llm_agent(self.domain, env, self.agent_configs[name], model)

            return build

        return AgentBuilder(self.domain, {name: make(name) for name in self.llm_specs})


def llm_specs(config: EvalConfig) -> dict[str, AgentSpec]:
    """The LLM agents ``config`` may play, by name: its proagent agents, and the default one that
    `--partners proagent` without a proagent agent stands for."""
    specs = {a.name: a for a in config.agents if a.kind == PROAGENT}
    specs.setdefault(PROAGENT, AgentSpec())
    return specs


def spent(models: list[MeteredModel]) -> float:
    """Money an episode's models spent on fresh calls (their own meters; cache hits are free)."""
    return sum(model.meter.summary().cost_usd or 0.0 for model in models)


def _pace(job: EpisodeJob) -> Callable[[], Awaitable[None]] | None:
    """An LLM agent on a seconds clock: the world moves on at its tick (`tick_pace`)."""
    if job.spec.kind != PROAGENT:
        return None
    clock = job.spec.agent_config().settled_clock()
    return tick_pace(clock.seconds_per_step) if clock.seconds_per_step is not None else None
