"""Checkpoints of every world: ``params.msgpack`` (flax msgpack, a few hundred KB) +
``manifest.json``, and, in a run folder, ``history.jsonl`` (one record per logged call).

They ship in the repo under ``partners/<world>/<layout>/<algo>/`` (``proagent.paths.partner_dir``)
so a fresh, offline machine can play against them; the training curve stays in the run folder and
the manifest keeps its summary (``HistorySummary``). Loading needs flax/jax/numpy only (no optax,
no training code): the manifest says how to rebuild the network, and msgpack restores the
parameter tree without a template.

``seat_groups`` says how the parameters map to seats: 0, one tree that plays every seat; G > 0,
every leaf stacked over G groups and seat s playing group s % G (independent PPO's per-seat
networks; the shipped CUBE checkpoints, shared ones with G = 1). CUBE's first manifest format
(``scenario``, ``obs_dim``, ``params_mode``) loads through ``_from_cube_format``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import jax
import numpy as np
from flax import serialization
from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.files import write_atomic
from proagent.numbers import format_mean
from proagent.paths import PROJECT_ROOT
from proagent.training.networks import Network

PARAMS_FILE = "params.msgpack"
MANIFEST_FILE = "manifest.json"
HISTORY_FILE = "history.jsonl"
FORMAT_VERSION = 1


def now() -> str:
    """The time a manifest is written, as it records it (UTC, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class SelfPlayScore(BaseModel):
    """Sparse score of the policy paired with itself, episodes of ``horizon`` steps."""

    mean: float
    se: float = Field(description="standard error of the mean")
    std: float
    episodes: int
    horizon: int
    stochastic: bool = True

    def text(self, digits: int = 1) -> str:
        """``mean ± se (n=episodes)`` by the one formatter of means (no ± from a single episode)."""
        return format_mean(self.mean, self.se, self.episodes, digits)


class Selection(BaseModel):
    """What a ``--keep-best`` self-play run shipped (`proagent.training.best`): both scores, and which."""

    rule: str = (
        "highest mean sparse training score over `window` consecutive calls; the final and the best params"
        " are then scored by the same evaluation and the higher ships"
    )
    window: int
    trained_env_steps: int = Field(description="env steps the run trained in all")
    best_env_steps: int = Field(description="env steps at the end of the best window")
    best_training_score: float
    final: SelfPlayScore
    best: SelfPlayScore
    chosen: Literal["final", "best"]


class InitFrom(BaseModel):
    """The checkpoint a fine-tuning run (``--init-from``) started from. Its steps are not in the
    run's own ``env_steps``: the params saw ``env_steps`` of this run plus these."""

    path: str = Field(description="the folder as given, relative to the project root when inside it")
    algorithm: str
    seed: int
    env_steps: int
    params_sha256: str
    self_play: SelfPlayScore | None = None


class HistorySummary(BaseModel):
    """What the manifest keeps of a run's ``history.jsonl`` (the file stays in the run folder)."""

    records: int
    env_steps: int = Field(description="env steps at the last record")
    first_score: float | None = Field(None, description="training score of the first record with finished episodes")
    last_score: float | None = None
    best_score: float | None = None
    best_env_steps: int | None = None
    last_plain_score: float | None = Field(
        None, description="op: the last record's self-play in the plain game (its score is Other-Play's game)"
    )

    @classmethod
    def of(cls, history: Sequence[dict]) -> HistorySummary:
        scored = [r for r in history if isinstance(r.get("score"), int | float) and math.isfinite(r["score"])]
        best = max(scored, key=lambda r: r["score"], default=None)
        return cls(
            records=len(history),
            env_steps=int(history[-1]["env_steps"]) if history else 0,
            first_score=round(scored[0]["score"], 3) if scored else None,
            last_score=round(scored[-1]["score"], 3) if scored else None,
            best_score=round(best["score"], 3) if best else None,
            best_env_steps=int(best["env_steps"]) if best else None,
            last_plain_score=history[-1].get("plain_score") if history else None,
        )


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")

    format_version: int = FORMAT_VERSION
    world: str = "overcooked"
    algorithm: str
    layout: str
    seed: int
    env_steps: int
    train_wall_time_s: float
    device: str
    encoder: str
    network: Network
    obs_shape: tuple[int, ...]
    seat_groups: int = Field(
        0, ge=0, description="0: one parameter tree for every seat; G: leaves stacked over G seat groups"
    )
    self_play: SelfPlayScore | None = None
    git_commit: str = ""
    created: str = Field(default_factory=now)
    jax_version: str = jax.__version__
    params_sha256: str = ""
    train_config: dict[str, Any] = Field(default_factory=dict)
    selection: Selection | None = Field(None, description="set by --keep-best runs: which params shipped, and why")
    init_from: InitFrom | None = Field(None, description="set by --init-from runs: the params they started from")
    dynamics: dict[str, Any] = Field(
        default_factory=dict, description="the env's settings it trained in (RLEnv.record); partners observe with them"
    )
    history: HistorySummary | None = Field(
        None, description="the training curve's summary (history.jsonl in the run folder)"
    )

    @model_validator(mode="before")
    @classmethod
    def _from_cube_format(cls, data: Any) -> Any:
        return _from_cube_format(data)


def _from_cube_format(data: Any) -> Any:
    """CUBE's first manifests (``scenario``, ``obs_dim``, ``params_mode``, params stacked over seat
    groups): the same facts under this format's names; the rest stays as extra fields."""
    if not isinstance(data, dict) or "scenario" not in data or "layout" in data:
        return data
    data = dict(data)
    mode = data.pop("params_mode")
    data.update(
        world="cube",
        layout=data.pop("scenario"),
        encoder="mlp",
        obs_shape=(data.pop("obs_dim"),),
        seat_groups=1 if mode == "shared" else data["num_agents"],
    )
    return data


def project_path(path: Path) -> str:
    """``path`` as a manifest records it: relative to the project root when inside it (a checkout
    elsewhere reads the same manifest), else as given."""
    return str(path.relative_to(PROJECT_ROOT)) if path.is_relative_to(PROJECT_ROOT) else str(path)


def device_description() -> str:
    dev = jax.devices()[0]
    return f"{dev.platform}:{getattr(dev, 'device_kind', dev.platform)}"


def save(directory: Path, params: Any, manifest: Manifest, history: Sequence[dict] | None = None) -> Manifest:
    """Write params, then the training history (if given; the manifest gets its summary), then the
    manifest (last, so a present manifest means a whole checkpoint); returns the manifest as written
    (with the params' sha256). The one writer of ``history.jsonl``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST_FILE).unlink(missing_ok=True)  # a save cut short must not leave an old manifest claiming it
    blob = serialization.msgpack_serialize(jax.tree.map(np.asarray, serialization.to_state_dict(params)))
    write_atomic(directory / PARAMS_FILE, blob)
    update: dict[str, Any] = {"params_sha256": hashlib.sha256(blob).hexdigest()}
    if history is not None:
        write_atomic(directory / HISTORY_FILE, "".join(json.dumps(r) + "\n" for r in history))
        update["history"] = HistorySummary.of(history)
    manifest = manifest.model_copy(update=update)
    write_atomic(directory / MANIFEST_FILE, manifest.model_dump_json(indent=2) + "\n")
    return manifest


def load_manifest(directory: Path) -> Manifest:
    return Manifest.model_validate(json.loads((directory / MANIFEST_FILE).read_text()))


def load_for(directory: Path, network: Network, asked_as: str, missing_hint: str) -> tuple[Any, Manifest]:
    """The checkpoint in ``directory`` for a program built with ``network`` (a warm start, a partner
    trained beside, a fine-tune's parent). A ValueError that starts with ``asked_as`` (how the user
    asked for it) when the folder holds none (``missing_hint`` says what to do) or another network."""
    if not (directory / MANIFEST_FILE).is_file():
        raise ValueError(f"{asked_as}: no {MANIFEST_FILE} there ({missing_hint})")
    params, manifest = load(directory)
    if manifest.network != network:
        raise ValueError(
            f"{asked_as}: its network {manifest.network.model_dump()} differs from this run's "
            f"{network.model_dump()} (set --encoder/--network-set to match)"
        )
    return params, manifest


def load(directory: Path) -> tuple[Any, Manifest]:
    """-> (params tree for ``policy_fns(manifest.network)``, stacked per ``manifest.seat_groups``; manifest)."""
    manifest = load_manifest(directory)
    blob = (directory / PARAMS_FILE).read_bytes()
    if manifest.params_sha256 and hashlib.sha256(blob).hexdigest() != manifest.params_sha256:
        raise ValueError(f"{directory / PARAMS_FILE} does not match its manifest (sha256); re-train or re-copy it")
    return serialization.msgpack_restore(blob), manifest
