"""What an evaluation draws on (partner registry, model factory, environments), and the check that
every name in a config exists before the first episode: layouts, partners (per layout: trained
partners exist for some layouts only), agent kinds, prompt sets and LLM specs."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import jax

from envs import Dynamics, LayoutError, OvercookedEnv, make
from proagent.agent.prompt_check import check_prompt_set
from proagent.agent.prompts import PromptSetError, load_prompt_set
from proagent.eval.config import PROAGENT, ConfigError, EvalConfig
from proagent.eval.models import ModelFactory, default_model_factory
from proagent.llm.types import LLMError
from proagent.partners import PartnerRegistry, UnknownPartnerError, default_registry
from proagent.paths import KNOWLEDGE_DIR


class EnvCache:
    """Environments by (layout spec, horizon). Reusing one env reuses its compiled functions,
    which is what makes a second evaluation in the same process (tests, ablations) start fast."""

    def __init__(self) -> None:
        self._envs: dict[tuple[str, int], OvercookedEnv] = {}

    def get(self, spec: str, horizon: int) -> OvercookedEnv:
        key = (spec, horizon)
        if key not in self._envs:
            self._envs[key] = make(spec, Dynamics(horizon=horizon))
        return self._envs[key]


@dataclass
class World:
    registry: PartnerRegistry = field(default_factory=default_registry)
    model_factory: ModelFactory = default_model_factory
    envs: EnvCache = field(default_factory=EnvCache)


@dataclass(frozen=True)
class Resolved:
    """A checked config's environments (by canonical layout name) and provenance hashes."""

    envs: dict[str, OvercookedEnv]
    prompt_hashes: dict[str, dict[str, str]]  # agent name -> template file -> hash
    knowledge_hash: str


def resolve(config: EvalConfig, world: World) -> Resolved:
    """Check every name in ``config``; a ConfigError lists all problems with their field paths."""
    problems: list[str] = []
    envs = _resolve_layouts(config, world, problems)
    _check_partners(config, world, envs, problems)
    hashes = _check_agents(config, world, envs, problems)
    if problems:
        raise ConfigError("invalid config:\n" + "\n".join(f"  {p}" for p in problems))
    return Resolved(envs=envs, prompt_hashes=hashes, knowledge_hash=knowledge_hash())


def _resolve_layouts(config: EvalConfig, world: World, problems: list[str]) -> dict[str, OvercookedEnv]:
    envs: dict[str, OvercookedEnv] = {}
    for i, spec in enumerate(config.layouts):
        try:
            env = world.envs.get(spec, config.horizon)
        except LayoutError as exc:
            problems.append(f"layouts[{i}]: {exc}")
            continue
        if env.layout.name in envs:
            problems.append(f"layouts[{i}]: {spec!r} is layout {env.layout.name!r}, which is listed already")
        envs[env.layout.name] = env
    return envs


def _check_partner(world: World, name: str, envs: dict[str, OvercookedEnv]) -> str | None:
    for layout, env in envs.items():
        try:
            world.registry.make(name, env.layout)
        except (UnknownPartnerError, ValueError) as exc:
            return f"{exc}" if isinstance(exc, UnknownPartnerError) else f"on layout {layout!r}: {exc}"
    return None


def _check_partners(config: EvalConfig, world: World, envs: dict[str, OvercookedEnv], problems: list[str]) -> None:
    for i, name in enumerate(config.partners):
        problem = _check_partner(world, name, envs)
        if problem:
            problems.append(f"partners[{i}]: {problem}")


def _check_agents(config: EvalConfig, world: World, envs: dict[str, OvercookedEnv], problems: list[str]) -> dict[str, dict[str, str]]:
    hashes: dict[str, dict[str, str]] = {}
    models_checked: set[tuple[str, str | None]] = set()
    for i, spec in enumerate(config.agents):
        if spec.kind != PROAGENT:
            problem = _check_partner(world, spec.kind, envs)
            if problem:
                problems.append(f"agents[{i}].kind: {problem.replace('partner', 'agent kind', 1)} (or 'proagent')")
            continue
        try:
            prompts = load_prompt_set(spec.agent_config().prompt)
            for env in envs.values():
                first = env.symbolic(env.jit_reset(jax.random.PRNGKey(config.seed)))
                for seat in config.seats:
                    check_prompt_set(prompts, first, env.layout.name, seat)
            hashes[spec.name] = prompts.source_hashes()
        except PromptSetError as exc:
            problems.append(f"agents[{i}].prompt: {exc}")
        if (spec.llm, spec.api_base) in models_checked:
            continue
        models_checked.add((spec.llm, spec.api_base))
        try:
            world.model_factory(spec)
        except LLMError as exc:
            problems.append(f"agents[{i}].llm: {exc}")
    return hashes


def knowledge_hash() -> str:
    """One hash over knowledge/ (task text, layout notes, demos): they shape every prompt."""
    digest = hashlib.sha256()
    for path in sorted(KNOWLEDGE_DIR.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(KNOWLEDGE_DIR)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
