"""A table run: one folder that holds every evaluation grid a table plays, so that one
``--resume FOLDER`` finishes the whole table, whichever of its grids a stop cut short.

A table may play several grids (a layout each, feedback off then on). Each grid is an ordinary
run folder inside the table's folder (``runs/<stamp>-<target>/<stamp>-<grid>/``), played and
resumed exactly as `proagent eval` plays and resumes one; ``table_run.json`` beside them records the
target, the settings that decide what is played, the command that made the table, and which folder
holds which grid. It is written before a grid plays its first episode, so a killed table resumes
every grid it had begun (finished episodes are skipped, never replayed) and starts the others.

A resume keeps the recorded settings (a changed one would mix two setups in one table); only how
the episodes run (executor, cost cap, cache, progress) and where the page goes may change, and
``--episodes`` may grow (every grid plays the episodes it lacks; the finished ones are kept, and the
recorded command then names the new count, so the page's regenerate line makes the page it is on).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.eval.config import EvalConfig
from proagent.eval.manifest import load_manifest
from proagent.eval.session import RESUMABLE_FIELDS, RunHandle, open_run, resume_run
from proagent.eval.world import Resolved, World
from proagent.runner.run_folder import RunFolder, RunFolderBusy
from proagent.tables_out import without_flag

TABLE_FILE = "table_run.json"  # not table.json: a grid's run folder has its report there
# the settings a resume may change: how episodes run and where the page goes, never what is played
RESUMABLE = frozenset({"executor", "ray_address", "max_cost", "cache", "progress", "out"})
# settings that are not recorded: they belong to one invocation, not to the table
NOT_RECORDED = frozenset({"command", "progress", "resume", "executor", "ray_address", "target"})
GROWABLE = "episodes"  # a resume may grow it, never shrink it


class TableRunError(ValueError):
    """A folder that cannot be resumed as this table, said in one line."""


class TableRecord(BaseModel):
    """``table_run.json``: what the table plays and where each of its grids is."""

    model_config = ConfigDict(extra="forbid")
    target: str = Field(description="the reproduce target that made this folder")
    settings: dict[str, Any] = Field(description="the table's settings that decide what is played (JSON)")
    command: str = Field(description="the command that started the table, without --resume")
    grids: dict[str, str] = Field(default_factory=dict, description="grid name -> its run folder's name here")


def recorded_settings(settings: BaseModel) -> dict[str, Any]:
    """The settings to record: all but those of one invocation."""
    return settings.model_dump(mode="json", exclude=set(NOT_RECORDED))


def load_record(path: Path) -> TableRecord:
    """The record of the table run in ``path``; a TableRunError says why there is none."""
    if not path.is_dir():
        raise TableRunError(f"--resume: no run folder at {path}")
    try:
        return TableRecord.model_validate_json((path / TABLE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TableRunError(
            f"--resume: {path} is not a table run (it has no {TABLE_FILE}); give the folder the table printed"
        ) from None
    except (ValidationError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TableRunError(f"--resume: {path / TABLE_FILE} is unreadable ({type(exc).__name__})") from None


def resumed_settings(path: Path, target: str, given: dict[str, Any]) -> dict[str, Any]:
    """The settings a resume of ``path`` runs with: the recorded ones, then the ``given`` flags,
    each of which must be one a resume may change (TableRunError otherwise)."""
    record = load_record(path)
    if record.target != target:
        raise TableRunError(f"--resume: {path} is a run of {record.target!r}, not of this target ({target!r})")
    fixed = sorted(k for k in given if k not in RESUMABLE and k != GROWABLE)
    if fixed:
        flags = ", ".join("--set" if k == "set" else "--" + k.replace("_", "-") for k in fixed)
        raise TableRunError(
            f"--resume keeps the table's settings; these cannot change: {flags} (start a new run instead)"
        )
    command = record.command
    if GROWABLE in given:
        recorded = record.settings.get(GROWABLE)
        if not isinstance(recorded, int):
            raise TableRunError(f"--resume: the {target} table has no --episodes to grow")
        if int(given[GROWABLE]) < recorded:
            raise TableRunError(f"--resume: --episodes can grow, not shrink below {recorded}")
        command = with_episodes(record.command, int(given[GROWABLE]))
    return {**record.settings, **given, "command": command, "resume": path, "target": target}


def with_episodes(command: str, episodes: int) -> str:
    """``command`` with ``--episodes episodes`` in place of the count it gave (or added)."""
    return shlex.join([*without_flag(shlex.split(command), "--episodes"), "--episodes", str(episodes)])


class TableRun:
    """The open (locked) folder of one table run; grids are played through `handle`."""

    def __init__(self, folder: RunFolder, record: TableRecord) -> None:
        self.folder = folder
        self.record = record
        # a resume with more --episodes than the table was made with: the count, and the command that makes it
        self.growth: tuple[int, str] | None = None

    @classmethod
    def open(cls, target: str, settings: BaseModel, command: str, runs_dir: Path, resume: Path | None) -> TableRun:
        """A new table folder under ``runs_dir``, or the ``resume`` folder reopened; locked either
        way, so two processes never play one table."""
        try:
            if resume is None:
                folder = RunFolder.create(target, root=runs_dir).lock()
                run = cls(folder, TableRecord(target=target, settings=recorded_settings(settings), command=command))
                run.save()
                return run
            run = cls(RunFolder(resume).lock(), load_record(resume))
            episodes = recorded_settings(settings).get(GROWABLE)
            if isinstance(episodes, int) and episodes != run.record.settings.get(GROWABLE):  # checked: it only grows
                run.growth = (episodes, command)
            return run
        except RunFolderBusy as exc:
            raise TableRunError(f"--resume: {exc}") from None

    @property
    def path(self) -> Path:
        return self.folder.path

    def save(self) -> None:
        self.folder.write_json(TABLE_FILE, self.record)

    def grow(self, configs: list[EvalConfig]) -> None:
        """Record the grown ``--episodes`` (and the command that now makes the page) once every begun
        grid is checked to differ from its recorded config in its episodes only: in some tables
        ``--episodes`` counts worlds (more layouts), not episodes of the same cells, and those
        cannot grow in place (a TableRunError says so before anything plays)."""
        if self.growth is None:
            return
        episodes, command = self.growth
        for config in configs:
            if config.name not in self.record.grids:
                continue
            recorded = load_manifest(RunFolder(self.path / self.record.grids[config.name])).config
            other = sorted(
                field
                for field in EvalConfig.model_fields
                if field not in RESUMABLE_FIELDS and getattr(config, field) != getattr(recorded, field)
            )
            if other:
                raise TableRunError(
                    f"--resume --episodes: in the {self.record.target} table more episodes change the grid "
                    f"{config.name}'s {', '.join(other)}, not only its episodes; start a new run with "
                    f"--episodes {episodes}"
                )
        self.record.settings[GROWABLE] = episodes
        self.record.command = command
        self.save()

    def handle(self, config: EvalConfig, resolved: Resolved, world: World, changes: dict[str, Any]) -> RunHandle:
        """The run of grid ``config`` (``resolved`` already): its recorded folder reopened
        (``changes`` to its execution settings), or a new folder here, recorded before any episode plays."""
        name = config.name
        if name in self.record.grids:  # its episodes: the count the table plays now (grown or the same)
            grown = {**changes, "episodes": config.episodes}
            return resume_run(self.path / self.record.grids[name], grown, world, self.record.command)
        handle = open_run(config, resolved, self.record.command, self.path)
        self.record.grids[name] = handle.folder.path.name
        self.save()
        return handle
