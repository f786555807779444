"""Checkpoints: ``params.msgpack`` (flax msgpack, a few hundred KB) + ``manifest.json``.

They ship in the repo under ``partners/<layout>/<algo>/`` so a fresh, offline machine can play
against them. Loading needs flax/jax/numpy only (no optax, no training code): the manifest says how
to rebuild the network, and msgpack restores the parameter tree without a template.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import jax
import numpy as np
from flax import serialization
from pydantic import BaseModel, ConfigDict, Field

from proagent.paths import PARTNERS_DIR, PROJECT_ROOT
from proagent.training.networks import NetworkConfig

PARAMS_FILE = "params.msgpack"
MANIFEST_FILE = "manifest.json"
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


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")

    format_version: int = FORMAT_VERSION
    algorithm: str
    layout: str
    seed: int
    env_steps: int
    train_wall_time_s: float
    device: str
    encoder: str
    network: NetworkConfig
    obs_shape: tuple[int, ...]
    self_play: SelfPlayScore | None = None
    git_commit: str = ""
    created: str = Field(default_factory=now)
    jax_version: str = jax.__version__
    params_sha256: str = ""
    train_config: dict[str, Any] = Field(default_factory=dict)
    selection: Selection | None = Field(None, description="set by --keep-best runs: which params shipped, and why")
    init_from: InitFrom | None = Field(None, description="set by --init-from runs: the params they started from")
    dynamics: dict[str, Any] = Field(
        default_factory=dict, description="the env's Dynamics it trained in (empty: the classic rules); partners observe with it"
    )


def project_path(path: Path) -> str:
    """``path`` as a manifest records it: relative to the project root when inside it (a checkout
    elsewhere reads the same manifest), else as given."""
    return str(path.relative_to(PROJECT_ROOT)) if path.is_relative_to(PROJECT_ROOT) else str(path)


def partner_dir(layout: str, algo: str, root: Path = PARTNERS_DIR) -> Path:
    return root / layout / algo


def git_commit() -> str:
    """HEAD of the checkout (with '-dirty' when the tree has changes), '' outside git."""
    try:
        run = lambda *a: subprocess.run(
            ["git", *a], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, check=False
        )
        head = run("rev-parse", "HEAD").stdout.strip()
        dirty = run("status", "--porcelain", "--untracked-files=no").stdout.strip()
        return f"{head}-dirty" if head and dirty else head
    except (OSError, subprocess.SubprocessError):
        return ""


def device_description() -> str:
    dev = jax.devices()[0]
    return f"{dev.platform}:{getattr(dev, 'device_kind', dev.platform)}"


def save(directory: Path, params: Any, manifest: Manifest) -> Manifest:
    """Write params then manifest (the manifest last, so a present manifest means a whole checkpoint);
    returns the manifest as written (with the params' sha256)."""
    directory.mkdir(parents=True, exist_ok=True)
    blob = serialization.msgpack_serialize(jax.tree.map(np.asarray, serialization.to_state_dict(params)))
    (directory / PARAMS_FILE).write_bytes(blob)
    manifest = manifest.model_copy(update={"params_sha256": hashlib.sha256(blob).hexdigest()})
    (directory / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n")
    return manifest


def load_manifest(directory: Path) -> Manifest:
    return Manifest.model_validate(json.loads((directory / MANIFEST_FILE).read_text()))


def load_for(directory: Path, network: NetworkConfig, asked_as: str, missing_hint: str) -> tuple[Any, Manifest]:
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
    """-> (params tree usable by ``ActorCritic(manifest.network).apply``, manifest)."""
    manifest = load_manifest(directory)
    blob = (directory / PARAMS_FILE).read_bytes()
    if manifest.params_sha256 and hashlib.sha256(blob).hexdigest() != manifest.params_sha256:
        raise ValueError(f"{directory / PARAMS_FILE} does not match its manifest (sha256); re-train or re-copy it")
    return serialization.msgpack_restore(blob), manifest
