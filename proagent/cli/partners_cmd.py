"""`proagent partners`: what partners exist, with each checkpoint's training facts."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("partners", help="list scripted partners and trained checkpoints")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from proagent.partners import available_partners
    from proagent.paths import PARTNERS_DIR

    console = Console()
    console.print("partners: " + ", ".join(available_partners()))
    table = Table(title="trained checkpoints (partners/<layout>/<algorithm>/)")
    for column in ("layout", "algorithm", "env steps", "train time", "device", "encoder", "self-play return"):
        table.add_column(column)
    for path in sorted(PARTNERS_DIR.glob("*/*/manifest.json")):
        m = json.loads(path.read_text())
        sp = m.get("self_play", {})
        table.add_row(
            m["layout"],
            m["algorithm"],
            f"{m['env_steps']:,}",
            f"{m['train_wall_time_s']:.0f} s",
            m["device"],
            m.get("encoder", "?"),
            f"{sp.get('mean', float('nan')):.1f} ± {sp.get('se', float('nan')):.1f} (n={sp.get('episodes', 0)})",
        )
    console.print(table)
    return 0
