"""Builds a `proagent human` session from its arguments: env, agent, run folder, game, web app.

Bad inputs (layout, agent name, prompt set, model) are reported before anything is served, as
`play` does; the agent is built by the same builder as `play` and `eval` (proagent/builder.py), so
a human game is the same agent a benchmark plays.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import jax
import jax.numpy as jnp

from proagent.builder import LLM_AGENT, LLMFlags, SetupError, prepare_llm, resolve_env, session_builder
from proagent.checkout import git_state
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import domain_for
from proagent.llm.scripted import describe_model
from proagent.runner.records import EpisodeRecord, HumanRunConfig
from proagent.runner.run_folder import RunFolder, package_versions, run_name_from
from proagent.runner.summary import summary_of
from proagent.web.human_app import human_routes
from proagent.web.human_game import GameSettings, HumanGame
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


def _llm_agent(args: argparse.Namespace, domain: Domain, env: DomainEnv, seat: int) -> AgentSpec:
    llm = prepare_llm(LLMFlags.from_args(args), domain, env, [seat], args.seed)
    background = args.mode == "realtime"  # turn-based: the game waits for the LLM, as in play
    builder = session_builder(domain, llm, background)
    info = {"name": LLM_AGENT, "background_decisions": background, **llm.config.model_dump()}
    _preload(llm.model)
    return AgentSpec(lambda seed: builder.make(LLM_AGENT, env), info, args.llm, llm.prompt_hashes, llm.embedded)


def _preload(model: object) -> None:
    """Load local weights before the game starts, not during the person's first seconds."""
    import asyncio

    while model is not None and not hasattr(model, "preload"):
        model = getattr(model, "_inner", None)
    if model is not None:
        print("loading the model...", file=sys.stderr, flush=True)
        asyncio.run(model.preload())


def _partner_agent(args: argparse.Namespace, domain: Domain, env: DomainEnv) -> AgentSpec:
    builder = session_builder(domain, None)
    try:
        partner = builder.make(args.agent, env)
    except UnknownAgentError:
        raise SetupError(
            f"unknown agent {args.agent!r}; available: {', '.join([LLM_AGENT, *builder.names(env)])}"
        ) from None
    except ValueError as exc:
        raise SetupError(str(exc)) from exc
    return AgentSpec(lambda seed: partner, {"name": args.agent}, "none", {})


def build_human_session(
    args: argparse.Namespace, env: DomainEnv | None = None, folder: RunFolder | None = None
) -> HumanSession:
    """``env`` reuses an already compiled env of the same layout and horizon (tests, a study's
    rounds); ``folder`` is the run folder to write (a study names its rounds itself), else a new
    ``<timestamp>-<name>`` one under ``--runs-dir``."""
    if env is None:
        domain, env = resolve_env(args.layout, args.horizon, getattr(args, "domain", None))
        if env.num_agents != 2 and domain.capabilities.teams is not None:  # a world that sizes teams plays a pair
            domain, env = resolve_env(args.layout, args.horizon, getattr(args, "domain", None), 2)
    else:
        domain = domain_for(env.name, getattr(args, "domain", None))
    if env.num_agents != 2:
        raise SetupError(f"`proagent human` plays two-player layouts; {env.name} has {env.num_agents} seats")
    if domain.capabilities.rendering is None:
        raise SetupError(f"`proagent human` needs a world that draws itself; {domain.name} has no rendering")
    if not 0 <= args.human_seat < env.num_agents:
        raise SetupError(f"--human-seat {args.human_seat}: {env.name} has seats 0..{env.num_agents - 1}")
    if args.fps <= 0 or args.fps > 60:
        raise SetupError(f"--fps must be in (0, 60], got {args.fps}")
    if args.until is not None and args.until[0] not in domain.metric_names:
        raise SetupError(f"--until {args.until[0]}: {domain.name} counts {', '.join(domain.metric_names)}")
    settings = GameSettings(
        mode=args.mode,
        fps=args.fps,
        human_seat=args.human_seat,
        agent_seat=1 - args.human_seat,
        seed=args.seed,
        questionnaire=not args.no_questionnaire,
        until=args.until,
    )
    spec = (
        _llm_agent(args, domain, env, settings.agent_seat)
        if args.agent == LLM_AGENT
        else _partner_agent(args, domain, env)
    )
    questionnaire = load_questionnaire() if settings.questionnaire else None
    if folder is None:
        folder = RunFolder.create(
            args.name or run_name_from(f"human-{env.name}-{args.agent}"),
            **({"root": args.runs_dir} if args.runs_dir else {}),
        )
    _write_config(folder, domain, env, args, settings, spec)
    _warm_up(env, args.seed)
    game = HumanGame(
        domain, env, spec.make, settings, folder, finish=lambda record: _finish(folder, domain, settings, record)
    )
    state = env.jit_reset(jax.random.PRNGKey(args.seed))
    game.initial_view(env.symbolic(state))
    info = _page_info(domain, env, args, settings)
    return HumanSession(env, folder, game, info, questionnaire, spec.embedded)


def _write_config(
    folder: RunFolder, domain: Domain, env: DomainEnv, args: argparse.Namespace, settings: GameSettings, spec: AgentSpec
) -> None:
    commit, dirty = git_state()
    config = HumanRunConfig(
        command=shlex.join(args.command_line),
        domain=getattr(args, "domain", None) or domain.name,
        layout=env.name,
        partner="human",
        seat=settings.agent_seat,
        episodes=1,
        seed=args.seed,
        horizon=args.horizon,
        llm=spec.llm,
        model=describe_model(spec.llm) if spec.llm != "none" else None,
        api_base=getattr(args, "api_base", None) if spec.llm != "none" else None,
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


def _page_info(domain: Domain, env: DomainEnv, args: argparse.Namespace, settings: GameSettings) -> dict:
    names = [""] * env.num_agents
    names[settings.human_seat], names[settings.agent_seat] = "you", args.agent
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(args.seed)))
    return {
        "layout": env.name,
        **domain.capabilities.rendering.page_facts(env, first),  # checked in build_human_session
        "names": names,
        "human_seat": settings.human_seat,
        "agent_seat": settings.agent_seat,
        "agent": args.agent,
        "mode": settings.mode,
        "fps": settings.fps,
        "horizon": args.horizon,
    }


def _finish(folder: RunFolder, domain: Domain, settings: GameSettings, record: EpisodeRecord) -> None:
    """After the episode record is saved: summary.json and a self-contained replay.html."""
    from proagent.web.replay_data import load_run
    from proagent.web.replay_page import export_html

    folder.write_json("summary.json", {**summary_of([record], domain.useful_events), "human": settings.model_dump()})
    export_html(load_run(folder.path), folder.path / "replay.html")
