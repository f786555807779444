"""`TrainRequest`: what `proagent train` was asked, typed once from its flags.

It lives with training, not in the command line, because training reads it at every step from the
flags to a run (`run_config` makes it configs, `train_run` a run, `cli` refuses what cannot run) and
a sweep builds one per run from that run's argument list; `proagent train` (`cli/train_cmd.py`)
builds it once from its parsed flags. The defaults are the flags' defaults (a test keeps them equal),
so a request built in Python trains what the same command line would."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from proagent.limits import MAX_EPISODES, MAX_SEED, MAX_SEEDS, MAX_TRAIN_STEPS
from proagent.request import FrontEndRequest

ALGOS = ("sp", "ippo", "pbt", "fcp", "mep", "cole", "bc", "human_proxy", "hsp", "op", "state_aug")
Algorithm = Literal["sp", "ippo", "pbt", "fcp", "mep", "cole", "bc", "human_proxy", "hsp", "op", "state_aug"]


class TrainRequest(FrontEndRequest):
    """One `proagent train` run (or, with ``sweep``, a sweep of runs). ``layout`` None: the world's
    own; ``out`` None: a new folder in ``runs_dir``; ``ship`` "": the partner folder named after
    the algorithm. ``set``, ``algo_set`` and ``network_set`` are KEY=VALUE items as given."""

    FLAGS: ClassVar[dict[str, str]] = {"set": "--set", "algo_set": "--algo-set", "network_set": "--network-set"}

    domain: str = "overcooked"
    algo: Algorithm = "sp"
    layout: str | None = None
    seed: int = Field(0, ge=0, le=MAX_SEED)
    seeds: int = Field(1, ge=1, le=MAX_SEEDS)
    steps: float = Field(1e7, ge=1, le=MAX_TRAIN_STEPS)
    encoder: str = "auto"
    network_set: tuple[str, ...] = ()
    runs_dir: Path | None = None
    out: Path | None = None
    ship: str | None = None
    overwrite: bool = False
    num_envs: int | None = Field(None, ge=1, le=65_536)
    shaping_horizon: float | None = Field(None, ge=0, le=MAX_TRAIN_STEPS)
    updates_per_call: int = Field(10, ge=1, le=100_000)
    eval_episodes: int = Field(100, ge=0, le=MAX_EPISODES)
    checkpoint_every: float = Field(120.0, ge=0, le=10**9)
    resume: bool = False
    keep_best: int = 0  # refused below 0 with the flag's own line (`cli.refuse_flags`)
    init_from: Path | None = None
    warm_start: Literal["none", "sp"] = "none"
    set: tuple[str, ...] = ()
    algo_set: tuple[str, ...] = ()
    sweep: Path | None = None
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> TrainRequest:
        """The request of the flags `cli.add_arguments` defines, every one read off ``args`` (a
        command that adds flags of its own, such as ``--progress-seconds``, keeps those)."""
        given = vars(args)
        fields = {name: given[name] for name in cls.model_fields}
        lists = {name: tuple(given[name] or ()) for name in ("network_set", "set", "algo_set")}
        return cls.checked(**{**fields, **lists})
