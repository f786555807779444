"""Resumable self-play training: a killed run continues where it stopped.

Every intermediate checkpoint also writes the *whole* runner (parameters, optimiser state, the
vmapped environments' states and observations, the RNG key, the update counter) plus the log
history and the wall time so far to ``<out>/resume/``. Because the runner is the complete state of
the jitted program, a resumed run executes the same calls on the same inputs as an uninterrupted
one and ends with bit-identical parameters on the same device. The folder is removed once the
final checkpoint is written, so shipped partners never carry it.

The population algorithms (`StageSaves`) also keep Python state between calls (PBT's perturbation
RNG, FCP's snapshots, COLE's generations, a best response's running scores): each stage saves its
runner together with that state, and a finished stage keeps its last save, so a run killed in FCP's
best response does not train the pool again.
"""

from __future__ import annotations

import json
import pickle
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization
from pydantic import BaseModel

from proagent.files import write_atomic

RESUME_DIR = "resume"
STATE_FILE = "state.msgpack"


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


def save(out_dir: Path, runner: Any, progress: Progress, extras: dict[str, bytes] | None = None) -> None:
    """Runner, progress and the loop's ``extras`` (e.g. the params ``--keep-best`` keeps) in one
    atomic file: a kill between two writes could otherwise pair a newer runner with an older call
    count, and the resumed run would repeat calls."""
    directory = out_dir / RESUME_DIR
    directory.mkdir(parents=True, exist_ok=True)
    state = {"progress": progress.model_dump_json(), "runner": _to_bytes(runner)}
    state.update({f"extra/{name}": blob for name, blob in (extras or {}).items()})
    write_atomic(directory / STATE_FILE, serialization.msgpack_serialize(state))


class Restored(NamedTuple):
    """An interrupted run, as read back from its one state file."""

    runner: Any
    progress: Progress
    extras: dict[str, bytes]  # the loop's ``extras`` by name (e.g. "best"); empty if it saved none


def load(out_dir: Path, template: Any, identity: dict[str, Any]) -> Restored | None:
    """The interrupted run in ``out_dir`` (runner, progress, extras), or None if there is none.

    ``template`` is a freshly initialised runner of the same program (it gives the tree's shape);
    ``identity`` is what the run was started with (``Progress.config``: the config, as JSON, plus
    what else decides the run, e.g. a fine-tune's parent). Another identity cannot be continued:
    that is an error, not a silent restart.
    """
    directory = out_dir / RESUME_DIR
    if not (directory / STATE_FILE).is_file():
        return None
    saved = serialization.msgpack_restore((directory / STATE_FILE).read_bytes())
    progress = Progress.model_validate(json.loads(saved["progress"]))
    refuse_another_config(directory, identity, progress.config)
    extras = {key.removeprefix("extra/"): blob for key, blob in saved.items() if key.startswith("extra/")}
    return Restored(_from_bytes(template, saved["runner"]), progress, extras)


def refuse_another_config(directory: Path, wanted: dict[str, Any], saved: dict[str, Any]) -> None:
    """A run started with another config cannot be continued: an error naming the keys that differ."""
    if saved != wanted:
        changed = sorted(k for k in wanted.keys() | saved.keys() if wanted.get(k) != saved.get(k))
        raise ValueError(
            f"{directory} holds a run with another config (differs in: {', '.join(changed)}); "
            f"train with the same arguments to continue it, or delete {directory} to start over"
        )


def refuse_to_overwrite(directory: Path) -> None:
    """A new run must not silently replace the resume state of an interrupted one."""
    if directory.is_dir() and any(directory.iterdir()):
        raise ValueError(
            f"{directory} holds an interrupted run: add --resume to continue it, or delete {directory} to start over"
        )


def clear(out_dir: Path) -> None:
    shutil.rmtree(out_dir / RESUME_DIR, ignore_errors=True)


@dataclass(frozen=True)
class ResumePolicy:
    """How a population run saves: ``resume`` continues an interrupted run in the same folder."""

    resume: bool = False
    every_s: float = 120.0


class TrainedFor(NamedTuple):
    """What a population run's manifests say about its training: env steps, wall time (interrupted
    parts included) and the commit the run (or its resumed part) started from."""

    env_steps: int
    wall_s: float
    commit: str


class StageSaves:
    """Per-stage resume state of a population algorithm in ``<out>/resume/<stage>.pkl``.

    One file a stage, written atomically, holds the runner, the outer loop's state (pickled: it
    mixes parameter trees, numpy arrays and an RNG; only this run reads it back), the calls done
    and the algorithm's wall time so far, so a save is never half new and half old. ``identity``
    (algorithm, config, settings) must match for a run to be continued.
    """

    def __init__(self, out_dir: Path | None, identity: dict[str, Any], policy: ResumePolicy, commit: str = "") -> None:
        self.commit = commit  # read at the run's start: HEAD can move while a long run trains
        self.directory = out_dir / RESUME_DIR if out_dir is not None else None
        self.identity = json.loads(json.dumps(identity))
        self.policy = policy
        self.saved: dict[str, dict[str, Any]] = {}  # stage -> its save, read once when resuming
        if self.directory is not None and not policy.resume:
            refuse_to_overwrite(self.directory)
        if policy.resume and self.directory is not None:
            self.saved = {path.stem: self._read(path) for path in self.directory.glob("*.pkl")}
        self.offset = max((saved["wall_s"] for saved in self.saved.values()), default=0.0)
        self.opened = time.perf_counter()
        self.last_save = self.opened

    def elapsed(self) -> float:
        """Training wall time of the whole run, the interrupted part included."""
        return self.offset + time.perf_counter() - self.opened

    def trained(self, env_steps: int) -> TrainedFor:
        """The finished run's facts for its manifests, read once so every agent it ships agrees."""
        return TrainedFor(env_steps=env_steps, wall_s=self.elapsed(), commit=self.commit)

    def _read(self, path: Path) -> dict[str, Any]:
        saved = pickle.loads(path.read_bytes())
        refuse_another_config(path.parent, self.identity, saved["identity"])
        return saved

    def restore(self, stage: str, template: Any) -> tuple[Any, dict, int] | None:
        """-> (runner, loop state, calls done) of ``stage`` when resuming and it was saved, else None."""
        saved = self.saved.pop(stage, None)
        if saved is None:
            return None
        return _from_bytes(template, saved["runner"]), saved["state"], saved["calls_done"]

    def after_call(self, stage: str, runner: Any, state: dict, calls_done: int, final: bool) -> None:
        """Save after a stage's last call, and otherwise every ``every_s`` seconds."""
        if self.directory is None or not (final or time.perf_counter() - self.last_save >= self.policy.every_s):
            return
        saved = {
            "identity": self.identity,
            "calls_done": calls_done,
            "wall_s": self.elapsed(),
            "runner": _to_bytes(runner),
            "state": state,  # as is: a tree map would sort the records' keys
        }
        write_atomic(self.directory / f"{stage}.pkl", pickle.dumps(saved))
        self.last_save = time.perf_counter()

    def clear(self) -> None:
        """Once the agent is saved: no resume state stays behind (nor an emptied output folder)."""
        if self.directory is not None:
            clear(self.directory.parent)
            try:
                self.directory.parent.rmdir()
            except OSError:
                pass  # it holds the agent
