"""`proagent analyze runs/<run>`: cooperation metrics beyond reward for a finished run folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="interdependence and intention metrics of a run folder")
    p.add_argument("folder", metavar="run", type=Path, help="a run folder (runs/<timestamp>-<name>/) of play or eval")
    p.add_argument("--no-write", action="store_true", help="print only; write no files into the run folder")
    p.add_argument(
        "--domain",
        default=None,
        help="the run's world as module:attribute, when it is not a registered one (a run folder alone never makes "
        "analyze import code)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from proagent.domains import DomainInputError
    from proagent.interdependence.folder import RESULT_FILE, NotARunFolder, analyze_folder
    from proagent.interdependence.report import (
        ANALYSIS_FILE,
        INTENTION_NOTE,
        LEGEND,
        analysis_markdown,
        group_rows,
        intention_lines,
        markdown_table,
        rich_table,
    )
    from proagent.runner.run_world import RunFolderError
    from proagent.tables_out import print_table

    try:
        domain = _domain_of(args.folder, args.domain)
        result = analyze_folder(args.folder, _model_for(domain), write=not args.no_write)
    except (NotARunFolder, DomainInputError, RunFolderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not result.episodes:
        print(f"error: {args.folder} has no finished episodes", file=sys.stderr)
        return 2
    rows = group_rows(result.episodes)
    console = Console(width=max(Console().width, 150))
    title = f"{result.run}: cooperation metrics (mean per episode)"
    print_table(console, rich_table(rows, title), markdown_table(rows))
    console.print(LEGEND, style="dim")
    traced = sum(e.source == "trace" for e in result.episodes)
    console.print(f"{traced} of {len(result.episodes)} episodes analyzed from the trace; the others from their records")
    differ = intention_lines(result.episodes)
    for line in differ:
        console.print(f"note: {line}")
    if differ:
        console.print(INTENTION_NOTE, style="dim")
    if not args.no_write:
        (args.folder / ANALYSIS_FILE).write_text(analysis_markdown(result.run, rows, result.episodes), encoding="utf-8")
        traces = " and the grounded traces (episode_*.pddl.txt)" if traced else ""
        console.print(f"saved {args.folder / RESULT_FILE}, {ANALYSIS_FILE}{traces}")
    return 0


def _domain_of(folder: Path, given: str | None):
    """The run's world, read as every front end reads it (`world_of`). A run folder may come from
    anywhere: a world it names by ``module:attribute`` is imported only when ``--domain`` says so."""
    from proagent.domains import DomainInputError, builtin_domain_names, get_domain
    from proagent.runner.run_world import world_of

    name = world_of(folder)
    if given is not None:
        if given != name:
            raise DomainInputError(f"--domain {given}: {folder} played {name!r}")
        return get_domain(given)
    if name not in builtin_domain_names():
        raise DomainInputError(
            f"{folder} names its world {name!r}, which is not a registered world; a run folder does not make analyze "
            f"import code: pass --domain {name} if you trust it"
        )
    return get_domain(name)


def _model_for(domain):
    """The domain's interdependence model per layout; a domain without one is one clear error."""
    from proagent.domains import DomainInputError

    def model_for(layout: str):
        if domain.capabilities.interdependence is None:
            raise DomainInputError(
                f"domain {domain.name!r} has no interdependence model, so its runs cannot be analyzed"
            )
        return domain.capabilities.interdependence.model(layout)

    return model_for
