"""Run folders: runs/<timestamp>-<name>/ with config, per-step trace and per-episode records.

Episode records are appended one line at a time and fsynced, so a killed process loses no
finished episode and a reader never sees half a line counted as an episode.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import IO

from pydantic import BaseModel

from proagent.files import write_atomic
from proagent.jsonl import read_jsonl
from proagent.llm.redaction import redact_values
from proagent.paths import RUNS_DIR


def package_versions() -> dict[str, str]:
    out = {}
    for name in ("proagent", "jax", "jaxmarl", "litellm", "llama_cpp_python", "numpy"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def now_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=,-]{0,119}")


def check_run_name(name: str) -> str:
    """``name`` if it can be one part of a run folder's name (letters, digits and ``. _ : @ + = , -``,
    starting with a letter or digit, at most 120 characters); ValueError in one line otherwise."""
    if not RUN_NAME.fullmatch(name):
        raise ValueError(
            f"run name {name[:60]!r}: use letters, digits and . _ : @ + = , - (starting with a letter or digit, "
            "no path separators, at most 120 characters)"
        )
    return name


def run_name_from(text: str) -> str:
    """A run name made from layout and agent names (a default ``--name``): every character
    `check_run_name` refuses becomes ``_``."""
    cleaned = re.sub(r"[^A-Za-z0-9._:@+=,-]", "_", text)[:120]
    return cleaned if cleaned[:1].isalnum() else f"run-{cleaned}"[:120]


def _write_all(fd: int, data: bytes) -> None:
    """Unbuffered: a failed write leaves nothing queued that a later flush could append after the cut."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _cut_back(fd: int, end: int) -> None:
    """Drop what a failed append left after ``end`` (a full disk can take half a line), so the next
    line starts on a line of its own and no finished record is glued to a torn one."""
    try:
        os.ftruncate(fd, end)
    except OSError:  # nothing more can be done; readers skip a torn last line
        pass


class RunFolderBusy(ValueError):
    """Another process is writing this run folder; the message says which and what to do."""


class RunFolder:
    LOCK_FILE = ".lock"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock: IO[str] | None = None

    def lock(self) -> RunFolder:
        """Hold this folder for this process (a POSIX record lock on ``.lock``): two processes
        resuming one folder would play the same episodes and pay twice. Another process gets
        `RunFolderBusy`; the lock goes with the process, even a killed one. Record locks belong to
        the process, so the same process may reopen its own folder (a resume after an in-process
        interruption)."""
        handle = open(self.path / self.LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115 - held until exit
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # EACCES or EAGAIN: another process holds it
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise RunFolderBusy(
                f"run folder {self.path} is in use by {holder}: wait for it to finish, then resume"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"proagent process {os.getpid()}")
        handle.flush()
        self._lock = handle
        return self

    @classmethod
    def create(cls, name: str, root: Path = RUNS_DIR) -> RunFolder:
        """A new folder ``<root>/<timestamp>-<name>``; a name that is not one plain path part
        (`check_run_name`) is refused, so no run is ever written outside ``root``."""
        check_run_name(name)
        root = root.absolute()  # the current folder's runs/ by default: fixed now, whatever chdir comes later
        path = root / f"{now_stamp()}-{name}"
        suffix = 1
        while path.exists():
            suffix += 1
            path = root / f"{now_stamp()}-{name}-{suffix}"
        return cls(path)

    def write_json(self, filename: str, data: BaseModel | dict) -> Path:
        payload = data.model_dump(mode="json") if isinstance(data, BaseModel) else data
        target = self.path / filename
        write_atomic(target, json.dumps(redact_values(payload), indent=2))
        return target

    def append_jsonl(self, filename: str, record: BaseModel | dict, durable: bool = False) -> None:
        payload = record.model_dump(mode="json") if isinstance(record, BaseModel) else record
        data = (json.dumps(redact_values(payload)) + "\n").encode("utf-8")
        fd = os.open(self.path / filename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            end = os.lseek(fd, 0, os.SEEK_END)
            try:
                _write_all(fd, data)
                if durable:
                    os.fsync(fd)
            except OSError as exc:
                _cut_back(fd, end)
                raise OSError(exc.errno, exc.strerror, str(self.path / filename)) from exc  # name the file
        finally:
            os.close(fd)

    def read_jsonl(self, filename: str) -> list[dict]:
        """The file's whole JSON objects; torn or undecodable lines are skipped with a warning."""
        return read_jsonl(self.path / filename).records
