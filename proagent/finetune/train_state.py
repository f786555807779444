"""Checkpoints of a LoRA run: the deltas and the optimizer state in one ``.npz``, the step and the
losses so far beside it in JSON, both written atomically, so a killed run resumes where it was.

Why not orbax: the state is a few megabytes of arrays; the leaves of the pytree are saved in
``jax.tree_util`` order and put back into a freshly built tree of the same config, which checks
every shape on the way.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import jax
import numpy as np
from pydantic import BaseModel, ConfigDict

from proagent.files import write_atomic

__all__ = [
    "CHECKPOINT_ARRAYS",
    "CHECKPOINT_RECORD",
    "CheckpointRecord",
    "HeldOutScore",
    "StepLoss",
    "WorldHeldOut",
    "load_state",
    "save_state",
]

CHECKPOINT_ARRAYS = "checkpoint.npz"
CHECKPOINT_RECORD = "checkpoint.json"


class StepLoss(BaseModel):
    """One progress point: mean answer-token loss over the steps since the last point, and the speed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    loss: float
    examples_per_s: float


class WorldHeldOut(BaseModel):
    """One world's part of a held-out score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    loss: float
    greedy_matches: int


class HeldOutScore(BaseModel):
    """The adapter at one step, scored on the held-out answers (never taught): their mean answer-token
    loss, and how many of them greedy decoding would write token for token (`answer_scores`); the
    same per world, since a set taught on many worlds can learn one and not another."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    n: int  # held-out answers scored
    loss: float
    greedy_matches: int
    by_world: dict[str, WorldHeldOut] = {}

    def text(self) -> str:
        whole = f"held out (n={self.n}): loss {self.loss:.4f}, greedy answers as taught {self.greedy_matches}/{self.n}"
        if len(self.by_world) < 2:
            return whole
        worlds = ", ".join(f"{name} {w.greedy_matches}/{w.n}" for name, w in self.by_world.items())
        return f"{whole} ({worlds})"


class CheckpointRecord(BaseModel):
    """What a checkpoint was made from (checked on resume) and how far it got."""

    model_config = ConfigDict(extra="forbid")

    step: int
    config_json: str
    data_sha256: str
    base_sha256: str
    losses: list[StepLoss]
    heldout: list[HeldOutScore] = []  # the step-0 score (the raw model) and one at each checkpoint


def save_state(out_dir: Path, state: Any, record: CheckpointRecord) -> None:
    """Arrays first, then the record naming their step: a crash between them leaves an older, consistent pair."""
    leaves = jax.tree_util.tree_leaves(state)
    buffer = io.BytesIO()
    np.savez(buffer, **{f"leaf_{i:05d}": np.asarray(leaf) for i, leaf in enumerate(leaves)}, step=record.step)
    write_atomic(out_dir / CHECKPOINT_ARRAYS, buffer.getvalue())
    write_atomic(out_dir / CHECKPOINT_RECORD, record.model_dump_json(indent=1))


def load_state(out_dir: Path, template: Any) -> tuple[Any, CheckpointRecord] | None:
    """``(state, record)`` from ``out_dir``, shaped like ``template``; None when there is no checkpoint."""
    record_path = out_dir / CHECKPOINT_RECORD
    if not record_path.is_file():
        return None
    record = CheckpointRecord.model_validate_json(record_path.read_text(encoding="utf-8"))
    leaves, treedef = jax.tree_util.tree_flatten(template)
    with np.load(out_dir / CHECKPOINT_ARRAYS) as saved:
        if int(saved["step"]) != record.step:
            raise ValueError(
                f"checkpoint arrays are from step {int(saved['step'])}, its record from step {record.step}"
            )
        loaded = [saved[f"leaf_{i:05d}"] for i in range(len(leaves))]
    for i, (old, new) in enumerate(zip(leaves, loaded, strict=True)):
        if np.shape(old) != new.shape:
            raise ValueError(f"checkpoint leaf {i} has shape {new.shape}, this run's config makes {np.shape(old)}")
    restored = [jax.numpy.asarray(new, dtype=np.asarray(old).dtype) for old, new in zip(leaves, loaded, strict=True)]
    return jax.tree_util.tree_unflatten(treedef, restored), record
