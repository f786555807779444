"""Turns `proagent play`'s arguments into a ready session, reporting every bad input before any
episode starts (bad layout or domain, unknown partner or prompt set, missing API key or backend).
The pieces are the shared builder's (proagent/builder.py), as in `human` and `eval`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from proagent.agent.clock import tick_pace
from proagent.builder import (
    LLM_AGENT,
    AgentBuilder,
    LLMFlags,
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
    settled_partner,
    topology_problem,
)
from proagent.checkout import git_state
from proagent.contract import Agent
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
    args: argparse.Namespace
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
        return self.builder.team(self.env, self.args.seat, self.builder.make(LLM_AGENT, self.env), self.args.partner)


def build_session(args: argparse.Namespace) -> Session:
    settings = parse_settings(getattr(args, "env", None))
    domain, env = resolve_env(args.layout, args.horizon, getattr(args, "domain", None), getattr(args, "agents", None), settings)
    if not 0 <= args.seat < env.num_agents:
        raise SetupError(f"--seat {args.seat}: {env.name} has seats 0..{env.num_agents - 1}")
    args.partner = settled_partner(domain, env, args.partner)  # recorded and used as if given
    partner_seats = [s for s in range(env.num_agents) if s != args.seat]
    try:
        names = partner_names(args.partner, env.num_agents)
    except ValueError as exc:
        raise SetupError(str(exc)) from exc
    checker = session_builder(domain, None)
    provenance = {name: facts for name in sorted(set(names) - {LLM_AGENT}) if (facts := check_name(checker, name, env))}
    copies = [seat for seat, name in zip(partner_seats, names) if name == LLM_AGENT]  # copies of the agent in other seats
    topology = topology_config(args, domain)
    if topology is not None and topology.leader >= env.num_agents:  # never silently another leader
        raise SetupError(f"--leader {topology.leader}: {env.name} has seats 0..{env.num_agents - 1}")
    llm = prepare_llm(LLMFlags.from_args(args), domain, env, [args.seat, *copies], args.seed)
    builder = session_builder(domain, llm)
    folder = RunFolder.create(args.name or run_name_from(f"play-{env.name}-{args.partner.replace(',', '+')}"), **({"root": args.runs_dir} if args.runs_dir else {}))
    wall_clock_s = getattr(args, "wall_clock", None) or None  # 0: no budget
    commit, dirty = git_state()
    folder.write_json(
        "config.json",
        RunConfig(
            command=" ".join(["proagent", *sys.argv[1:]]),
            domain=args.domain or domain.name,  # what reloads it: a built-in name or module:attribute
            layout=env.name,
            partner=args.partner,
            partner_provenance=provenance,
            seat=args.seat,
            episodes=args.episodes,
            seed=args.seed,
            horizon=settled_horizon(domain, args.layout, args.horizon),
            wall_clock_s=wall_clock_s,
            llm=args.llm,
            api_base=args.api_base,
            llm_timeout_s=args.llm_timeout,
            agent=llm.config.model_dump(),
            num_agents=env.num_agents,
            env_settings=env_settings(domain, env),
            topology=topology.model_dump() if topology else None,
            prompt_hashes=llm.prompt_hashes,
            git_commit=commit,
            git_dirty=dirty,
            versions=package_versions(),
            created=datetime.now(UTC).isoformat(),
        ),
    )
    return Session(
        domain=domain, env=env, llm=llm, builder=builder, args=args, folder=folder, topology=topology, wall_clock_s=wall_clock_s
    )


def topology_config(args: argparse.Namespace, domain: Domain) -> TopologyConfig | None:
    """``--topology`` (with ``--leader``, ``--message-budget``) as a config, checked against the
    domain's prompts: a conversation needs the topology's template in ``<prompts>/_talk/``."""
    name = getattr(args, "topology", None)
    feedback = bool(getattr(args, "feedback", False))
    if feedback:
        problem = feedback_problem(domain, name is not None)
        if problem is not None:
            raise SetupError(f"--feedback: {problem}")
    repair = getattr(args, "repair", "off") or "off"
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
        name=name, leader=args.leader, message_budget=args.message_budget, feedback=feedback, repair=repair
    )
