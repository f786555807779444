"""`proagent train --sweep FILE [--executor local|ray] [--ray-address ADDR] [--resume]`: every cell
of a sweep file (`proagent.training.sweep`) trained as one `proagent train` run, then a summary.

Why runs are argument lists: each cell goes through the same entry point as a typed command
(``train_one``, `proagent.training.cli.run_argv`), so a sweep's runs write the same checkpoints,
manifests and resume state, and are refused for the same reasons, as single runs. Every cell is
checked before the output root is written, so a bad cell costs no folder.

The output root keeps its sweep file (``sweep.toml``); ``--resume`` must bring the same sweep. A
run decides from its own folder what to do: a finished one (manifest, no resume state) is skipped,
a killed one continues from its resume state, a missing one starts. That rule also covers Ray's
retry of a run whose worker died: the retry resumes from the dead worker's last checkpoint.

Executors: ``local`` trains the runs one after another in this process (a later run reuses
what JAX compiled for an earlier one of the same shape); ``ray`` submits one Ray task per run with the sweep's
``num_cpus``/``num_gpus`` request, on a cluster joined by `proagent.cluster` (or a local one it starts and stops).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from proagent import cluster
from proagent.files import write_atomic
from proagent.training.resume import RESUME_DIR
from proagent.training.sweep import SUMMARY, SWEEP_RECORD, SummaryRow, Sweep, is_complete, load_sweep, summary_row
from proagent.training.sweep import summary_table as markdown_table

Say = Callable[[str], None]
TrainOne = Callable[[list[str], Say], int]  # `proagent train` on an argument list: its exit code
Refusal = Callable[[list[str]], str | None]  # why `proagent train` would refuse an argument list
MAX_RETRIES = 3  # a run whose Ray worker died is started again (resuming) this often
TAIL = 3  # progress lines a Ray run sends back to the driver


def run_sweep(
    path: Path, executor: str, address: str | None, resume: bool, train_one: TrainOne, refusal: Refusal, say: Say
) -> int:
    """Train every cell of the sweep in ``path``; 0 when every run finished, 1 when one failed.
    A ValueError (one line) for anything refused before a folder is written."""
    sweep = load_sweep(path)
    problem = cluster.flags_problem(executor, address, "trains every run in this process")
    if problem is not None:
        raise ValueError(problem)
    root = sweep.output_root.resolve()
    _check_root(root, path, sweep, resume)
    jobs = _jobs(sweep, root, resume, refusal)
    if not resume:
        write_atomic(root / SWEEP_RECORD, path.read_text(encoding="utf-8"))
    todo = [(name, argv) for name, argv in jobs if not is_complete(root / name)]
    say(f"sweep {path}: {len(jobs)} runs, {len(jobs) - len(todo)} finished already, {executor} executor -> {root}")
    if executor == "ray":
        codes = _on_ray(todo, sweep, address, train_one, say)
    else:
        codes = {name: run_cell(train_one, argv, root / name, _prefixed(name, say)) for name, argv in todo}
    rows = [summary_row(cell, sweep.domain, root, codes.get(cell.folder_name(sweep.domain), 0) != 0)
            for cell in sweep.cells()]  # fmt: skip
    _write_summary(root, rows, say)
    return 0 if all(row.status == "done" for row in rows) else 1


def _jobs(sweep: Sweep, root: Path, resume: bool, refusal: Refusal) -> list[tuple[str, list[str]]]:
    """(folder name, `proagent train` arguments) of every cell; a ValueError naming the first cell
    the command would refuse. On a sweep's resume, each is checked as a resumed run (a finished or
    killed run's checkpoint in its folder is then no reason to refuse)."""
    jobs = []
    for cell in sweep.cells():
        name = cell.folder_name(sweep.domain)
        argv = cell.argv(sweep.domain, root / name)
        refused = refusal([*argv, "--resume"] if resume else argv)
        if refused is not None:
            raise ValueError(f"sweep run {name}: {refused}")
        jobs.append((name, argv))
    return jobs


def _check_root(root: Path, path: Path, sweep: Sweep, resume: bool) -> None:
    """A ValueError (one line) for an output root another sweep owns, or this one without
    --resume; on ``resume``, the root must hold this same sweep."""
    record = root / SWEEP_RECORD
    if not resume:
        if record.exists():
            raise ValueError(f"{root} holds a sweep already: add --resume to continue it, or set another output_root")
        return
    if not record.is_file():
        raise ValueError(f"--resume: {root} holds no sweep ({SWEEP_RECORD}); run the sweep without --resume")
    kept = load_sweep(record).model_dump(mode="json")
    changed = [key for key, value in sweep.model_dump(mode="json").items() if kept[key] != value]
    if changed:
        raise ValueError(f"--resume: {path} differs from the sweep {root} was started with (in {', '.join(changed)})")


def _prefixed(name: str, say: Say) -> Say:
    """Progress lines of one run, marked with its folder name."""
    return lambda line: say(f"[{name}] {line}")


def run_cell(train_one: TrainOne, argv: list[str], out: Path, say: Say) -> int:
    """One run: resumed when its folder keeps resume state (a killed run, or a Ray worker that
    died), else started; decided when it starts, so a retry resumes too."""
    resuming = (out / RESUME_DIR).is_dir()
    return train_one([*argv, "--resume"] if resuming else argv, say)


def ray_cell(train_one: TrainOne, argv: list[str], out: Path) -> tuple[int, list[str]]:
    """A Ray task: one run, on whichever node Ray chose; its exit code and last progress lines."""
    lines: list[str] = []
    code = run_cell(train_one, argv, out, lines.append)
    return code, lines[-TAIL:]


def _on_ray(
    jobs: list[tuple[str, list[str]]], sweep: Sweep, address: str | None, train_one: TrainOne, say: Say
) -> dict[str, int]:
    """One Ray task per run; exit codes by folder name, as each run ends."""
    import ray
    from ray.exceptions import RayError

    root = sweep.output_root.resolve()
    started = cluster.connect(address)
    try:
        problems, warnings = cluster.check_nodes()
        if problems:
            raise cluster.ClusterError("; ".join(problems))
        for warning in warnings:
            say(f"warning: {warning}")
        remote = ray.remote(ray_cell).options(
            num_cpus=sweep.resources.num_cpus, num_gpus=sweep.resources.num_gpus, max_retries=MAX_RETRIES
        )
        pending = {remote.remote(train_one, argv, root / name): name for name, argv in jobs}
        codes: dict[str, int] = {}
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            name = pending.pop(ready)
            try:
                codes[name], lines = ray.get(ready)
            except RayError as exc:  # the run raised, or its worker died more often than it is retried
                codes[name], lines = 1, [f"failed: {cluster.first_line(exc)}"]
            for line in lines:
                say(f"[{name}] {line}")
        return codes
    finally:
        if started:
            ray.shutdown()


def _write_summary(root: Path, rows: list[SummaryRow], say: Say) -> None:
    """The runs' table, said and written as sweep_summary.md and .json in the output root."""
    table = markdown_table(rows)
    write_atomic(root / f"{SUMMARY}.md", table)
    write_atomic(root / f"{SUMMARY}.json", json.dumps([row.model_dump() for row in rows], indent=2) + "\n")
    for line in table.splitlines():
        say(line)
    say(f"summary: {root / SUMMARY}.md, .json")
