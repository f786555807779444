"""Start or resume an evaluation run folder, play it, and report: the steps shared by
`proagent eval`, `proagent ablate`, the benchmark and the tests.

A new run checks the whole config (names, prompts, models) before it creates its folder. A
resumed run takes its config from the folder's config.json; only execution settings
(concurrency, budget, trace, stepping) and a larger episode count may change.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from proagent.eval.config import (
    EXECUTION_FIELDS,
    PROAGENT,
    ConfigError,
    EvalConfig,
    validate_config,
)
from proagent.eval.manifest import (
    AblationInfo,
    EvalManifest,
    add_session,
    load_manifest,
    new_manifest,
    save_manifest,
)
from proagent.eval.model_names import adapter_words, play_llm_seats
from proagent.eval.plan import EpisodeJob, plan_jobs
from proagent.eval.progress import ProgressLines, ProgressView
from proagent.eval.records import EPISODES_FILE, read_records
from proagent.eval.report import Report, build_report, print_report, write_report
from proagent.eval.runner import EvalOutcome, Evaluator, Executor
from proagent.eval.world import Resolved, World, resolve
from proagent.llm.scripted import describe_with_adapter
from proagent.paths import RUNS_DIR
from proagent.runner.run_folder import RunFolder, RunFolderBusy
from proagent.runner.run_world import RunFolderError, read_run_config

RESUMABLE_FIELDS = EXECUTION_FIELDS | {"episodes"}


@dataclass
class RunHandle:
    folder: RunFolder
    manifest: EvalManifest
    resolved: Resolved

    @property
    def config(self) -> EvalConfig:
        return self.manifest.config


def start_run(
    config: EvalConfig, world: World, command: str, runs_dir: Path | None = None, ablation: AblationInfo | None = None
) -> RunHandle:
    return open_run(config, resolve(config, world), command, runs_dir, ablation)


def open_run(
    config: EvalConfig,
    resolved: Resolved,
    command: str,
    runs_dir: Path | None = None,
    ablation: AblationInfo | None = None,
) -> RunHandle:
    """`start_run` for a config its caller has resolved already (a table checks all its grids
    before any folder exists; resolving hashes every partner's checkpoint, seconds for a zoo)."""
    folder = RunFolder.create(config.name, root=runs_dir or RUNS_DIR).lock()
    manifest = add_session(new_manifest(config, resolved, command, ablation), command, len(grid_jobs(config, resolved)))
    save_manifest(folder, manifest)
    return RunHandle(folder, manifest, resolved)


def resume_run(path: Path, changes: dict[str, Any], world: World, command: str) -> RunHandle:
    """Reopen ``path`` with ``changes`` to its execution settings (or a larger ``episodes``)."""
    folder = RunFolder(path) if path.is_dir() else None
    if folder is None:
        raise ConfigError(f"--resume: no run folder at {path}")
    try:
        folder.lock()
    except RunFolderBusy as exc:
        raise ConfigError(f"--resume: {exc}") from None
    manifest = load_manifest(folder)
    bad = sorted(set(changes) - RESUMABLE_FIELDS)
    if bad:
        raise ConfigError(
            f"--resume keeps the run's config; these cannot change: {', '.join(bad)} (start a new run instead)"
        )
    if changes.get("episodes", manifest.config.episodes) < manifest.config.episodes:
        raise ConfigError(f"--resume: episodes can grow, not shrink below {manifest.config.episodes}")
    data = {**manifest.config.model_dump(mode="json"), **changes}
    config = validate_config(data, f"{path} with the new flags", EvalConfig)
    assert isinstance(config, EvalConfig)
    resolved = resolve(config, world)
    if list(resolved.envs) != manifest.layout_names:
        raise ConfigError(f"--resume: layouts now resolve to {list(resolved.envs)}, not {manifest.layout_names}")
    refuse_changed_players(path, manifest, resolved, config)
    # a run older than these records: pinned now
    pinned = {"config": config, "partner_provenance": resolved.partner_provenance, "domain": config.domain}
    finished = {r.key.id for r in read_records(path / EPISODES_FILE)}
    pending = sum(job.key.id not in finished for job in grid_jobs(config, resolved))
    manifest = add_session(manifest.model_copy(update=pinned), command, pending)
    save_manifest(folder, manifest)
    return RunHandle(folder, manifest, resolved)


def grid_jobs(config: EvalConfig, resolved: Resolved) -> list[EpisodeJob]:
    """Every episode of the run's grid, as its names resolved."""
    return plan_jobs(config, list(resolved.envs), resolved.partners)


def refuse_changed_players(path: Path, manifest: EvalManifest, resolved: Resolved, config: EvalConfig) -> None:
    """The episodes a resume adds must be played by the agents that played the finished ones: the
    same prompt templates and knowledge, the same adapter files (sha256: a file replaced at the same
    path is another model) and the same trained partners (checkpoint sha256)."""
    changed = changed_adapters(manifest, config)
    if manifest.prompt_hashes != resolved.prompt_hashes:
        changed.append("the prompt templates")
    if manifest.knowledge_hash != resolved.knowledge_hash:
        changed.append("the knowledge files")
    recorded = manifest.partner_provenance
    if recorded is not None and recorded != resolved.partner_provenance:
        names = sorted(
            n
            for n in {*recorded, *resolved.partner_provenance}
            if recorded.get(n) != resolved.partner_provenance.get(n)
        )
        changed.append(f"trained partner(s) {', '.join(names)}")
    if changed:
        raise ConfigError(
            f"--resume: {' and '.join(changed)} changed since {path.name} began, so its episodes would mix two "
            "setups; start a new run (the finished episodes stay in the folder)"
        )


def changed_adapters(manifest: EvalManifest, config: EvalConfig) -> list[str]:
    """The agents whose adapter file now hashes to another sha256 than the one the run recorded
    (older runs record no models: nothing to compare)."""
    changed = []
    for agent in config.agents:
        recorded = manifest.models.get(agent.name)
        if recorded is None or agent.kind != PROAGENT:
            continue
        now = describe_with_adapter(agent.llm, agent.adapter)  # the file exists: the config's validation says so
        if (now.adapter, now.adapter_sha256) != (recorded.adapter, recorded.adapter_sha256):
            changed.append(f"{agent.name}'s adapter ({adapter_words(recorded.adapter) or 'none'})")
    return changed


async def play_run(
    handle: RunHandle,
    world: World,
    progress: str = "auto",
    console: Console | None = None,
    lines: ProgressLines | None = None,
    executor: Executor | None = None,
) -> EvalOutcome:
    """Play the run's pending episodes with a progress display (``lines``: how often the plain
    progress line is written without a terminal); ``executor``: where they play (None: here)."""
    config = handle.config
    evaluator = Evaluator(config, handle.resolved.domain, handle.resolved.envs, world, handle.folder, executor)
    jobs = grid_jobs(config, handle.resolved)
    async with ProgressView(progress, evaluator.snapshot, console, lines) as view:
        return await evaluator.run(jobs, on_record=view.episode_done)


def report_run(path: Path) -> tuple[Report, list[Path]]:
    """Rebuild and rewrite the run's tables and charts from its saved records: an evaluation's, or
    a play or human run's (one agent, one partner); the report names the world the run played."""
    folder = RunFolder(path)
    try:
        run = read_run_config(path)  # config.json read once: the world, and a play run's LLM agent
    except RunFolderError as exc:
        raise ConfigError(str(exc)) from None
    manifest = load_manifest(folder) if run.evaluation else None
    played = None if run.evaluation else run.data  # a play or human run's config
    records = read_records(path / EPISODES_FILE, single_runs=played is not None)
    title = manifest.config.name if manifest is not None else path.name
    seats = play_llm_seats(played) if played is not None else None
    report = build_report(records, manifest, title, run.world, seats)
    return report, write_report(report, path)


def finish_run(handle: RunHandle, outcome: EvalOutcome, console: Console) -> list[Path]:
    """Write and print the report, then say what happened and how to continue. After a disk that
    refused a write, only one line: where the finished episodes are and how to go on."""
    if outcome.disk_error is not None:
        folder = escape(str(handle.folder.path))
        console.print(
            f"[red]stopped[/red]: {escape(outcome.disk_error)}; {len(outcome.records)} finished episode(s) in "
            f"{folder}; then: proagent eval --resume {folder}",
            highlight=False, soft_wrap=True,
        )  # fmt: skip
        return []
    report, written = report_run(handle.folder.path)
    print_report(report, console)
    folder = escape(str(handle.folder.path))
    # Lines that carry a path or a command never wrap: a wrapped command cannot be copied and run.
    console.print(
        f"{outcome.played} episode(s) played now, {len(outcome.records)} in the run; files in {folder}",
        highlight=False, soft_wrap=True,
    )  # fmt: skip
    for failure in outcome.failures:
        console.print(f"[red]failed[/red] {escape(str(failure))}", highlight=False, soft_wrap=True)
    if outcome.stopped:
        console.print(
            f"[yellow]{escape(str(outcome.stopped))}[/yellow]; {outcome.remaining} episode(s) left: "
            f"proagent eval --resume {folder}",
            highlight=False, soft_wrap=True,
        )  # fmt: skip
    elif outcome.failures:
        console.print(
            f"{len(outcome.failures)} episode(s) failed and are not in the tables; once the cause is fixed, "
            f"play them with: proagent eval --resume {folder}",
            highlight=False, soft_wrap=True,
        )  # fmt: skip
    return written
