"""What a front end was asked, typed once from its flags: `PlayRequest` for `proagent play`.

The session builder (`cli/setup.py`) takes the request, not argparse's namespace, so every field it
reads is declared here with its type and nothing is found by probing a namespace; a caller that is
not the command line (a notebook, a study) builds the request itself."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from proagent.builder import LLMFlags

RepairMode = Literal["off", "on"]


class PlayRequest(BaseModel):
    """One `proagent play`: the world and layout, the team, the episodes, the model, the conversation
    and where the run goes. ``layout`` and ``partner`` None: the world's own defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layout: str | None = None
    domain: str | None = None
    agents: int | None = Field(None, ge=1)
    env: tuple[str, ...] = ()  # --env KEY=VALUE items, as given
    horizon: int | None = Field(None, ge=1)
    seat: int = Field(0, ge=0)
    partner: str | None = None
    episodes: int = Field(1, ge=1)
    seed: int = 0
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
        return cls(
            layout=args.layout, domain=args.domain, agents=args.agents, env=tuple(args.env or ()), horizon=args.horizon,
            seat=args.seat, partner=args.partner, episodes=args.episodes, seed=args.seed, wall_clock_s=args.wall_clock,
            name=args.name, runs_dir=args.runs_dir, topology=args.topology, leader=args.leader,
            message_budget=args.message_budget, feedback=args.feedback, repair=args.repair,
            llm=LLMFlags.from_args(args), command_line=tuple(args.command_line),
        )  # fmt: skip
