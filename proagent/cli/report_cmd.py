"""`proagent report`: rebuild a run's tables and charts from its saved records (plays nothing)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="re-render the tables and charts of an evaluation run from its records")
    p.add_argument("run_dir", type=Path, help="a run folder, e.g. runs/20250101-120000-eval")
    p.add_argument("--quiet", action="store_true", help="write the files without printing the tables")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from proagent.eval.config import ConfigError
    from proagent.eval.report import print_report
    from proagent.eval.session import report_run

    if not (args.run_dir / "episodes.jsonl").is_file():
        print(
            f"error: {args.run_dir} has no episodes.jsonl (not a run folder, or no episode finished yet)",
            file=sys.stderr,
        )
        return 2
    try:
        report, written = report_run(args.run_dir)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print_report(report, Console())
    n = len({(r.labels.get("agent"), r.labels.get("partner")) for r in report.metrics.rows})
    print(
        f"{sum(row.stats['score'].n for row in report.metrics.rows)} episode(s), {n} agent/partner pair(s); wrote:",
        file=sys.stderr,
    )
    for path in written:
        print(f"  {path}", file=sys.stderr)
    return 0
