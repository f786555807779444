"""`EvalRequest`: what `proagent eval` (and `ablate`, and a grid target of `reproduce`, which share its
flags) was asked, typed once from the flags, and the tables that map each flag to the evaluation
config's field. `cli/eval_run.py` applies a request to a config and runs it; nothing below the
command line sees argparse's namespace."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from proagent.request import FrontEndRequest


class EvalRequest(FrontEndRequest):
    """One `proagent eval` (also `ablate` and a grid target of `reproduce`, which share its flags).
    A grid field left None is the config file's or the default; an agent field set applies to every
    'proagent' agent of the grid (`cli/eval_run.py` applies them). Every field but ``config``,
    ``agents`` and ``command_line`` is a flag of `eval_run`'s tables, named as its dest."""

    FLAGS: ClassVar[dict[str, str]] = {
        "wall_clock": "--wall-clock",
        "llm_timeout_s": "--llm-timeout",
        "cache": "--no-cache",
    }

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
    adapter: Path | Literal["none"] | None = None  # none: every proagent agent plays the raw model
    clock: str | None = None
    clock_fallback: Literal["idle", "continue", "scripted"] | None = None
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
        given = vars(args)
        own = {
            "config": config,
            "agents": agents,
            "env": tuple(args.env or ()),
            "command_line": tuple(args.command_line),
        }
        return cls.checked(**{name: given[name] for name in cls.model_fields if name not in own}, **own)
