"""Builds a `proagent human` session from its arguments: env, agent, run folder, game, web app.

Bad inputs (layout, agent name, prompt set, model) are reported before anything is served, as
`play` does; the agent is built with the same pieces as `play` (setup.agent_config, make_model,
the partner registry) so a human game is the same agent a benchmark plays.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import jax
import jax.numpy as jnp

from envs import Dynamics, LayoutError, OvercookedEnv, make
from proagent.cli.setup import SetupError, agent_config
from proagent.runner.records import EpisodeRecord, RunConfig
from proagent.runner.run_folder import RunFolder, git_state, package_versions
from proagent.web.human_app import human_routes
from proagent.web.human_game import GameSettings, HumanGame
from proagent.web.questionnaire import Questionnaire, load_questionnaire
from proagent.web.server import WebServer

PAGE = "human.html"
LLM_AGENT = "proagent"


class HumanRunConfig(RunConfig):
    """RunConfig plus the human marker: the person's seat, mode, tick rate, questionnaire."""

    human: dict


@dataclass
class AgentSpec:
    make: Callable[[int], object]
    info: dict  # recorded as config.json "agent"
    llm: str
    prompt_hashes: dict[str, str]
    embedded: bool = False


@dataclass
class HumanSession:
    env: OvercookedEnv
    folder: RunFolder
    game: HumanGame
    info: dict
    questionnaire: Questionnaire | None
    embedded: bool

    def serve(self, port: int) -> WebServer:
        return WebServer(human_routes(self.game, self.info, self.questionnaire, self.folder), PAGE, port).start()


def agent_names() -> list[str]:
    from proagent.partners import available_partners

    return [LLM_AGENT, *available_partners()]


def _llm_agent(args: argparse.Namespace, env: OvercookedEnv, seat: int) -> AgentSpec:
    from proagent.agent.background import BackgroundProAgent
    from proagent.agent.proagent import ProAgent
    from proagent.agent.prompt_check import check_prompt_set
    from proagent.agent.prompts import PromptSetError, load_prompt_set
    from proagent.llm.factory import EMBEDDED_SPEC, make_model
    from proagent.llm.types import LLMError

    embedded = args.llm.split(":")[0] == EMBEDDED_SPEC
    config = agent_config(args, embedded)
    try:
        prompts = load_prompt_set(config.prompt)
        check_prompt_set(prompts, env.symbolic(env.jit_reset(jax.random.PRNGKey(args.seed))), env.layout.name, seat)
        cache_dir = None if args.no_cache else args.cache_dir
        model = make_model(args.llm, api_base=args.api_base, cache_dir=cache_dir, timeout_s=args.llm_timeout)
    except (PromptSetError, LLMError) as exc:
        raise SetupError(str(exc)) from exc
    background = args.mode == "realtime"  # turn-based: the game waits for the LLM, as in play
    cls = BackgroundProAgent if background else ProAgent

    def build(seed: int) -> ProAgent:
        first = env.symbolic(env.jit_reset(jax.random.PRNGKey(seed)))
        return cls(config, model, seat, env.layout.name, first, seed)

    info = {"name": LLM_AGENT, "background_decisions": background, **config.model_dump()}
    _preload(model)
    return AgentSpec(build, info, args.llm, prompts.source_hashes(), embedded)


def _preload(model: object) -> None:
    """Load local weights before the game starts, not during the person's first seconds."""
    import asyncio

    while model is not None and not hasattr(model, "preload"):
        model = getattr(model, "_inner", None)
    if model is not None:
        print("loading the model...", file=sys.stderr, flush=True)
        asyncio.run(model.preload())


def _partner_agent(args: argparse.Namespace, env: OvercookedEnv) -> AgentSpec:
    from proagent.partners import UnknownPartnerError, make_partner

    try:
        partner = make_partner(args.agent, env.layout)
    except UnknownPartnerError as exc:
        raise SetupError(f"unknown agent {args.agent!r}; available: {', '.join(agent_names())}") from exc
    return AgentSpec(lambda seed: partner, {"name": args.agent}, "none", {})


def build_human_session(args: argparse.Namespace, env: OvercookedEnv | None = None) -> HumanSession:
    """``env`` (tests) reuses an already compiled env of the same layout and horizon."""
    try:
        env = env or make(args.layout, Dynamics(horizon=args.horizon))
    except LayoutError as exc:
        raise SetupError(str(exc)) from exc
    if args.fps <= 0 or args.fps > 60:
        raise SetupError(f"--fps must be in (0, 60], got {args.fps}")
    settings = GameSettings(mode=args.mode, fps=args.fps, human_seat=args.human_seat, seed=args.seed, questionnaire=not args.no_questionnaire)
    spec = _llm_agent(args, env, settings.agent_seat) if args.agent == LLM_AGENT else _partner_agent(args, env)
    questionnaire = load_questionnaire() if settings.questionnaire else None
    folder = RunFolder.create(args.name or f"human-{env.layout.name}-{args.agent}", **({"root": args.runs_dir} if args.runs_dir else {}))
    _write_config(folder, env, args, settings, spec)
    _warm_up(env, args.seed)
    game = HumanGame(env, spec.make, settings, folder, finish=lambda record: _finish(folder, settings, record))
    state = env.jit_reset(jax.random.PRNGKey(args.seed))
    game.initial_view(env.symbolic(state))
    info = _page_info(env, args, settings)
    return HumanSession(env, folder, game, info, questionnaire, spec.embedded)


def _write_config(folder: RunFolder, env: OvercookedEnv, args: argparse.Namespace, settings: GameSettings, spec: AgentSpec) -> None:
    commit, dirty = git_state()
    config = HumanRunConfig(
        command=" ".join(["proagent", *sys.argv[1:]]),
        layout=env.layout.name,
        partner="human",
        seat=settings.agent_seat,
        episodes=1,
        seed=args.seed,
        horizon=args.horizon,
        llm=spec.llm,
        api_base=getattr(args, "api_base", None) if spec.llm != "none" else None,
        agent=spec.info,
        prompt_hashes=spec.prompt_hashes,
        git_commit=commit,
        git_dirty=dirty,
        versions=package_versions(),
        created=datetime.now(UTC).isoformat(),
        human=settings.model_dump() | {"agent_seat": settings.agent_seat},
    )
    folder.write_json("config.json", config)


def _warm_up(env: OvercookedEnv, seed: int) -> None:
    """Compile the jitted step now, not on the person's first tick."""
    state = env.jit_reset(jax.random.PRNGKey(seed))
    env.jit_step(jax.random.PRNGKey(seed), state, jnp.zeros((2,), jnp.int32)).state.step.block_until_ready()


def _page_info(env: OvercookedEnv, args: argparse.Namespace, settings: GameSettings) -> dict:
    from envs import terrain_rows

    names = ["", ""]
    names[settings.human_seat], names[settings.agent_seat] = "you", args.agent
    return {
        "layout": env.layout.name,
        "terrain": terrain_rows(env.layout.tiles),
        "names": names,
        "human_seat": settings.human_seat,
        "agent_seat": settings.agent_seat,
        "agent": args.agent,
        "mode": settings.mode,
        "fps": settings.fps,
        "horizon": args.horizon,
        "cook_time": env.dynamics.cook_time,
    }


def _finish(folder: RunFolder, settings: GameSettings, record: EpisodeRecord) -> None:
    """After the episode record is saved: summary.json and a self-contained replay.html."""
    from proagent.cli.play_cmd import summary_of
    from proagent.web.replay_data import load_run
    from proagent.web.replay_page import export_html

    folder.write_json("summary.json", {**summary_of([record]), "human": settings.model_dump()})
    export_html(load_run(folder.path), folder.path / "replay.html")
