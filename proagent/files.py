"""File writes that never leave a half-written file behind (LLM cache entries, resumable training state)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see either nothing or all of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def nearest_existing(path: Path) -> Path | None:
    """``path`` or its nearest ancestor that exists (None if none does): where a write into
    ``path`` would first meet the disk, so a file standing there can be named before any work."""
    return next((p for p in (path, *path.parents) if p.exists()), None)
