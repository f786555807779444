"""Builds a `proagent human` session from its request (`HumanRequest`): env, agent, run folder, game, web app.

Bad inputs (layout, agent name, prompt set, model) are reported before anything is served, as
`play` does; the agent is built by the same builder as `play` and `eval` (proagent/builder.py), so
a human game is the same agent a benchmark plays.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import jax
import jax.numpy as jnp

from proagent.builder import LLM_AGENT, SetupError, prepare_llm, resolve_env, session_builder
from proagent.checkout import git_state
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import domain_for
from proagent.llm.scripted import describe_model
from proagent.runner.records import EpisodeRecord, HumanRunConfig
from proagent.runner.run_folder import RunFolder, package_versions, run_name_from
from proagent.runner.summary import summary_of
from proagent.web.human_app import human_routes
from proagent.web.human_game import GameSettings, HumanGame
from proagent.web.human_request import HumanRequest
from proagent.web.questionnaire import Questionnaire, load_questionnaire
from proagent.web.server import WebServer
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv

PAGE = "human.html"


@dataclass
class AgentSpec:
    make: Callable[[int], Agent]
    info: dict  # recorded as config.json "agent"
    llm: str
    prompt_hashes: dict[str, str]
    embedded: bool = False


@dataclass
class HumanSession:
    env: DomainEnv
    folder: RunFolder
    game: HumanGame
    info: dict
    questionnaire: Questionnaire | None
    embedded: bool

    def serve(self, port: int) -> WebServer:
        return WebServer(human_routes(self.game, self.info, self.questionnaire, self.folder), PAGE, port).start()


def _llm_agent(request: HumanRequest, domain: Domain, env: DomainEnv, seat: int) -> AgentSpec:
    llm = prepare_llm(request.llm, domain, env, [seat], request.seed)
    background = request.mode == "realtime"  # turn-based: the game waits for the LLM, as in play
    builder = session_builder(domain, llm, background)
    info = {"name": LLM_AGENT, "background_decisions": background, **llm.config.model_dump()}
    _preload(llm.model)
    return AgentSpec(lambda seed: builder.make(LLM_AGENT, env), info, request.llm.llm, llm.prompt_hashes, llm.embedded)


def _preload(model: object) -> None:
    """Load local weights before the game starts, not during the person's first seconds."""
    import asyncio

    while model is not None and not hasattr(model, "preload"):
        model = getattr(model, "_inner", None)
    if model is not None:
        print("loading the model...", file=sys.stderr, flush=True)
        asyncio.run(model.preload())


def _partner_agent(request: HumanRequest, domain: Domain, env: DomainEnv) -> AgentSpec:
    builder = session_builder(domain, None)
    try:
        partner = builder.make(request.agent, env)
    except UnknownAgentError:
        raise SetupError(
            f"unknown agent {request.agent!r}; available: {', '.join([LLM_AGENT, *builder.names(env)])}"
        ) from None
    except ValueError as exc:
        raise SetupError(str(exc)) from exc
    return AgentSpec(lambda seed: partner, {"name": request.agent}, "none", {})


def build_human_session(
    request: HumanRequest, env: DomainEnv | None = None, folder: RunFolder | None = None
) -> HumanSession:
    """``env`` reuses an already compiled env of the same layout and horizon (tests, a study's
    rounds); ``folder`` is the run folder to write (a study names its rounds itself), else a new
    ``<timestamp>-<name>`` one under ``runs_dir``."""
    domain, env = _domain_env(request, env)
    if not 0 <= request.human_seat < env.num_agents:
        raise SetupError(f"--human-seat {request.human_seat}: {env.name} has seats 0..{env.num_agents - 1}")
    if request.until is not None and request.until[0] not in domain.metric_names:
        raise SetupError(f"--until {request.until[0]}: {domain.name} counts {', '.join(domain.metric_names)}")
    settings = GameSettings(
        mode=request.mode,
        fps=request.fps,
        human_seat=request.human_seat,
        agent_seat=1 - request.human_seat,
        seed=request.seed,
        questionnaire=request.questionnaire,
        until=request.until,
    )
    spec = (
        _llm_agent(request, domain, env, settings.agent_seat)
        if request.agent == LLM_AGENT
        else _partner_agent(request, domain, env)
    )
    questionnaire = load_questionnaire(world=domain.name) if settings.questionnaire else None
    if folder is None:
        folder = RunFolder.create(
            request.name or run_name_from(f"human-{env.name}-{request.agent}"),
            **({"root": request.runs_dir} if request.runs_dir else {}),
        )
    _write_config(folder, domain, env, request, settings, spec)
    _warm_up(env, request.seed)
    game = HumanGame(
        domain, env, spec.make, settings, folder, finish=lambda record: _finish(folder, domain, settings, record)
    )
    state = env.jit_reset(jax.random.PRNGKey(request.seed))
    game.initial_view(env.symbolic(state))
    info = _page_info(domain, env, request, settings)
    return HumanSession(env, folder, game, info, questionnaire, spec.embedded)


def _domain_env(request: HumanRequest, env: DomainEnv | None) -> tuple[Domain, DomainEnv]:
    """The world and the env of a two-seat game that draws itself: ``env`` when given, else the
    request's layout (a world that sizes its teams plays a pair)."""
    if env is None:
        domain, env = resolve_env(request.layout, request.horizon, request.domain)
        if env.num_agents != 2 and domain.capabilities.teams is not None:
            domain, env = resolve_env(request.layout, request.horizon, request.domain, 2)
    else:
        domain = domain_for(env.name, request.domain)
    if env.num_agents != 2:
        raise SetupError(f"`proagent human` plays two-player layouts; {env.name} has {env.num_agents} seats")
    if domain.capabilities.rendering is None:
        raise SetupError(f"`proagent human` needs a world that draws itself; {domain.name} has no rendering")
    return domain, env


def _write_config(
    folder: RunFolder, domain: Domain, env: DomainEnv, request: HumanRequest, settings: GameSettings, spec: AgentSpec
) -> None:
    commit, dirty = git_state()
    config = HumanRunConfig(
        command=shlex.join(request.command_line),
        domain=request.domain or domain.name,
        layout=env.name,
        partner="human",
        seat=settings.agent_seat,
        episodes=1,
        seed=request.seed,
        horizon=request.horizon,
        llm=spec.llm,
        model=describe_model(spec.llm) if spec.llm != "none" else None,
        api_base=request.llm.api_base if spec.llm != "none" else None,
        agent=spec.info,
        prompt_hashes=spec.prompt_hashes,
        git_commit=commit,
        git_dirty=dirty,
        versions=package_versions(),
        created=datetime.now(UTC).isoformat(),
        human=settings.model_dump(),
    )
    folder.write_json("config.json", config)


def _warm_up(env: DomainEnv, seed: int) -> None:
    """Compile the jitted step now, not on the person's first tick."""
    state = env.jit_reset(jax.random.PRNGKey(seed))
    jax.block_until_ready(env.jit_step(jax.random.PRNGKey(seed), state, jnp.zeros((env.num_agents,), jnp.int32)))


def _page_info(domain: Domain, env: DomainEnv, request: HumanRequest, settings: GameSettings) -> dict:
    names = [""] * env.num_agents
    names[settings.human_seat], names[settings.agent_seat] = "you", request.agent
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(request.seed)))
    return {
        "layout": env.name,
        **domain.capabilities.rendering.page_facts(env, first),  # checked in build_human_session
        "names": names,
        "human_seat": settings.human_seat,
        "agent_seat": settings.agent_seat,
        "agent": request.agent,
        "mode": settings.mode,
        "fps": settings.fps,
        "horizon": request.horizon,
    }


def _finish(folder: RunFolder, domain: Domain, settings: GameSettings, record: EpisodeRecord) -> None:
    """After the episode record is saved: summary.json and a self-contained replay.html."""
    from proagent.web.replay_data import load_run
    from proagent.web.replay_page import export_html

    folder.write_json("summary.json", {**summary_of([record], domain.useful_events), "human": settings.model_dump()})
    export_html(load_run(folder.path), folder.path / "replay.html")
