"""What a front end was asked, typed once from its flags: `PlayRequest` for `proagent play`, and the
readers of the LLM agent's flags and of `proagent human`'s (`HumanRequest` lives in
`proagent.web.human_request`, where the study's runner builds it too). `EvalRequest`
(`cli/eval_request.py`) and `TrainRequest` (`proagent.training.request`, whose sweeps parse argument
lists of their own) read their flags in their own `from_args`.

Each command reads argparse's namespace here, once, and passes the request down: every field the
code below reads is declared with its type, nothing is found by probing a namespace, and a caller
that is not the command line (a notebook, a study) builds the request itself. A namespace lacking a
flag its request declares is a programming error (a KeyError here), never a silent default."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field, ValidationError

from proagent.builder import LLMFlags
from proagent.request import FrontEndRequest, RequestError
from proagent.web.human_request import HumanRequest

RepairMode = Literal["off", "on"]


def llm_flags(args: argparse.Namespace) -> LLMFlags:
    """The LLM agent's options (`cli/agent_options.py`), every one of them read off ``args``."""
    given = vars(args)
    try:
        return LLMFlags.model_validate({name: given[name] for name in LLMFlags.model_fields})
    except ValidationError as exc:
        raise RequestError(FrontEndRequest.problem(exc)) from None


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

