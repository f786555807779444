"""A training sweep file (TOML): methods x layouts x seeds x override sets of `proagent train`, the
resources each run asks a cluster for, and the output root every run writes under.

    output_root = "runs/train/sweeps/tiny"     # shared by every node (absolute on a cluster)
    domain = "overcooked"
    methods = ["sp"]
    layouts = ["cramped_room"]
    seeds = [0, 1]
    [train]                                    # what every run gets: the flags of `proagent train`
    total_steps = 256
    ppo = { num_steps = 32, update_epochs = 1 }
    [overrides.low_ent]                        # optional: each set is one more value of an axis
    ppo = { ent_coef = 0.001 }
    [resources]
    num_cpus = 1
    num_gpus = 0

A cell is one run: it becomes the argument list of one `proagent train` run (the one RL program,
with its checkpoints, manifests and resume state), so a sweep can train nothing a single run
cannot. Its folder is ``<world>-<layout>-<method>-s<seed>[-<override>]``: stable across resumes
and readable in a listing. Everything here is pure: reading, validating, naming, summarising.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from proagent.limits import MAX_EPISODES, MAX_SEED, MAX_TRAIN_STEPS
from proagent.run_lines import typed
from proagent.tables_out import markdown_rows
from proagent.training.checkpoint import MANIFEST_FILE, load_manifest
from proagent.training.resume import RESUME_DIR
from proagent.training.run_folder import run_name
from proagent.untrusted import UntrustedFileError, read_toml

SWEEP_RECORD = "sweep.toml"  # the sweep file as its folder keeps it: a resume must bring the same one
SUMMARY = "sweep_summary"  # .md and .json in the output root
Scalar = int | float | str | bool
Setting = Scalar | list[Scalar] | dict[str, Scalar]


class RunSettings(BaseModel):
    """The flags of `proagent train` a sweep may set for its runs (unset: the command's default)."""

    model_config = ConfigDict(extra="forbid")

    total_steps: Annotated[int, Field(ge=1, le=MAX_TRAIN_STEPS)] | None = None
    num_envs: Annotated[int, Field(ge=1, le=65_536)] | None = None
    shaping_horizon: Annotated[float, Field(ge=0, le=MAX_TRAIN_STEPS)] | None = None
    encoder: str | None = None
    updates_per_call: Annotated[int, Field(ge=1, le=100_000)] | None = None
    eval_episodes: Annotated[int, Field(ge=0, le=MAX_EPISODES)] | None = None
    checkpoint_every: Annotated[float, Field(ge=0, le=10**9)] | None = None
    warm_start: str | None = None
    ppo: dict[str, Setting] = Field(default_factory=dict, description="PPOConfig fields (--set)")
    algo: dict[str, Setting] = Field(default_factory=dict, description="the algorithm's settings (--algo-set)")
    network: dict[str, Setting] = Field(default_factory=dict, description="network fields (--network-set)")

    def merged(self, override: RunSettings) -> RunSettings:
        """These settings with ``override``'s on top (its tables add to, and win over, these)."""
        update: dict[str, Any] = {k: v for k, v in override.model_dump(exclude_unset=True).items() if v is not None}
        update.update(ppo={**self.ppo, **override.ppo}, algo={**self.algo, **override.algo},
                      network={**self.network, **override.network})  # fmt: skip
        return self.model_copy(update=update)

    def flags(self) -> list[str]:
        """As `proagent train` arguments."""
        names = {"total_steps": "--steps", "num_envs": "--num-envs", "shaping_horizon": "--shaping-horizon",
                 "encoder": "--encoder", "updates_per_call": "--updates-per-call", "eval_episodes": "--eval-episodes",
                 "checkpoint_every": "--checkpoint-every", "warm_start": "--warm-start"}  # fmt: skip
        values = self.model_dump()
        out = [arg for field, flag in names.items() if values[field] is not None for arg in (flag, str(values[field]))]
        for table, flag in (("ppo", "--set"), ("algo", "--algo-set"), ("network", "--network-set")):
            out += [arg for key, value in values[table].items() for arg in (flag, f"{key}={_text(value)}")]
        return out


def _text(value: Setting) -> str:
    """A setting as `--set` reads it: JSON for lists and tables, ``true``/``false``, else as written."""
    if isinstance(value, list | dict | bool):
        return json.dumps(value)
    return str(value)


class Resources(BaseModel):
    """What one run asks a Ray cluster for (the local executor runs one at a time, in-process)."""

    model_config = ConfigDict(extra="forbid")

    num_cpus: float = Field(1.0, ge=0)
    num_gpus: float = Field(0.0, ge=0)


def _folder_safe(name: str) -> bool:
    return name[:1].isalnum() and all(c.isalnum() or c in "_-." for c in name)


class Sweep(BaseModel):
    """A validated sweep file: every field checked before any folder is made."""

    model_config = ConfigDict(extra="forbid")

    output_root: Path
    domain: str = "overcooked"
    methods: list[str] = Field(min_length=1)
    layouts: list[str] = Field(min_length=1)
    seeds: list[Annotated[int, Field(ge=0, le=MAX_SEED)]] = Field(min_length=1)
    train: RunSettings = Field(default_factory=RunSettings)
    overrides: dict[str, RunSettings] = Field(default_factory=dict)
    resources: Resources = Field(default_factory=Resources)

    @field_validator("methods", "layouts", "seeds")
    @classmethod
    def _distinct(cls, values: list) -> list:
        if len(set(values)) != len(values):
            raise ValueError("lists each value once (a repeat would train into the same folder)")
        return values

    @field_validator("overrides")
    @classmethod
    def _override_names(cls, sets: dict[str, RunSettings]) -> dict[str, RunSettings]:
        bad = [name for name in sets if not _folder_safe(name)]
        if bad:
            raise ValueError(f"override names are letters, digits, '_', '-' and '.': {bad[0]!r}")
        return sets

    def cells(self) -> list[Cell]:
        """Every run, in a fixed order: methods, then layouts, then override sets, then seeds."""
        sets: dict[str | None, RunSettings] = {None: RunSettings()} if not self.overrides else dict(self.overrides)
        return [
            Cell(method=m, layout=layout, seed=s, override=name, settings=self.train.merged(extra))
            for m in self.methods
            for layout in self.layouts
            for name, extra in sets.items()
            for s in self.seeds
        ]


class Cell(BaseModel):
    """One run of a sweep."""

    method: str
    layout: str
    seed: int
    override: str | None
    settings: RunSettings

    def folder_name(self, domain: str) -> str:
        tail = f"-{self.override}" if self.override else ""
        return f"{run_name(domain, self.layout, self.method)}-s{self.seed}{tail}"

    def argv(self, domain: str, out: Path) -> list[str]:
        """The `proagent train` arguments of this run, writing into ``out``."""
        head = ["--domain", domain, "--algo", self.method, "--layout", self.layout, "--seed", str(self.seed)]
        return [*head, "--out", str(out), *self.settings.flags()]


def load_sweep(path: Path) -> Sweep:
    """The sweep in ``path``; a ValueError of one line naming the file and the first bad field."""
    try:
        data = read_toml(path, "--sweep")
    except UntrustedFileError as exc:  # missing, too large, not UTF-8, too deep or not TOML: one line naming the file
        raise ValueError(str(exc)) from None
    return parse_sweep(data, str(path))


def parse_sweep(data: dict[str, Any], where: str) -> Sweep:
    try:
        return typed(Sweep, data)
    except ValueError as exc:  # names the first bad field
        raise ValueError(f"--sweep {where}: {exc}") from None


def is_complete(folder: Path) -> bool:
    """A finished run: its manifest written and its resume state gone (a killed run keeps it)."""
    return (folder / MANIFEST_FILE).is_file() and not (folder / RESUME_DIR).exists()


class SummaryRow(BaseModel):
    """One run as the summary lists it, from its manifest (``status`` says when there is none)."""

    folder: str
    method: str
    layout: str
    seed: int
    override: str | None
    status: str = Field(description="done, failed, or missing (not run)")
    env_steps: int | None = None
    self_play: str | None = None
    self_play_mean: float | None = None
    params_sha256: str | None = Field(None, description="the first 12 hex digits")
    wall_s: float | None = None


def summary_row(cell: Cell, domain: str, root: Path, failed: bool) -> SummaryRow:
    name = cell.folder_name(domain)
    row = SummaryRow(folder=name, method=cell.method, layout=cell.layout, seed=cell.seed, override=cell.override,
                     status="failed" if failed else "missing")  # fmt: skip
    if failed or not is_complete(root / name):
        return row
    manifest = load_manifest(root / name)
    sp = manifest.self_play
    return row.model_copy(update={
        "status": "done", "env_steps": manifest.env_steps, "self_play": sp.text(2) if sp else None,
        "self_play_mean": sp.mean if sp else None, "params_sha256": manifest.params_sha256[:12],
        "wall_s": round(manifest.train_wall_time_s, 1),
    })  # fmt: skip


def summary_table(rows: list[SummaryRow]) -> str:
    """A Markdown table of the runs."""
    header = ["run", "method", "layout", "seed", "status", "steps", "self-play", "params sha256", "wall (s)"]
    return markdown_rows(header, [
        [r.folder, r.method, r.layout, str(r.seed), r.status, f"{r.env_steps:,}" if r.env_steps else "",
         r.self_play or "", r.params_sha256 or "", f"{r.wall_s:.0f}" if r.wall_s is not None else ""]
        for r in rows
    ])  # fmt: skip
