"""Turns a `proagent play` request (`cli/requests.py`) into a ready session, reporting every bad input before any
episode starts (bad layout or domain, unknown partner or prompt set, missing API key or backend).
The pieces are the shared builder's (proagent/builder.py), as in `human` and `eval`."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from proagent.agent.clock import tick_pace
from proagent.builder import (
    LLM_AGENT,
    AgentBuilder,
    LLMSeat,
    SetupError,
    check_name,
    env_settings,
    feedback_problem,
    parse_settings,
    partner_names,
    prepare_llm,
    repair_problem,
    resolve_env,
    session_builder,
    settled_horizon,
    settled_layout,
    settled_partner,
    topology_problem,
)
from proagent.checkout import git_state
from proagent.cli.requests import PlayRequest
from proagent.contract import Agent
from proagent.llm.scripted import describe_with_adapter
from proagent.llm.types import Model
from proagent.maeil.topology import TopologyConfig
from proagent.runner.records import RunConfig
from proagent.runner.run_folder import RunFolder, package_versions, run_name_from
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv

__all__ = ["Session", "SetupError", "build_session"]


@dataclass
class Session:
    domain: Domain
    env: DomainEnv
    llm: LLMSeat
    builder: AgentBuilder
    request: PlayRequest  # settled: the layout and partner as played (the world's defaults filled in)
    folder: RunFolder
    topology: TopologyConfig | None = None
    wall_clock_s: float | None = None  # each episode's wall-clock budget (--wall-clock); None: none

    @property
    def model(self) -> Model:
        return self.llm.model

    @property
    def embedded(self) -> bool:
        return self.llm.embedded

    def pace(self) -> Callable[[], Awaitable[None]] | None:
        """A seconds clock's tick (the world moves on whatever the model does); None otherwise."""
        clock = self.llm.config.settled_clock()
        return tick_pace(clock.seconds_per_step) if clock.seconds_per_step is not None else None

    def new_team(self) -> list[Agent]:
        """ProAgent in ``--seat``, a fresh ``--partner`` in every other seat."""
        partner = self.request.partner or ""
        return self.builder.team(self.env, self.request.seat, self.builder.make(LLM_AGENT, self.env), partner)


def build_session(request: PlayRequest) -> Session:
    """Every check of the request, then the run folder and its config.json."""
    settings = parse_settings(list(request.env))
    layout = settled_layout(request.layout, request.domain)  # recorded and used as if given
    domain, env = resolve_env(layout, request.horizon, request.domain, request.agents, settings)
    seat = request.seat
    if not 0 <= seat < env.num_agents:
        raise SetupError(f"--seat {seat}: {env.name} has seats 0..{env.num_agents - 1}")
    partner = settled_partner(domain, env, request.partner)  # recorded and used as if given
    request = request.model_copy(update={"layout": layout, "partner": partner})
    partner_seats = [s for s in range(env.num_agents) if s != seat]
    try:
        names = partner_names(partner, env.num_agents)
    except ValueError as exc:
        raise SetupError(str(exc)) from exc
    checker = session_builder(domain, None)
    provenance = {name: facts for name in sorted(set(names) - {LLM_AGENT}) if (facts := check_name(checker, name, env))}
    copies = [s for s, name in zip(partner_seats, names) if name == LLM_AGENT]  # copies of the agent in other seats
    topology = topology_config(request, domain)
    if topology is not None and topology.leader >= env.num_agents:  # never silently another leader
        raise SetupError(f"--leader {topology.leader}: {env.name} has seats 0..{env.num_agents - 1}")
    llm = prepare_llm(request.llm, domain, env, [seat, *copies], request.seed, topology is not None)
    builder = session_builder(domain, llm)
    name = request.name or run_name_from(f"play-{env.name}-{partner.replace(',', '+')}")
    folder = RunFolder.create(name, **({"root": request.runs_dir} if request.runs_dir else {}))
    wall_clock_s = request.wall_clock_s or None  # 0: no budget
    folder.write_json("config.json", _run_config(request, domain, env, llm, provenance, topology))
    return Session(
        domain=domain,
        env=env,
        llm=llm,
        builder=builder,
        request=request,
        folder=folder,
        topology=topology,
        wall_clock_s=wall_clock_s,
    )


def _run_config(
    request: PlayRequest,
    domain: Domain,
    env: DomainEnv,
    llm: LLMSeat,
    provenance: dict,
    topology: TopologyConfig | None,
) -> RunConfig:
    """What config.json records of a settled request: enough to run it again."""
    commit, dirty = git_state()
    return RunConfig(
        command=shlex.join(request.command_line),
        domain=request.domain or domain.name,  # what reloads it: a built-in name or module:attribute
        layout=env.name,
        partner=request.partner or "",
        partner_provenance=provenance,
        seat=request.seat,
        episodes=request.episodes,
        seed=request.seed,
        horizon=settled_horizon(domain, request.layout or env.name, request.horizon),
        wall_clock_s=request.wall_clock_s or None,
        llm=request.llm.llm,
        model=describe_with_adapter(request.llm.llm, request.llm.adapter_file),
        api_base=request.llm.api_base,
        llm_timeout_s=request.llm.llm_timeout,
        agent=llm.config.model_dump(),
        num_agents=env.num_agents,
        env_settings=env_settings(domain, env),
        topology=topology.model_dump() if topology else None,
        prompt_hashes=llm.prompt_hashes,
        git_commit=commit,
        git_dirty=dirty,
        versions=package_versions(),
        created=datetime.now(UTC).isoformat(),
    )


def topology_config(request: PlayRequest, domain: Domain) -> TopologyConfig | None:
    """``--topology`` (with ``--leader``, ``--message-budget``, ``--feedback``, ``--repair``) as a
    config, checked against the domain's prompts: a conversation needs the topology's template in
    ``<prompts>/_talk/``."""
    name, feedback, repair = request.topology, request.feedback, request.repair
    if feedback:
        problem = feedback_problem(domain, name is not None)
        if problem is not None:
            raise SetupError(f"--feedback: {problem}")
    if repair != "off":
        problem = repair_problem(domain)
        if problem is not None:
            raise SetupError(f"--repair {repair}: {problem}")
        name = name or "individual"  # repair runs inside MAEIL: with no topology, agents plan side by side
    if name is None:
        return None
    problem = topology_problem(domain, name)
    if problem is not None:
        raise SetupError(f"--topology {name}: {problem}; topologies run where one exists")
    return TopologyConfig(
        name=name, leader=request.leader, message_budget=request.message_budget, feedback=feedback, repair=repair
    )

