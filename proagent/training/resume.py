"""Resumable self-play training: a killed run continues where it stopped.

Every intermediate checkpoint also writes the *whole* runner (parameters, optimiser state, the
vmapped environments' states and observations, the RNG key, the update counter) plus the log
history and the wall time so far to ``<out>/resume/``. Because the runner is the complete state of
the jitted program, a resumed run executes the same calls on the same inputs as an uninterrupted
one and ends with bit-identical parameters on the same device. The folder is removed once the
final checkpoint is written, so shipped partners never carry it.

The population algorithms' outer loops keep Python state between calls (PBT's perturbation RNG,
FCP's snapshots, COLE's generations); they are not resumable.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization
from pydantic import BaseModel

from proagent.files import write_atomic
from proagent.training.config import PPOConfig

RESUME_DIR = "resume"
STATE_FILE = "runner.msgpack"
PROGRESS_FILE = "progress.json"


class Progress(BaseModel):
    """What the Python loop knows besides the runner."""

    config: dict[str, Any]
    calls_done: int
    wall_s: float
    history: list[dict]


def _to_bytes(tree: Any) -> bytes:
    """The tree's leaves in flatten order (the engine's state holds classes flax cannot serialise)."""
    leaves = jax.tree.leaves(tree)
    return serialization.msgpack_serialize({str(i): np.asarray(leaf) for i, leaf in enumerate(leaves)})


def _from_bytes(template: Any, blob: bytes) -> Any:
    stored = serialization.msgpack_restore(blob)
    leaves, treedef = jax.tree.flatten(template)
    if len(stored) != len(leaves):
        raise ValueError(f"the saved runner has {len(stored)} arrays, this program's has {len(leaves)}")
    restored = []
    for i, leaf in enumerate(leaves):
        value = stored[str(i)]
        if value.shape != leaf.shape or value.dtype != leaf.dtype:
            raise ValueError(f"saved runner array {i} is {value.dtype}{value.shape}, expected {leaf.dtype}{leaf.shape}")
        restored.append(jnp.asarray(value))
    return jax.tree.unflatten(treedef, restored)


def save(out_dir: Path, runner: Any, progress: Progress) -> None:
    """Runner first, progress last: a present progress file means its runner is whole."""
    directory = out_dir / RESUME_DIR
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(directory / STATE_FILE, _to_bytes(runner))
    write_atomic(directory / PROGRESS_FILE, progress.model_dump_json())


def load(out_dir: Path, template: Any, config: PPOConfig) -> tuple[Any, Progress] | None:
    """-> (runner, progress) of an interrupted run in ``out_dir``, or None if there is none.

    ``template`` is a freshly initialised runner of the same program (it gives the tree's shape).
    A run started with another config cannot be continued: that is an error, not a silent restart.
    """
    directory = out_dir / RESUME_DIR
    if not (directory / PROGRESS_FILE).is_file():
        return None
    progress = Progress.model_validate(json.loads((directory / PROGRESS_FILE).read_text()))
    wanted = config.model_dump(mode="json")
    if progress.config != wanted:
        changed = sorted(k for k in wanted.keys() | progress.config.keys() if wanted.get(k) != progress.config.get(k))
        raise ValueError(
            f"{directory} holds a run with another config (differs in: {', '.join(changed)}); "
            f"train with the same arguments to continue it, or delete {directory} to start over"
        )
    runner = _from_bytes(template, (directory / STATE_FILE).read_bytes())
    return runner, progress


def clear(out_dir: Path) -> None:
    shutil.rmtree(out_dir / RESUME_DIR, ignore_errors=True)
