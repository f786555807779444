"""`proagent partners`: what partners exist, with each checkpoint's training facts."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("partners", help="list scripted partners and trained checkpoints")
    p.add_argument("--markdown", action="store_true", help="print the checkpoint table as Markdown (for docs)")
    p.add_argument("--domain", default=None, help="the world (default overcooked): a registered name or module:attribute")
    p.set_defaults(run=run)


COLUMNS = ("layout", "partner", "algorithm", "env steps", "warm start", "train time", "device", "encoder", "self-play return")


def checkpoint_rows(world: str) -> list[tuple[str, ...]]:
    """One row per checkpoint ``world`` ships (``partners/<world>/<layout>/<name>/``), from its
    manifest (older formats convert on load)."""
    from proagent.paths import PARTNERS_DIR
    from proagent.training.checkpoint import load_manifest

    rows = []
    for path in sorted((PARTNERS_DIR / world).glob("*/*/manifest.json")):
        m = load_manifest(path.parent)
        sp = m.self_play  # an intermediate checkpoint (training still running) has no score yet
        score = sp.text() if sp is not None else "n/a"
        warm = str(m.train_config.get("warm_start", "none")) if isinstance(m.train_config, dict) else "none"
        row = (m.layout, path.parent.name, m.algorithm, f"{m.env_steps:,}", warm, f"{m.train_wall_time_s:.0f} s", m.device, m.encoder, score)
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    """Every partner a world ships (default: the default world): its names, then its checkpoints."""
    from rich.console import Console
    from rich.table import Table

    from proagent.domains import DomainInputError, get_domain
    from proagent.tables_out import markdown_rows, print_table

    try:
        domain = get_domain(args.domain)
    except DomainInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = checkpoint_rows(domain.name)
    if args.markdown:
        sys.stdout.write(markdown_rows(COLUMNS, rows))
        return 0
    console = Console()
    console.print(f"{domain.name} partners: " + ", ".join(domain.partner_names(None)), markup=False)
    if not rows:
        return 0
    table = Table(title=f"trained checkpoints (partners/{domain.name}/<layout>/<partner>/)")
    for column in COLUMNS:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    print_table(console, table, markdown_rows(COLUMNS, rows))
    return 0
