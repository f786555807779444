"""Which world a run folder played: the one reader every front end uses (replay, report, analyze).

Every run folder names its world in one place. Play, human and evaluation runs write it as the
top-level ``domain`` of config.json; training runs as the ``world`` of their checkpoint's
manifest.json. Folders written before that are still read: evaluation manifests that kept it only
under ``config.domain``, and runs from before worlds existed (the default world). Reading the
name in one function is what keeps a CUBE evaluation from being replayed as a kitchen.

Run folders travel between labs, so the files are read as untrusted: a bounded size, strict
types, and a name that is a world name or ``module:attribute``; anything else is one clear
`RunFolderError`, never a guess.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.domains import DEFAULT_DOMAIN
from proagent.untrusted import UntrustedFileError, loads_json

CONFIG_FILE = "config.json"
CHECKPOINT_MANIFEST = "manifest.json"  # a training run's checkpoint record (proagent.training.checkpoint)
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a config.json is a few KiB; a bigger one is not read
WORLD_NAME = r"^[A-Za-z_][A-Za-z0-9_.]{0,99}(:[A-Za-z_][A-Za-z0-9_.]{0,99})?$"


_M = TypeVar("_M", bound=BaseModel)


class RunFolderError(ValueError):
    """A run folder whose files cannot be read as one (one line, naming the file)."""


class _Named(BaseModel):
    """The part of a config that names the world (strict: a string of a world name's shape)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    domain: str | None = Field(None, pattern=WORLD_NAME)


class _RunConfig(_Named):
    """config.json of play, human and evaluation runs; an evaluation manifest also has ``config``."""

    config: _Named | None = None


class _Checkpoint(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    world: str | None = Field(None, pattern=WORLD_NAME)


class RunConfigFile(BaseModel):
    """What a run folder's config.json says, read once: the world, whether the run is an evaluation,
    and the JSON object itself, so a reader that needs more of it (the LLM agent a play run names)
    does not read the file a second time."""

    model_config = ConfigDict(frozen=True)

    world: str  # `world_of`
    evaluation: bool  # a manifest with a ``config``: an evaluation run, not a play or human run
    data: dict[str, Any] | None  # config.json as read (checked as untrusted); None: the folder has none


def read_run_config(folder: Path) -> RunConfigFile:
    """``folder``'s config.json, read once (a bounded size, strict world name); `RunFolderError` as
    `world_of`."""
    folder = Path(folder)
    path = folder / CONFIG_FILE
    data = _load(path)
    config = _validate(path, data, _RunConfig) if data is not None else None
    return RunConfigFile(
        world=_world(folder, config), evaluation=config is not None and config.config is not None, data=data
    )


def world_of(folder: Path) -> str:
    """The world ``folder`` played (a registered name or ``module:attribute``): config.json's
    ``domain`` (``config.domain`` in evaluation manifests written before it was top-level), else a
    training run's manifest.json ``world``, else the default world (runs from before worlds).
    `RunFolderError` when a file holds something that is not a world's name."""
    return read_run_config(folder).world


def _world(folder: Path, config: _RunConfig | None) -> str:
    """The world named by ``config`` (config.json, validated), else by the checkpoint manifest."""
    if config is not None:
        name = config.domain or (config.config.domain if config.config is not None else None)
        if name:
            return name
    checkpoint = _read(folder / CHECKPOINT_MANIFEST, _Checkpoint)
    if checkpoint is not None and checkpoint.world:
        return checkpoint.world
    return DEFAULT_DOMAIN


def _read(path: Path, model: type[_M]) -> _M | None:
    """``path`` as ``model``; None when the file is absent; RunFolderError as `_load` and `_validate`."""
    data = _load(path)
    return _validate(path, data, model) if data is not None else None


def _load(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when the file is absent; RunFolderError when it is too big,
    not JSON or not an object."""
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise RunFolderError(
            f"{path}: {path.stat().st_size} bytes, more than a run's config ({MAX_CONFIG_BYTES}); not read"
        )
    try:
        data = loads_json(path.read_bytes().decode("utf-8"), str(path))
    except UnicodeDecodeError as exc:
        raise RunFolderError(f"{path} is not valid JSON ({str(exc)[:80]})") from None
    except UntrustedFileError as exc:  # not JSON, or nested too deep
        raise RunFolderError(str(exc)) from None
    if not isinstance(data, dict):
        raise RunFolderError(f"{path} holds a JSON {type(data).__name__}, not an object")
    return data


def _validate(path: Path, data: dict[str, Any], model: type[_M]) -> _M:
    """``data`` (read from ``path``) as ``model``; RunFolderError when its world name is not a string
    of a name's shape."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise RunFolderError(f"{path}: {where} does not name a world ({error['msg']})") from None
