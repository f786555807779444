"""File writes that never leave a half-written file behind (LLM cache entries, resumable training state),
and a file's identity (its sha256, for manifests and run records)."""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from pathlib import Path
from typing import TypeGuard


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
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(path)) from exc  # name the file meant, not the temporary one
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def nearest_existing(path: Path) -> Path | None:
    """``path`` or its nearest ancestor that exists (None if none does): where a write into
    ``path`` would first meet the disk, so a file standing there can be named before any work."""
    return next((p for p in (path, *path.parents) if p.exists()), None)


DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG})


def is_disk_error(exc: BaseException) -> TypeGuard[OSError]:
    """True for a failure of the disk itself (full, over quota, read-only, I/O error): no episode
    can be saved until it is fixed, so a run stops instead of counting episodes as failed."""
    return isinstance(exc, OSError) and exc.errno in DISK_ERRNOS


def disk_problem(exc: OSError) -> str:
    """One line for a write or read the disk refused (full disk, quota, read-only file system,
    permissions, I/O error): what failed, where, and what to do. Finished records are written one
    whole line at a time, so the line can promise they are intact."""
    reason = exc.strerror or type(exc).__name__
    where = f" {exc.filename}" if exc.filename else ""
    remedy = {
        errno.ENOSPC: "free disk space",
        errno.EDQUOT: "free space within your quota",
        errno.EROFS: "choose a writable folder",
        errno.EACCES: "choose a folder you may write",
        errno.EPERM: "choose a folder you may write",
    }.get(exc.errno or 0, "check the disk")
    return f"cannot write{where}: {reason}; {remedy} and try again (what was finished before is kept intact)"


def file_sha256(path: Path) -> str:
    """sha256 of a file, streamed (a model's or an adapter's identity in a manifest or a run record)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
