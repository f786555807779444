"""`proagent partners`: what partners exist, with each checkpoint's training facts."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("partners", help="list scripted partners and trained checkpoints")
    p.add_argument("--markdown", action="store_true", help="print the checkpoint table as Markdown (for docs)")
    p.add_argument("--domain", default=None, help="another world's partners: a built-in name or module:attribute")
    p.set_defaults(run=run)


COLUMNS = ("layout", "partner", "algorithm", "env steps", "warm start", "train time", "device", "encoder", "self-play return")


def checkpoint_rows() -> list[tuple[str, ...]]:
    """One row per shipped Overcooked checkpoint, from its manifest."""
    from proagent.paths import PARTNERS_DIR

    rows = []
    for path in sorted(PARTNERS_DIR.glob("overcooked/*/*/manifest.json")):
        m = json.loads(path.read_text())
        sp = m.get("self_play") or {}  # an intermediate checkpoint (training still running) has no score yet
        rows.append(
            (
                m["layout"],
                path.parent.name,  # the name --partner takes (e.g. cole_scratch for a cole run)
                m["algorithm"],
                f"{m['env_steps']:,}",
                m.get("train_config", {}).get("warm_start", "none"),
                f"{m['train_wall_time_s']:.0f} s",
                m["device"],
                m.get("encoder", "?"),
                f"{sp.get('mean', float('nan')):.1f} ± {sp.get('se', float('nan')):.1f} (n={sp.get('episodes', 0)})",
            )
        )
    return rows


def run(args: argparse.Namespace) -> int:
    if args.domain is not None:
        return _domain_partners(args.domain)
    from rich.console import Console
    from rich.table import Table

    from proagent.domains import get_domain
    from proagent.tables_out import markdown_rows, print_table

    rows = checkpoint_rows()
    if args.markdown:
        sys.stdout.write(markdown_rows(COLUMNS, rows))
        return 0
    console = Console()
    console.print("partners: " + ", ".join(get_domain(None).partner_names(None)), markup=False)
    table = Table(title="trained checkpoints (partners/overcooked/<layout>/<partner>/)")
    for column in COLUMNS:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    print_table(console, table, markdown_rows(COLUMNS, rows))
    return 0


def _domain_partners(spec: str) -> int:
    """Any domain's partner names (the Overcooked zoo's checkpoint table is the default listing)."""
    from proagent.domains import DomainInputError, get_domain

    try:
        domain = get_domain(spec)
    except DomainInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{domain.name} partners: " + ", ".join(domain.partner_names(None)))
    return 0
