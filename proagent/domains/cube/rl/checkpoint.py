"""CUBE IPPO checkpoints, the Overcooked partners' layout (``proagent.training.checkpoint``):

    partners/cube/<scenario>/<algorithm>/
        params.msgpack   flax msgpack of the parameter tree, leading group axis (1 shared, A independent)
        manifest.json    algorithm, scenario, seed, env steps, wall time, device, network config,
                         observation size, self-play scores (mean ± se), the scripted pusher team's
                         score, whether it learned to deliver, git commit, params sha256, training config
        history.jsonl    the training curve, one record per logged window of updates

Loading needs flax/jax/numpy/pydantic only (no optax, no training code).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jax
import numpy as np
from flax import serialization
from pydantic import BaseModel, ConfigDict, Field

from proagent.domains.cube.rl.network import MlpConfig
from proagent.paths import PARTNERS_DIR
from proagent.training.checkpoint import SelfPlayScore, device_description, git_commit

PARAMS_FILE = "params.msgpack"
MANIFEST_FILE = "manifest.json"
HISTORY_FILE = "history.jsonl"
FORMAT_VERSION = 1
CUBE_PARTNERS_DIR = PARTNERS_DIR / "cube"
ALGORITHMS = ("ippo_shared", "ippo_independent")

__all__ = [
    "ALGORITHMS",
    "CUBE_PARTNERS_DIR",
    "CubeManifest",
    "SelfPlayScore",
    "available",
    "device_description",
    "git_commit",
    "load",
    "load_manifest",
    "partner_dir",
    "save",
]


class CubeManifest(BaseModel):
    model_config = ConfigDict(extra="allow")

    format_version: int = FORMAT_VERSION
    algorithm: str  # ippo_shared | ippo_independent
    params_mode: str  # shared | independent
    scenario: str
    seed: int
    env_steps: int
    train_wall_time_s: float
    device: str
    network: MlpConfig
    obs_dim: int
    num_agents: int
    self_play: SelfPlayScore | None = None  # stochastic actions, as trained
    self_play_greedy: SelfPlayScore | None = None  # argmax actions
    self_play_steps: float | None = Field(None, description="mean episode length in self-play (stochastic)")
    pusher_team: float | None = Field(None, description="team score of the scripted pusher team, same scenario")
    pusher_team_steps: int | None = Field(None, description="its episode length (the horizon unless all delivered)")
    max_score: int = 0  # every block delivered
    learned: bool = Field(False, description="does self-play deliver anything (mean score > 0)?")
    notes: str = ""
    git_commit: str = ""
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    jax_version: str = jax.__version__
    params_sha256: str = ""
    train_config: dict[str, Any] = Field(default_factory=dict)


def partner_dir(scenario: str, algorithm: str, root: Path = CUBE_PARTNERS_DIR) -> Path:
    return root / scenario.replace(":", "_") / algorithm


def available(scenario: str, root: Path = CUBE_PARTNERS_DIR) -> list[str]:
    """The IPPO algorithms with a checkpoint for ``scenario``."""
    return [a for a in ALGORITHMS if (partner_dir(scenario, a, root) / MANIFEST_FILE).is_file()]


def save(directory: Path, params: Any, manifest: CubeManifest, history: Sequence[dict] | None = None) -> CubeManifest:
    """Params, then history, then the manifest (last: a manifest means a whole checkpoint)."""
    directory.mkdir(parents=True, exist_ok=True)
    blob = serialization.msgpack_serialize(jax.tree.map(np.asarray, serialization.to_state_dict(params)))
    (directory / PARAMS_FILE).write_bytes(blob)
    if history is not None:
        (directory / HISTORY_FILE).write_text("".join(json.dumps(r) + "\n" for r in history))
    manifest = manifest.model_copy(update={"params_sha256": hashlib.sha256(blob).hexdigest()})
    (directory / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n")
    return manifest


def load_manifest(directory: Path) -> CubeManifest:
    return CubeManifest.model_validate(json.loads((directory / MANIFEST_FILE).read_text()))


def load(directory: Path) -> tuple[Any, CubeManifest]:
    """-> (params with a leading group axis, manifest); refuses params whose sha256 differs."""
    manifest = load_manifest(directory)
    blob = (directory / PARAMS_FILE).read_bytes()
    if manifest.params_sha256 and hashlib.sha256(blob).hexdigest() != manifest.params_sha256:
        raise ValueError(f"{directory / PARAMS_FILE} does not match its manifest (sha256); re-train or re-copy it")
    return serialization.msgpack_restore(blob), manifest
