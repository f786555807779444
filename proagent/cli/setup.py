"""Turns command-line arguments into a ready session, reporting every bad input before any
episode starts (bad layout, unknown partner or prompt set, missing API key, missing backend)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

import jax

from envs import Dynamics, LayoutError, OvercookedEnv, make
from proagent.agent.presets import model_defaults
from proagent.agent.proagent import AgentConfig, ProAgent
from proagent.agent.prompt_check import check_prompt_set
from proagent.agent.prompts import PromptSetError, load_prompt_set
from proagent.llm.factory import EMBEDDED_SPEC, make_model
from proagent.llm.types import LLMError, Model
from proagent.partners import UnknownPartnerError, make_partner
from proagent.partners.base import Partner
from proagent.runner.records import RunConfig
from proagent.runner.run_folder import RunFolder, git_state, package_versions


class SetupError(ValueError):
    """A bad input, with the message a user needs to fix it."""


@dataclass
class Session:
    env: OvercookedEnv
    model: Model
    config: AgentConfig
    args: argparse.Namespace
    folder: RunFolder
    embedded: bool

    def new_agent(self, seed: int) -> ProAgent:
        first = self.env.symbolic(self.env.jit_reset(jax.random.PRNGKey(seed)))
        layout_name = self.env.layout.name
        return ProAgent(self.config, self.model, self.args.seat, layout_name, first, seed)

    def new_partner(self) -> Partner:
        return make_partner(self.args.partner, self.env.layout)


def agent_config(args: argparse.Namespace, embedded: bool) -> AgentConfig:
    """The agent's config; settings left on auto follow the model (agent/presets.py)."""
    legal_only = {"auto": "auto", "on": True, "off": False}[args.legal_only]
    defaults = model_defaults(embedded, args.prompt, legal_only)
    return AgentConfig(
        **defaults.model_dump(),
        belief=args.belief,
        memory_k=args.memory_k,
        verificator=not args.no_verificator,
        loop_check=not args.no_loop_check,
        max_replans=args.max_replans,
    )


def build_session(args: argparse.Namespace) -> Session:
    try:
        env = make(args.layout, Dynamics(horizon=args.horizon))
    except LayoutError as exc:
        raise SetupError(str(exc)) from exc
    try:
        make_partner(args.partner, env.layout)
    except UnknownPartnerError as exc:
        raise SetupError(str(exc)) from exc
    embedded = args.llm.split(":")[0] == EMBEDDED_SPEC
    config = agent_config(args, embedded)
    try:
        prompts = load_prompt_set(config.prompt)
        check_prompt_set(prompts, env.symbolic(env.jit_reset(jax.random.PRNGKey(args.seed))), env.layout.name, args.seat)
    except PromptSetError as exc:
        raise SetupError(str(exc)) from exc
    try:
        cache_dir = None if args.no_cache else args.cache_dir
        model = make_model(args.llm, api_base=args.api_base, cache_dir=cache_dir, timeout_s=args.llm_timeout)
    except LLMError as exc:
        raise SetupError(str(exc)) from exc
    folder = RunFolder.create(args.name or f"play-{env.layout.name}-{args.partner}", **({"root": args.runs_dir} if args.runs_dir else {}))
    commit, dirty = git_state()
    folder.write_json(
        "config.json",
        RunConfig(
            command=" ".join(["proagent", *sys.argv[1:]]),
            layout=env.layout.name,
            partner=args.partner,
            seat=args.seat,
            episodes=args.episodes,
            seed=args.seed,
            horizon=args.horizon,
            llm=args.llm,
            api_base=args.api_base,
            llm_timeout_s=args.llm_timeout,
            agent=config.model_dump(),
            prompt_hashes=prompts.source_hashes(),
            git_commit=commit,
            git_dirty=dirty,
            versions=package_versions(),
            created=datetime.now(UTC).isoformat(),
        ),
    )
    return Session(env=env, model=model, config=config, args=args, folder=folder, embedded=embedded)
