"""What a front end was asked, typed once from its flags: `PlayRequest` for `proagent play`, and the
namespace readers of the other front ends' requests (`HumanRequest` of `proagent.web.human_request`,
`EvalRequest` of `cli/eval_request.py`, `TrainRequest` of `proagent.training.request`).

Each command reads argparse's namespace here, once, and passes the request down: every field the
code below reads is declared with its type, nothing is found by probing a namespace, and a caller
that is not the command line (a notebook, a study) builds the request itself. A namespace lacking a
flag its request declares is a programming error (a KeyError here), never a silent default."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from proagent.builder import LLMFlags
from proagent.request import FrontEndRequest
from proagent.web.human_request import HumanRequest

RepairMode = Literal["off", "on"]


def llm_flags(args: argparse.Namespace) -> LLMFlags:
    """The LLM agent's options (`cli/agent_options.py`), every one of them read off ``args``."""
    given = vars(args)
    return LLMFlags.model_validate({name: given[name] for name in LLMFlags.model_fields})


class PlayRequest(FrontEndRequest):
    """One `proagent play`: the world and layout, the team, the episodes, the model, the conversation
    and where the run goes. ``layout`` and ``partner`` None: the world's own defaults."""

    FLAGS: ClassVar[dict[str, str]] = {"wall_clock_s": "--wall-clock"}

    layout: str | None = None
    domain: str | None = None
    agents: int | None = Field(None, ge=1)
    env: tuple[str, ...] = ()  # --env KEY=VALUE items, as given
    horizon: int | None = Field(None, ge=1)
    seat: int = Field(0, ge=0)
    partner: str | None = None
    episodes: int = Field(1, ge=1)
    seed: int = Field(0, ge=0)
    wall_clock_s: float | None = Field(None, ge=0, description="each episode's wall-clock budget; None or 0: none")
    name: str | None = None
    runs_dir: Path | None = None
    topology: str | None = None
    leader: int = Field(0, ge=0)
    message_budget: int = Field(1, ge=0)
    feedback: bool = False
    repair: RepairMode = "off"
    llm: LLMFlags = LLMFlags()
    command_line: tuple[str, ...] = ("proagent", "play")  # the words that made the run, recorded in config.json

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> PlayRequest:
        """The request `proagent play`'s parsed flags make (every flag the parser defines)."""
        return cls.checked(
            layout=args.layout, domain=args.domain, agents=args.agents, env=tuple(args.env or ()), horizon=args.horizon,
            seat=args.seat, partner=args.partner, episodes=args.episodes, seed=args.seed, wall_clock_s=args.wall_clock,
            name=args.name, runs_dir=args.runs_dir, topology=args.topology, leader=args.leader,
            message_budget=args.message_budget, feedback=args.feedback, repair=args.repair,
            llm=llm_flags(args), command_line=tuple(args.command_line),
        )  # fmt: skip


def human_request(args: argparse.Namespace) -> HumanRequest:
    """The request `proagent human`'s parsed flags make (every flag the parser defines)."""
    return HumanRequest.checked(
        layout=args.layout, domain=args.domain, interface=args.interface, agent=args.agent, human_seat=args.human_seat,
        mode=args.mode, fps=args.fps, horizon=args.horizon, seed=args.seed, until=args.until, port=args.port,
        open_browser=not args.no_browser, questionnaire=not args.no_questionnaire, name=args.name,
        runs_dir=args.runs_dir, llm=llm_flags(args), command_line=tuple(args.command_line),
    )  # fmt: skip


class EvalRequest(FrontEndRequest):
    """One `proagent eval` (also `ablate` and a grid target of `reproduce`, which share its flags).
    A grid field left None is the config file's or the default; an agent field set applies to every
    'proagent' agent of the grid (`cli/eval_run.py` applies them)."""

    FLAGS: ClassVar[dict[str, str]] = {"wall_clock": "--wall-clock", "llm_timeout_s": "--llm-timeout", "cache": "--no-cache"}

    config: Path | None = None  # a .toml/.yaml evaluation (or ablation) config
    agents: str | None = None  # comma list of the agents playing the agent's seat
    # the grid (GRID_FLAGS)
    name: str | None = None
    domain: str | None = None
    partners: str | None = None
    layouts: str | None = None
    seats: str | None = None
    topologies: str | None = None
    feedback: bool | None = None
    repair: Literal["off", "on", "both"] | None = None
    episodes: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0)
    horizon: int | None = Field(None, ge=1)
    wall_clock: float | None = Field(None, ge=0)
    env: tuple[str, ...] = ()  # --env KEY=VALUE items, as given
    # every proagent agent (AGENT_FLAGS)
    adapter: Path | None = None
    clock: str | None = None
    llm: str | None = None
    api_base: str | None = None
    llm_timeout_s: float | None = Field(None, gt=0)
    prompt: str | None = None
    belief: Literal["replace", "annotate", "off"] | None = None
    memory_k: int | None = Field(None, ge=0)
    memory_retrieval: str | None = None
    max_replans: int | None = Field(None, ge=0)
    verificator: str | None = None
    loop_check: bool | None = None
    legal_only: Literal["auto", "on", "off"] | None = None
    belief_probe: bool | None = None
    probe_forced: bool | None = None
    # the run (RUN_FLAGS and how it is run)
    resume: Path | None = None
    concurrency: int | None = Field(None, ge=1)
    llm_concurrency: int | None = Field(None, ge=1)
    max_cost: float | None = Field(None, gt=0)
    max_failures: int | None = Field(None, ge=1)
    trace: bool | None = None
    stepping: Literal["lockstep", "single"] | None = None
    cache: bool | None = None
    cache_dir: Path | None = None
    runs_dir: Path | None = None
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    progress: Literal["auto", "on", "off"] = "auto"
    progress_every: int = Field(10, ge=1)
    progress_seconds: float = Field(10.0, gt=0)
    command_line: tuple[str, ...] = ("proagent", "eval")  # the words that made the run, recorded in its manifest

    @classmethod
    def from_args(cls, args: argparse.Namespace, config: Path | None, agents: str | None) -> EvalRequest:
        """The request of the grid, agent and run flags (`cli/eval_run.py`) every one of the three
        commands defines; ``config`` and ``agents`` are the command's own (ablate has no ``--agents``,
        reproduce takes its config from its target)."""
        from proagent.cli.eval_run import AGENT_FLAGS, GRID_FLAGS, RUN_FLAGS

        given = vars(args)
        dests = [*GRID_FLAGS, *AGENT_FLAGS, *RUN_FLAGS, "resume", "runs_dir", "executor", "ray_address", "progress"]
        fields = {dest: given[dest] for dest in dests}
        return cls.checked(
            **fields, config=config, agents=agents, env=tuple(args.env or ()), progress_every=args.progress_every,
            progress_seconds=args.progress_seconds, command_line=tuple(args.command_line),
        )  # fmt: skip
