"""What every table shares: its settings (the reproduce flags it takes, as one validated record),
its plan (episodes, and how many of them an LLM plays, for `--dry-run`) and playing an evaluation
grid in-process, so that a table is one implementation and the command needs no subprocess."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_origin

from pydantic import BaseModel, ConfigDict, Field, model_validator
from rich.console import Console

from proagent.adapter_choice import adapter_to_play
from proagent.eval.config import ConfigError, EvalConfig, validate_config
from proagent.eval.model_names import (  # noqa: F401  (TEST_DOUBLES: the tables read it here)
    TEST_DOUBLES,
    adapter_words,
    model_label,
    with_adapter,
)
from proagent.eval.progress import ProgressLines
from proagent.eval.session import RunHandle, finish_run, play_run
from proagent.eval.world import Resolved, World, resolve
from proagent.runner.run_folder import RunFolder
from proagent.tables.table_run import TableRun, TableRunError

if TYPE_CHECKING:
    from proagent.eval.ray_executor import RayExecutor

COMMON_FLAGS = (
    "llm", "api_base", "adapter", "episodes", "horizon", "seed", "layouts", "out", "runs_dir", "resume", "cache",
    "max_cost", "executor", "ray_address",
)  # fmt: skip


class TableError(ValueError):
    """A setting the table cannot run with, said in one line before anything runs."""


class TableSettings(BaseModel):
    """The reproduce flags a table may take; a table's own settings add fields with its defaults.
    ``command`` is the command line that made the page, quoted on it so a changed setting shows."""

    model_config = ConfigDict(extra="forbid")
    out: Path | None = Field(None, description="the page (no suffix); None: inside the table's run folder")
    runs_dir: Path = Path("runs")
    cache: bool | None = Field(None, description="False: no LLM answer cache (--no-cache)")
    max_cost: float | None = Field(None, gt=0, description="USD: start no new episode once this much is spent")
    command: str = Field("", description="the command that regenerates the page, as typed")
    progress: str = "off"
    executor: Literal["local", "ray"] = Field("local", description="where episodes play (--executor)")
    ray_address: str | None = Field(None, description="with executor ray: a running cluster's head, host:port")
    target: str = Field("table", description="the reproduce target: the name of the table's run folder")
    resume: Path | None = Field(
        None, description="an earlier run folder of this table: its grids finished, not replayed"
    )

    @model_validator(mode="after")
    def _executor_can_run(self) -> TableSettings:
        """A bad executor flag is refused with the settings, before anything runs."""
        from proagent.eval.ray_executor import executor_problem

        problem = executor_problem(self.executor, self.ray_address)
        if problem is not None:
            raise ValueError(problem)
        return self

    @model_validator(mode="before")
    @classmethod
    def _split_lists(cls, data: Any) -> Any:
        """A list setting given as text (``--layouts a,b``, ``--set agents=a,b``) is split on commas."""
        if not isinstance(data, dict):
            return data
        lists = {k for k, f in cls.model_fields.items() if get_origin(f.annotation) is list}
        return {k: [x.strip() for x in v.split(",") if x.strip()] if k in lists and isinstance(v, str) else v
                for k, v in data.items()}  # fmt: skip


class LLMSettings(TableSettings):
    """The settings of a table where ProAgent plays: its model (``--llm``) and the model's server."""

    llm: str | None = None
    api_base: str | None = None
    adapter: Path | Literal["none"] | None = Field(
        None, description="the embedded model's LoRA adapter (--adapter): a file, none (the raw model), None: default"
    )

    def model_label(self) -> str:
        """How the page names ProAgent's model (and the embedded model's adapter), so that a test
        double's number is never read as a model's, nor the raw model's as the taught one's."""
        adapter = adapter_to_play(self.adapter, self.llm)
        return model_label(self.llm) + with_adapter(self.llm, adapter_words(adapter))

    def model_line(self, extra: str = "") -> str:
        """The ``Model: ...`` line a table page writes under its title (the docs' check for stand-in
        pages reads it there), ``extra`` after it, then a blank line."""
        return f"Model: {self.model_label()}.{' ' + extra if extra else ''}\n\n"


class Plan(BaseModel):
    """What a table would play: every episode, and those an LLM agent plays (the ones that cost)."""

    episodes: int = Field(ge=0)
    llm_episodes: int = Field(ge=0)
    horizon: int | None = Field(None, ge=1, description="steps per LLM episode; None: each game's own length")


def agent_fields(settings: LLMSettings) -> dict[str, Any]:
    """The ProAgent config fields the settings set (the model and its server)."""
    adapter = None if settings.adapter is None else str(settings.adapter)
    fields = {"llm": settings.llm, "api_base": settings.api_base, "adapter": adapter}
    return {k: v for k, v in fields.items() if v is not None}


def play_grids(grids: Sequence[dict[str, Any]], settings: TableSettings, console: Console) -> list[Path]:
    """Play the evaluation grids (each a `proagent eval` config with its own ``name``) as
    `proagent eval` does, in this process or on Ray, each in its own run folder inside the table's
    one folder (``settings.resume``: that folder, its grids finished, not replayed); returns the
    grids' run folders. A bad grid is a TableError, raised (as an executor that cannot run is)
    before any folder of it exists."""
    names = [str(data.get("name", "")) for data in grids]
    if len(set(names)) != len(names) or not all(names):
        raise TableError(f"a table's grids need distinct names, not {names}")  # a bug in the table, not the user's
    world = World()
    configs = [grid_config(data, settings, world) for data in grids]  # each with its resolved names
    executor = grid_executor(settings, world, console)
    try:
        if executor is not None:  # one set of workers for every grid of the table
            executor.start_workers_for([config for config, _ in configs])
        try:
            table = TableRun.open(settings.target, settings, settings.command, settings.runs_dir, settings.resume)
            table.grow([config for config, _ in configs])
        except TableRunError as exc:
            raise TableError(str(exc)) from None
        console.print(f"table run folder: {table.path}", highlight=False)
        return [play_one(table, config, resolved, settings, world, console, executor) for config, resolved in configs]
    finally:
        if executor is not None:
            executor.close()


def grid_config(data: dict[str, Any], settings: TableSettings, world: World) -> tuple[EvalConfig, Resolved]:
    """The grid as a validated evaluation config and its names resolved, so that a bad grid is a
    TableError in one line before the table's folder exists."""
    try:
        config = validate_config(data | run_fields(settings), str(data["name"]), EvalConfig)
        assert isinstance(config, EvalConfig)
        return config, resolve(config, world)
    except ConfigError as exc:
        raise TableError(" ".join(str(exc).split())) from None


def play_one(
    table: TableRun, config: EvalConfig, resolved: Resolved, settings: TableSettings, world: World, console: Console,
    executor: RayExecutor | None,
) -> Path:  # fmt: skip
    """One grid of the table, started or finished; its run folder."""
    try:
        handle: RunHandle = table.handle(config, resolved, world, run_fields(settings))
    except ConfigError as exc:
        raise TableError(" ".join(str(exc).split())) from None
    console.print(f"run folder: {handle.folder.path}", highlight=False)
    outcome = asyncio.run(play_run(handle, world, settings.progress, console, ProgressLines(10, 10.0), executor))
    finish_run(handle, outcome, console)
    if outcome.failures or outcome.disk_error:
        raise TableError(f"the run in {handle.folder.path} did not finish; finish the table with --resume {table.path}")
    return handle.folder.path


def grid_executor(settings: TableSettings, world: World, console: Console) -> RayExecutor | None:
    """The Ray executor for ``--executor ray`` (None: this process plays), connected and checked;
    a cluster it cannot use is a TableError."""
    if settings.executor == "local" and settings.ray_address is None:
        return None
    from proagent.eval.ray_executor import ExecutorError, open_executor

    try:
        executor = open_executor(settings.executor, settings.ray_address, world)
    except ExecutorError as exc:
        raise TableError(str(exc)) from None
    for warning in executor.warnings if executor is not None else []:
        console.print(f"warning: {warning}", highlight=False, markup=False)
    return executor


def run_fields(settings: TableSettings) -> dict[str, Any]:
    """The evaluation config's execution fields the settings set (cache, cost cap)."""
    fields = {"cache": settings.cache, "max_cost_usd": settings.max_cost}
    return {k: v for k, v in fields.items() if v is not None}


def proagent_agent(settings: LLMSettings) -> dict[str, Any]:
    """The evaluated LLM agent of a grid, with the model the settings name."""
    return {"kind": "proagent", **agent_fields(settings)}


def page_out(settings: TableSettings, folders: Sequence[Path]) -> Path:
    """Where the page and its figures go: ``--out`` when given, else inside the table's run folder
    (a fresh one when the table played no grid), so that a run from the checkout never overwrites a
    shipped page under docs/ unless asked to."""
    if settings.out is not None:
        return settings.out
    folder = folders[0].parent if folders else RunFolder.create(settings.target, root=settings.runs_dir).path
    return folder / settings.target


def write_page(path: Path, text: str) -> Path:
    """``path`` with a .md suffix, written (its folder made); returns it."""
    page = path.with_suffix(".md")
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    return page
