"""`HumanRequest`: what `proagent human` was asked, typed once from its flags (`cli/requests.py`).

It lives with the human game rather than in the command line because two callers build it: the
command (both interfaces, web and text) and a study's runner, which plays each round as a `human`
game with the study's partner, layout and round length (`proagent.study.runner`)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from proagent.builder import LLM_AGENT, LLMFlags
from proagent.request import FrontEndRequest


class HumanRequest(FrontEndRequest):
    """One `proagent human` game: the world and layout, the person's seat, the agent in the other
    one, how the game runs and where it is saved. ``layout`` None: the world's own; ``horizon``
    None: the layout's own (the web interface settles it to `WEB_HORIZON` first)."""

    FLAGS: ClassVar[dict[str, str]] = {"open_browser": "--no-browser", "questionnaire": "--no-questionnaire"}

    layout: str | None = None
    domain: str | None = None
    interface: Literal["auto", "web", "text"] = "auto"
    agent: str = LLM_AGENT  # the LLM agent (see llm), a partner name or a checkpoint folder's path
    human_seat: int = Field(0, ge=0)
    mode: Literal["realtime", "turns"] = "realtime"
    fps: float = Field(5.0, gt=0, le=60, description="steps a second in realtime mode")
    horizon: int | None = Field(None, ge=1)
    seed: int = Field(0, ge=0)
    until: tuple[str, int] | None = None  # end early once this episode metric reaches the count
    port: int = Field(8765, ge=0, le=65535)  # 0: any free port
    open_browser: bool = True
    questionnaire: bool = True
    name: str | None = None
    runs_dir: Path | None = None
    llm: LLMFlags = LLMFlags()
    command_line: tuple[str, ...] = ("proagent", "human")  # the words that made the run, recorded in config.json
