"""One builder of agents and teams, shared by every front end (play, eval, human, ablate).

A seat is filled by name: an LLM agent the caller configured (``llm_agents``: name -> factory,
e.g. ``proagent``), else one of the domain's partners (scripted, trained, human proxies). So any
agent can fill any seat: ProAgent with a copy of itself, two LLM agents with different models, or
a scripted pair. The front ends differ only in where the names and the model come from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from proagent.adapter_choice import AdapterChoice, adapter_to_play
from proagent.agent.background import BackgroundProAgent
from proagent.agent.belief import BeliefMode
from proagent.agent.clock import ClockFallback
from proagent.agent.config import AgentConfig
from proagent.agent.memory import MemoryRetrieval
from proagent.agent.presets import model_defaults
from proagent.agent.proagent import ProAgent
from proagent.agent.probe import check_probe
from proagent.agent.prompt_check import check_prompt_set
from proagent.agent.prompts import PromptSetError, load_prompt_set
from proagent.agent.token_clock import TokenClockProAgent
from proagent.agent.verificator_modes import VerificatorMode
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import domain_for
from proagent.llm.factory import EMBEDDED_SPEC, make_model
from proagent.llm.scripted import ScriptedPlanner, is_scripted
from proagent.llm.types import LLMError, Model
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, DomainInputError

LLM_AGENT = "proagent"  # the name of the LLM agent kind in every front end


def llm_agent(domain: Domain, env: DomainEnv, config: AgentConfig, model: Model, background: bool = False) -> ProAgent:
    """A ProAgent for ``env`` (reset it with its seat, seed and first observation before playing).
    ``background`` (or ``--clock seconds:S``): it keeps answering (the idle action) while it thinks, for
    real-time play; ``--clock tokens:N``: each decision costs world steps (`TokenClockProAgent`)."""
    kind = config.settled_clock().kind
    if background or kind == "seconds":
        return BackgroundProAgent(config, model, domain, env)
    return (TokenClockProAgent if kind == "tokens" else ProAgent)(config, model, domain, env)


def clock_problem(domain: Domain, config: AgentConfig, topology: bool = False) -> str | None:
    """Why ``config``'s clock or its fallback cannot run in ``domain`` (``topology``: under MAEIL), as one
    line naming the flag: a turn-based world and MAEIL's conversation rounds have only turns, a fallback
    needs a clock that moves, and the scripted fallback needs the world's scripted planner."""
    kind, fallback = config.settled_clock().kind, config.clock_fallback
    if domain.turn_based and kind != "turns":
        return (
            f"--clock {config.clock}: the {domain.name} world is turn-based: it waits for every move, "
            "so only --clock turns applies"
        )
    if topology and kind != "turns":
        return (
            f"--clock {config.clock}: MAEIL's conversation (a topology or --repair) waits for every speaker, so it "
            "plays only under --clock turns; without a topology and repair each agent of the team plays on this clock"
        )
    if fallback != "idle" and kind == "turns":
        return (
            f"--clock-fallback {fallback}: under --clock turns the world waits for every decision; "
            "give --clock tokens:N or seconds:S"
        )
    if fallback == "scripted" and domain.capabilities.scripted is None:
        return (
            f"--clock-fallback scripted: the {domain.name} world ships no scripted planner to act meanwhile; "
            "use idle or continue"
        )
    return None


def check_llm_agent(domain: Domain, env: DomainEnv, config: AgentConfig, seats: list[int], seed: int) -> dict[str, str]:
    """Render every template of the agent's prompt set on this env's first state from each seat
    (raises PromptSetError); returns the set's source hashes for the run's provenance."""
    prompts = load_prompt_set(config.prompt, domain.prompts_root)
    first = env.symbolic(env.jit_reset(_key(seed)))
    for seat in seats:
        check_prompt_set(prompts, domain, env, first, seat, config.settled_verificator(prompts))
        if config.belief_probe:
            check_probe(domain, env, config.probe_template, first, seat)
    return prompts.source_hashes()


def _key(seed: int):
    import jax

    return jax.random.PRNGKey(seed)


@dataclass
class AgentBuilder:
    """Builds the agent for a name on one env: a configured LLM agent, else a domain partner."""

    domain: Domain
    llm_agents: Mapping[str, Callable[[DomainEnv], Agent]] = field(default_factory=dict)

    def names(self, env: DomainEnv | None = None) -> list[str]:
        return sorted({*self.llm_agents, *self.domain.partner_names(env)})

    def make(self, name: str, env: DomainEnv) -> Agent:
        """Raises UnknownAgentError listing every name, or ValueError when a partner cannot play ``env``."""
        if name in self.llm_agents:
            return self.llm_agents[name](env)
        try:
            return self.domain.make_partner(name, env)
        except UnknownAgentError:
            raise UnknownAgentError(
                f"unknown partner {name!r}; available partners: {', '.join(self.names(env))}"
            ) from None

    def team(self, env: DomainEnv, focal_seat: int, focal: Agent, partner: str) -> list[Agent]:
        """``focal`` in its seat, a fresh ``partner`` in every other seat; a comma-separated
        ``partner`` (``pusher,proagent``) names the other seats' agents in seat order."""
        if not 0 <= focal_seat < env.num_agents:
            raise ValueError(f"seat {focal_seat} does not exist: {env.name} has seats 0..{env.num_agents - 1}")
        names = partner_names(partner, env.num_agents)
        others = iter(names)
        return [focal if seat == focal_seat else self.make(next(others), env) for seat in range(env.num_agents)]


class SetupError(ValueError):
    """A bad input found while building a session, with the message a user needs to fix it."""


def partner_names(partner: str, num_agents: int) -> list[str]:
    """The agents of the non-focal seats, in seat order: one name for all, or one per seat
    (``pusher,proagent`` or ``pusher+proagent``); ValueError when a list does not match the team size.
    A checkpoint folder is one name even when its path holds a ``,`` or ``+``."""
    if Path(partner).is_dir():
        return [partner] * (num_agents - 1)
    names = [n.strip() for n in partner.replace("+", ",").split(",")]
    if len(names) == 1:
        return names * (num_agents - 1)
    if len(names) != num_agents - 1 or not all(names):
        raise ValueError(
            f"--partner {partner!r}: a list names the {num_agents - 1} other seats' agents, got {len(names)} names"
        )
    return names


class LLMFlags(BaseModel):
    """The LLM agent's command-line options (``cli/agent_options.py``), typed: what play and the
    human page pass to ``prepare_llm`` (the command line reads them in ``cli/requests.py``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    llm: str = "embedded"
    api_base: str | None = None
    llm_timeout: float = Field(60.0, gt=0)
    cache_dir: Path | None = None
    no_cache: bool = False
    prompt: str | None = None
    belief: BeliefMode = "replace"
    memory_k: int = Field(5, ge=0)
    memory_retrieval: MemoryRetrieval | None = None
    max_replans: int = Field(4, ge=0)
    verificator: VerificatorMode | None = None
    no_loop_check: bool = False
    legal_only: Literal["auto", "on", "off"] = "auto"
    belief_probe: bool = False
    probe_forced: bool = False
    threads: int | None = Field(None, ge=1)
    # the embedded model's LoRA adapter (--adapter): a file, "none" (the raw model) or None (the default)
    adapter: AdapterChoice = None
    clock: str = "turns"
    clock_fallback: ClockFallback = "idle"

    @property
    def adapter_file(self) -> Path | None:
        """The adapter file the model plays with (None: none)."""
        return adapter_to_play(self.adapter, self.llm)


def agent_config(flags: LLMFlags, embedded: bool, prompts_root: Path | None = None) -> AgentConfig:
    """The agent's config from the shared agent flags (``--prompt``, ``--belief``...); settings
    left on auto follow the model and the world's prompt sets (agent/presets.py)."""
    legal_only = {"auto": "auto", "on": True, "off": False}[flags.legal_only]
    defaults = model_defaults(embedded, flags.prompt, legal_only, prompts_root=prompts_root)
    return AgentConfig(
        **defaults.model_dump(),
        belief=flags.belief,
        memory_k=flags.memory_k,
        memory_retrieval=flags.memory_retrieval,
        verificator=flags.verificator,
        loop_check=not flags.no_loop_check,
        max_replans=flags.max_replans,
        belief_probe=flags.belief_probe,
        probe_forced=flags.probe_forced,
        clock=flags.clock,
        clock_fallback=flags.clock_fallback,
    )


def settled_layout(layout: str | None, domain_spec: str | None) -> str:
    """``layout`` when given, else the named world's own default layout (the default world's
    without ``--domain``): every front end asks here, so none falls back on another world's layout."""
    if layout is not None:
        return layout
    try:
        return domain_for(None, domain_spec).default_layout()
    except DomainInputError as exc:
        raise SetupError(str(exc)) from exc


def settled_horizon(domain: Domain, layout: str, horizon: int | None) -> int:
    """``horizon`` when given, else the layout's own (`Domain.default_horizon`)."""
    return horizon if horizon is not None else int(domain.default_horizon(layout))


def settled_partner(domain: Domain, env: DomainEnv, partner: str | None) -> str:
    """``partner`` when given, else the world's default teammate for ``env``."""
    if partner:
        return partner
    try:
        return domain.default_partner(env)
    except DomainInputError as exc:
        raise SetupError(str(exc)) from exc


def make_env(domain: Domain, layout: str, horizon: int, settings: Mapping[str, str] | None = None) -> DomainEnv:
    """``domain``'s env of ``layout``; ``settings`` (``--env KEY=VALUE``) go to a world with the
    `EnvSettings` capability, else they are refused in one line."""
    if not settings:
        return domain.make_env(layout, horizon)
    if domain.capabilities.settings is None:
        raise DomainInputError(
            f"--env {next(iter(settings))}=...: the {domain.name} domain takes no environment settings"
        )
    return domain.capabilities.settings.make_env_with(layout, horizon, settings)


def parse_settings(items: Sequence[str] | None) -> dict[str, str]:
    """``--env KEY=VALUE`` flags as a dict (SetupError on an item without '=')."""
    out: dict[str, str] = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SetupError(f"--env {item!r}: expected KEY=VALUE, e.g. --env agent_view_size=2")
        out[key.strip()] = value.strip()
    return out


def feedback_problem(domain: Domain, has_topology: bool) -> str | None:
    """Why environment feedback cannot run: the world gives no snapshot, or no topology carries messages."""
    if domain.capabilities.feedback is None:
        return f"the {domain.name} world gives no environment feedback snapshot"
    if not has_topology:
        return "it rides on the leader's messages: give a topology too"
    return None


def repair_problem(domain: Domain) -> str | None:
    """Why COOP²-Repair cannot run: the world gives no plan-effect estimate."""
    if domain.capabilities.plan_effects is None:
        return f"the {domain.name} world gives no plan-effect estimate (worlds that do: see `proagent layouts`)"
    return None


def topology_problem(domain: Domain, topology: str) -> str | None:
    """Why ``domain`` cannot run ``topology`` (its prompts lack the conversation template
    ``_talk/<name>.j2``), or None."""
    template = domain.prompts_root / "_talk" / f"{topology}.j2"
    return None if template.is_file() else f"the {domain.name} prompts have no conversation template {template}"


def env_settings(domain: Domain, env: DomainEnv) -> dict | None:
    """What a run records of the env's rules (the `EnvSettings` capability), if the world has it."""
    settings = domain.capabilities.settings
    return settings.describe(env) if settings is not None else None


def resolve_env(
    layout: str,
    horizon: int | None,
    domain_spec: str | None = None,
    num_agents: int | None = None,
    settings: Mapping[str, str] | None = None,
) -> tuple[Domain, DomainEnv]:
    """The domain (``--domain``, else the one owning the layout) and the layout's env (``horizon``
    None: the layout's own, `settled_horizon`; ``settings``: ``--env``), with ``num_agents``
    agents (``--agents``) where the domain can change a layout's team size."""
    try:
        domain = domain_for(layout, domain_spec)
        horizon = settled_horizon(domain, layout, horizon)
        env = make_env(domain, layout, horizon, settings)
        if num_agents is None or num_agents == env.num_agents:
            return domain, env
        teams = domain.capabilities.teams
        if teams is None:
            raise SetupError(
                f"--agents {num_agents}: {env.name} is a {env.num_agents}-agent layout and {domain.name} layouts have "
                "fixed teams"
            )
        return domain, teams.make_team_env(layout, horizon, num_agents)
    except DomainInputError as exc:
        raise SetupError(str(exc)) from exc


@dataclass
class LLMSeat:
    """The LLM agent a session plays: its settled config, its model and its provenance."""

    config: AgentConfig
    model: Model
    prompt_hashes: dict[str, str]
    embedded: bool


def prepare_llm(
    flags: LLMFlags, domain: Domain, env: DomainEnv, seats: list[int], seed: int, topology: bool = False
) -> LLMSeat:
    """Check the prompt set on every seat the agent may take and make the model (``--llm``,
    ``--api-base``, ``--llm-timeout``, ``--cache-dir``/``--no-cache``); one SetupError otherwise
    (``topology``: the agent talks through MAEIL, which runs on turns only)."""
    embedded = flags.llm.split(":")[0] == EMBEDDED_SPEC
    config = agent_config(flags, embedded, domain.prompts_root)
    problem = clock_problem(domain, config, topology)
    if problem is not None:
        raise SetupError(problem)
    try:
        hashes = check_llm_agent(domain, env, config, seats, seed)
        cache_dir = None if flags.no_cache else flags.cache_dir
        planner = scripted_planner(domain, flags.llm)
        model = make_model(
            flags.llm, api_base=flags.api_base, cache_dir=cache_dir, timeout_s=flags.llm_timeout, planner=planner,
            threads=flags.threads, adapter=flags.adapter_file,
        )
    except (PromptSetError, LLMError) as exc:
        raise SetupError(str(exc)) from exc
    return LLMSeat(config, model, hashes, embedded)


def scripted_planner(domain: Domain, llm: str) -> ScriptedPlanner | None:
    """The world's scripted planner when ``--llm`` names it (`proagent.llm.scripted`), else None;
    SetupError, in one line, for a world that ships none."""
    if not is_scripted(llm):
        return None
    scripted = domain.capabilities.scripted
    if scripted is None:
        raise SetupError(f"--llm scripted: the {domain.name} world ships no scripted planner; name a model instead")
    return scripted.answer


def session_builder(domain: Domain, llm: LLMSeat | None, background: bool = False) -> AgentBuilder:
    """The builder of a play/human session: ``proagent`` is the session's LLM agent (every seat
    that names it gets its own ProAgent on the same model), any other name a domain partner."""
    if llm is None:
        return AgentBuilder(domain)
    return AgentBuilder(domain, {LLM_AGENT: lambda env: llm_agent(domain, env, llm.config, llm.model, background)})


def provenance_of(agent: Agent) -> dict[str, Any]:
    """What fixes ``agent``'s play beyond its name (``ImmediateAgent.provenance``: a trained
    partner's checkpoint sha256); empty for an agent that has nothing to record."""
    return getattr(agent, "provenance", dict)()


def check_name(builder: AgentBuilder, name: str, env: DomainEnv) -> dict[str, Any]:
    """Raise SetupError if ``name`` cannot play on ``env`` (unknown, or no checkpoint for it);
    else return its provenance, for the run's config."""
    try:
        return provenance_of(builder.make(name, env))
    except (UnknownAgentError, ValueError) as exc:
        raise SetupError(str(exc)) from exc
