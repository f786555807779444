"""Where a training run writes: a fresh run folder under ``runs/train/`` unless ``--out`` says
otherwise, never silently over a checkpoint.

The default is ``runs/train/<timestamp>-<world>-<layout>-<algo>/`` in the current folder (``--runs-dir``
names another parent): a run never lands
in ``partners/`` by default, so no shipped checkpoint is overwritten by accident; shipping one is a
deliberate act: ``--ship`` writes into ``partners/<world>/<layout>/<name>/`` and, like an ``--out``
there, replaces a checkpoint only with ``--overwrite``. ``--resume`` without ``--out`` continues the newest interrupted
run of the same world, layout and algorithm.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path

from proagent.files import nearest_existing
from proagent.paths import PARTNERS_DIR, RUNS_DIR, partner_dir
from proagent.training.checkpoint import MANIFEST_FILE
from proagent.training.resume import RESUME_DIR

TRAIN_RUNS = RUNS_DIR / "train"
SHIP_ROOT = PARTNERS_DIR  # where ``--ship`` writes: the folder partners are loaded from by name


def _slug(text: str) -> str:
    """A layout given as a file path or a generated name, made a folder name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "layout"


def run_name(world: str, layout: str, algo: str) -> str:
    """``<world>-<layout>-<algo>``: the part of a run folder's name after its timestamp."""
    return f"{_slug(world)}-{_slug(layout)}-{_slug(algo)}"


def default_out(world: str, layout: str, algo: str, root: Path | None = None) -> Path:
    """A new run folder: ``<root>/<YYYYmmdd-HHMMSS>-<world>-<layout>-<algo>`` (a suffix if taken);
    ``root`` defaults to ``runs/train``."""
    root = (TRAIN_RUNS if root is None else root).absolute()
    base = f"{time.strftime('%Y%m%d-%H%M%S')}-{run_name(world, layout, algo)}"
    out, n = root / base, 1
    while out.exists():
        n += 1
        out = root / f"{base}-{n}"
    return out


def interrupted_run(world: str, layout: str, algo: str, root: Path | None = None) -> Path | None:
    """The newest run folder of this world, layout and algorithm that holds resume state."""
    root = TRAIN_RUNS if root is None else root
    name = run_name(world, layout, algo)
    pattern = re.compile(rf"\d{{8}}-\d{{6}}-{re.escape(name)}(-\d+)?")
    found = sorted(p.parent for p in root.glob(f"*/{RESUME_DIR}") if p.is_dir() and pattern.fullmatch(p.parent.name))
    return found[-1] if found else None


def ship_out(world: str, layout: str, name: str) -> Path:
    """Where ``--ship`` writes: the folder the partner ``name`` of ``layout`` is loaded from."""
    return partner_dir(world, layout, name, SHIP_ROOT)


def refuse_checkpoint_overwrite(targets: Sequence[Path], overwrite: bool, resume: bool) -> None:
    """A ValueError (one line) when a target is a file, or lies under one (training would fail at
    its first save), or holds a checkpoint and neither ``--overwrite`` nor ``--resume`` (whose
    interrupted run wrote it) says to write there."""
    for target in targets:
        existing = nearest_existing(target)
        if existing is not None and not existing.is_dir():
            raise ValueError(f"--out {target}: {existing} is a file, not a folder")
    if overwrite or resume:
        return
    for target in targets:
        if (target / MANIFEST_FILE).is_file():
            raise ValueError(f"{target} holds a checkpoint: add --overwrite to replace it, or write elsewhere (--out)")
