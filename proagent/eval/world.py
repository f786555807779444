"""What an evaluation draws on (its domain, the model factory, environments), and the check that
every name in a config exists before the first episode: the domain, layouts, partners (per
layout: trained partners exist for some layouts only), agent kinds, seats, prompt sets and LLM
specs."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from proagent.agent.prompts import PromptSetError
from proagent.builder import (
    AgentBuilder,
    SetupError,
    check_llm_agent,
    clock_problem,
    feedback_problem,
    make_env,
    provenance_of,
    repair_problem,
    settled_horizon,
    settled_partner,
    topology_problem,
)
from proagent.contract import UnknownAgentError
from proagent.domains import get_domain
from proagent.eval.config import DEFAULT_PARTNER, PROAGENT, ConfigError, EvalConfig
from proagent.eval.models import ModelFactory, default_model_factory
from proagent.llm.types import LLMError
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, DomainInputError


class EnvCache:
    """Environments by (domain, layout spec, horizon). Reusing one env reuses its compiled
    functions, which is what makes a second evaluation in the same process (tests, ablations) start fast."""

    def __init__(self) -> None:
        self._envs: dict[tuple[str, str, int], DomainEnv] = {}

    def get(self, domain: Domain, spec: str, horizon: int, settings: Mapping[str, str] | None = None) -> DomainEnv:
        key = (domain.name, spec, horizon, tuple(sorted((settings or {}).items())))
        if key not in self._envs:
            self._envs[key] = make_env(domain, spec, horizon, settings)
        return self._envs[key]


@dataclass
class World:
    model_factory: ModelFactory | None = None  # None: the model each spec's ``llm`` names (`models_for`)
    envs: EnvCache = field(default_factory=EnvCache)
    domains: Callable[[str], Domain] = get_domain  # name -> domain (tests may plug in their own)
    _cache: dict[str, Domain] = field(default_factory=dict, repr=False)

    def models_for(self, domain: Domain) -> ModelFactory:
        """The factory of the models that play ``domain``: the one given, else `default_model_factory`
        with the world's scripted planner (``llm: scripted``)."""
        if self.model_factory is not None:
            return self.model_factory
        scripted = domain.capabilities.scripted
        return partial(default_model_factory, planner=None if scripted is None else scripted.answer)

    def domain(self, name: str) -> Domain:
        """One domain object per name for the world's life (its partner registry loads once)."""
        if name not in self._cache:
            self._cache[name] = self.domains(name)
        return self._cache[name]


@dataclass(frozen=True)
class Resolved:
    """A checked config's domain, environments (by canonical layout name) and provenance hashes."""

    domain: Domain
    envs: dict[str, DomainEnv]
    prompt_hashes: dict[str, dict[str, str]]  # agent name -> template file -> hash
    knowledge_hash: str
    partner_provenance: dict[str, dict[str, dict]] = field(default_factory=dict)  # partner -> layout -> provenance
    partners: dict[str, list[str]] = field(default_factory=dict)  # layout -> its partners, `default` resolved


def llm_agent_names(config: EvalConfig) -> set[str]:
    """Names that build an LLM agent in any seat: each proagent spec's name, and ``proagent``."""
    return {a.name for a in config.agents if a.kind == PROAGENT} | {PROAGENT}


def resolve(config: EvalConfig, world: World) -> Resolved:
    """Check every name in ``config``; a ConfigError lists all problems with their field paths."""
    try:
        domain = world.domain(config.domain)
    except DomainInputError as exc:
        raise ConfigError(f"invalid config: domain: {exc}") from None
    problems: list[str] = []
    envs = _resolve_layouts(config, world, domain, problems)
    _check_seats(config, envs, problems)
    provenance: dict[str, dict[str, dict]] = {}  # every non-LLM agent and partner that has one
    defaults = _default_partners(config, domain, envs, problems)
    partners = _layout_partners(config, envs, defaults)
    _check_partners(config, domain, envs, problems, provenance, defaults)
    _check_topologies(config, domain, problems)
    hashes = _check_agents(config, world, domain, envs, problems, provenance)
    if problems:
        raise ConfigError("invalid config: " + "; ".join(problems))  # one line, as every bad input
    return Resolved(domain, envs, hashes, knowledge_hash(domain.knowledge_root), provenance, partners)


def _default_partners(
    config: EvalConfig, domain: Domain, envs: dict[str, DomainEnv], problems: list[str]
) -> dict[str, str]:
    """Each layout's default teammate (`settled_partner`), resolved once, when ``default`` is
    listed; a layout without one is a problem."""
    if DEFAULT_PARTNER not in config.partners:
        return {}
    defaults: dict[str, str] = {}
    for layout, env in envs.items():
        try:
            defaults[layout] = settled_partner(domain, env, None)
        except SetupError as exc:
            problems.append(f"partners: {DEFAULT_PARTNER} on layout {layout!r}: {exc}")
    return defaults


def _layout_partners(config: EvalConfig, envs: dict[str, DomainEnv], defaults: dict[str, str]) -> dict[str, list[str]]:
    """Each layout's partners: the config's, with ``default`` replaced by that layout's default
    teammate, so the episodes and records name the partner that played."""
    out: dict[str, list[str]] = {}
    for layout in envs:
        names = [defaults.get(layout) if entry == DEFAULT_PARTNER else entry for entry in config.partners]
        out[layout] = list(dict.fromkeys(n for n in names if n is not None))  # `default` may name a listed one
    return out


def _resolve_layouts(config: EvalConfig, world: World, domain: Domain, problems: list[str]) -> dict[str, DomainEnv]:
    envs: dict[str, DomainEnv] = {}
    for i, spec in enumerate(config.layouts):
        try:
            settings = {key: "none" if value is None else str(value) for key, value in config.env.items()}
            env = world.envs.get(domain, spec, settled_horizon(domain, spec, config.horizon), settings)
        except DomainInputError as exc:
            problems.append(f"layouts[{i}]: {exc}")
            continue
        if env.name in envs:
            problems.append(f"layouts[{i}]: {spec!r} is layout {env.name!r}, which is listed already")
        envs[env.name] = env
    return envs


def _check_seats(config: EvalConfig, envs: dict[str, DomainEnv], problems: list[str]) -> None:
    for i, seat in enumerate(config.seats):
        small = [name for name, env in envs.items() if seat >= env.num_agents]
        if small:
            problems.append(f"seats[{i}]: seat {seat} does not exist on {', '.join(small)} (seats start at 0)")
    small = [name for name, env in envs.items() if config.leader >= env.num_agents]
    if config.topologies and small:  # a leader no layout seats would silently hand the lead to seat 0
        problems.append(f"leader: seat {config.leader} does not exist on {', '.join(small)} (seats start at 0)")


def _check_partner(
    domain: Domain, name: str, envs: dict[str, DomainEnv], provenance: dict[str, dict[str, dict]]
) -> str | None:
    """None when ``name`` can play every layout (its provenance, if any, is added to ``provenance``)."""
    builder = AgentBuilder(domain)
    for layout, env in envs.items():
        try:
            partner = builder.make(name, env)
        except (UnknownAgentError, ValueError) as exc:
            return (
                f"{exc} (or an LLM agent: {PROAGENT})"
                if isinstance(exc, UnknownAgentError)
                else f"on layout {layout!r}: {exc}"
            )
        facts = provenance_of(partner)
        if facts:
            provenance.setdefault(name, {})[layout] = facts
    return None


def _check_partners(
    config: EvalConfig,
    domain: Domain,
    envs: dict[str, DomainEnv],
    problems: list[str],
    provenance: dict[str, dict[str, dict]],
    defaults: dict[str, str],
) -> None:
    llm_names = llm_agent_names(config)
    for i, entry in enumerate(config.partners):
        if entry == DEFAULT_PARTNER:
            _check_defaults(domain, envs, problems, provenance, defaults)
            continue
        for name in entry.split("+"):  # one name for every other seat, or one per seat (pusher+proagent)
            if name in llm_names:
                continue  # an LLM agent of this config (checked with the agents)
            problem = _check_partner(domain, name, envs, provenance)
            if problem:
                problems.append(f"partners[{i}]: {problem}")
        sizes = {env.num_agents for env in envs.values()}
        if "+" in entry and sizes != {entry.count("+") + 2}:
            problems.append(
                f"partners[{i}]: {entry!r} names {entry.count('+') + 1} seats' agents; the layouts have "
                f"{sorted(sizes)} agents"
            )


def _check_defaults(
    domain: Domain,
    envs: dict[str, DomainEnv],
    problems: list[str],
    provenance: dict[str, dict[str, dict]],
    defaults: dict[str, str],
) -> None:
    """Each layout's default teammate builds on its layout (a missing default was reported already)."""
    for layout, name in defaults.items():
        problem = _check_partner(domain, name, {layout: envs[layout]}, provenance)
        if problem:
            problems.append(f"partners: {DEFAULT_PARTNER} on layout {layout!r}: {problem}")


def _check_topologies(config: EvalConfig, domain: Domain, problems: list[str]) -> None:
    """A topology needs its conversation template in the domain's prompts (``_talk/<name>.j2``)."""
    for i, name in enumerate(config.topologies):
        problem = topology_problem(domain, name)
        if problem is not None:
            problems.append(f"topologies[{i}]: {problem}")
    if config.feedback:
        problem = feedback_problem(domain, bool(config.topologies))
        if problem is not None:
            problems.append(f"feedback: {problem}")
    if config.repair != "off":
        problem = repair_problem(domain)
        if problem is not None:
            problems.append(f"repair: {problem}")


def _check_agents(
    config: EvalConfig,
    world: World,
    domain: Domain,
    envs: dict[str, DomainEnv],
    problems: list[str],
    provenance: dict[str, dict[str, dict]],
) -> dict[str, dict[str, str]]:
    hashes: dict[str, dict[str, str]] = {}
    models_checked: set[tuple[str, str | None]] = set()
    all_seats = sorted({s for env in envs.values() for s in range(env.num_agents)})
    for i, spec in enumerate(config.agents):
        if spec.kind != PROAGENT:
            problem = _check_partner(domain, spec.kind, envs, provenance)
            if problem:
                problems.append(f"agents[{i}].kind: {problem.replace('partner', 'agent kind', 1)}")
            continue
        # repair without topologies plays MAEIL's individual topology (`proagent.eval.plan`): MAEIL all the same
        maeil = bool(config.topologies) or config.repair != "off"
        problem = clock_problem(domain, spec.agent_config(), topology=maeil)
        if problem is not None:
            problems.append(f"agents[{i}]: {problem}")
        try:
            for env in envs.values():
                # every seat: the agent's own, and the partner seats it fills when named as a partner
                seats = [s for s in all_seats if s < env.num_agents]
                hashes[spec.name] = check_llm_agent(
                    domain, env, spec.agent_config(domain.prompts_root), seats, config.seed
                )
        except PromptSetError as exc:
            problems.append(f"agents[{i}].prompt: {exc}")
        if (spec.llm, spec.api_base) in models_checked:
            continue
        models_checked.add((spec.llm, spec.api_base))
        try:
            world.models_for(domain)(spec)
        except LLMError as exc:
            problems.append(f"agents[{i}].llm: {exc}")
    return hashes


def knowledge_hash(root: Path) -> str:
    """One hash over the domain's knowledge (task text, rules, skills, layout notes, demos): they
    shape every prompt. A plugged-in domain's own folder is hashed, not the repository's."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
