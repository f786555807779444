"""`proagent partners`: what partners exist, with each checkpoint's training facts.

Checkpoints are grouped by world and layout and sorted best first by their self-play return, and
the ones whose self-play is at chance level are flagged: a zoo of 130 checkpoints holds seeds
that score 0, and nothing else in the listing would tell a reader not to pair an agent with them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("partners", help="list scripted partners and trained checkpoints")
    p.add_argument("--markdown", action="store_true", help="print the checkpoint table as Markdown (for docs)")
    p.add_argument(
        "--domain", default=None, help="one world (default: every registered world): a name or module:attribute"
    )
    p.set_defaults(run=run)


COLUMNS = (
    "layout", "partner", "algorithm", "env steps", "warm start", "train time", "device", "encoder", "self-play return",
    "note",
)  # fmt: skip
CHANCE_SHARE = 0.01  # of the way from random play to the layout's best checkpoint: still at chance level
CHANCE_SES = 2.0  # within this many of random play's standard errors: at chance level
CHANCE_NOTE = "self-play at chance"
CHANCE_RULE = (
    f"'{CHANCE_NOTE}': self-play return no more than {CHANCE_SES:g} standard errors, or {CHANCE_SHARE:.0%} of the way "
    "to the layout's best checkpoint (whichever is wider), above uniform random play's on its layout "
    "(data/random_baselines.json; a world's scores may be negative, so 0 is no baseline)"
)


@dataclass(frozen=True)
class Baseline:
    """Uniform random play's self-play score on one layout (scripts/random_baselines.py measures it)."""

    mean: float
    se: float


def random_baselines(world: str) -> dict[str, Baseline]:
    """Layout -> uniform random play's self-play score, from data/random_baselines.json."""
    import json

    from proagent.paths import DATA_DIR

    path = DATA_DIR / "random_baselines.json"
    layouts = json.loads(path.read_text(encoding="utf-8")).get("layouts", {}) if path.exists() else {}
    return {name: Baseline(float(v["mean"]), float(v["se"])) for name, v in layouts.get(world, {}).items()}


@dataclass(frozen=True)
class Checkpoint:
    """One shipped checkpoint's row and its self-play mean (None: still training, no score yet)."""

    row: tuple[str, ...]
    mean: float | None

    @property
    def layout(self) -> str:
        return self.row[0]

    @property
    def name(self) -> str:
        return self.row[1]


def _checkpoints(world: str) -> list[Checkpoint]:
    """Every checkpoint ``world`` ships (``partners/<world>/<layout>/<name>/``), from its manifest
    (older formats convert on load), without its note."""
    from proagent.paths import PARTNERS_DIR
    from proagent.training.checkpoint import load_manifest

    found = []
    for path in sorted((PARTNERS_DIR / world).glob("*/*/manifest.json")):
        m = load_manifest(path.parent)
        sp = m.self_play  # an intermediate checkpoint (training still running) has no score yet
        score = sp.text() if sp is not None else "n/a"
        warm = str(m.train_config.get("warm_start", "none")) if isinstance(m.train_config, dict) else "none"
        row = (
            m.layout,
            path.parent.name,
            m.algorithm,
            f"{m.env_steps:,}",
            warm,
            f"{m.train_wall_time_s:.0f} s",
            m.device,
            m.encoder,
            score,
        )
        found.append(Checkpoint(row, sp.mean if sp is not None else None))
    return found


def chance_bar(means: list[float | None], baseline: Baseline | None) -> float | None:
    """The self-play return at or below which a checkpoint of one layout is at chance level: random
    play's plus the wider of `CHANCE_SES` of its standard errors and `CHANCE_SHARE` of the way to the
    layout's best checkpoint; None (nothing flagged) where random play was not measured."""
    if baseline is None:
        return None
    best = max([mean for mean in means if mean is not None], default=baseline.mean)
    return baseline.mean + max(CHANCE_SES * baseline.se, CHANCE_SHARE * max(0.0, best - baseline.mean))


def checkpoint_rows(world: str) -> list[tuple[str, ...]]:
    """One row per checkpoint ``world`` ships: layouts in name order, each layout's checkpoints best
    self-play first (unscored ones last, ties by name), flagged in the note column when at chance."""
    found, baselines = _checkpoints(world), random_baselines(world)
    bars = {
        layout: chance_bar([c.mean for c in found if c.layout == layout], baselines.get(layout))
        for layout in {c.layout for c in found}
    }
    found.sort(key=lambda c: (c.layout, c.mean is None, -(c.mean or 0.0), c.name))
    return [(*c.row, CHANCE_NOTE if at_chance(c.mean, bars[c.layout]) else "") for c in found]


def at_chance(mean: float | None, bar: float | None) -> bool:
    return mean is not None and bar is not None and mean <= bar


def run(args: argparse.Namespace) -> int:
    """Every partner of one world (``--domain``) or of every registered world: its names, then its
    checkpoints by layout."""
    from rich.console import Console

    from proagent.domains import DomainInputError, builtin_domain_names, get_domain

    try:
        domains = [get_domain(spec) for spec in ([args.domain] if args.domain else builtin_domain_names())]
    except DomainInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.markdown:
        from proagent.tables_out import markdown_rows

        sections = [markdown_rows(COLUMNS, checkpoint_rows(domain.name)) for domain in domains]
        if not args.domain:  # every world: a heading each
            sections = [f"## {domain.name}\n\n{table}\n" for domain, table in zip(domains, sections)]
        sys.stdout.write("".join(sections))
        return 0
    console = Console()
    for domain in domains:
        _print_world(console, domain.name, domain.partner_names(None))
    return 0


def _print_world(console, world: str, names: list[str]) -> None:
    """One world's partner names, then its checkpoints (a section per layout on a terminal) and the
    chance-level rule when a row is flagged."""
    from rich.table import Table

    from proagent.tables_out import markdown_rows, print_table

    console.print(f"{world} partners: " + ", ".join(names), markup=False, soft_wrap=True)
    rows = checkpoint_rows(world)
    if not rows:
        return
    table = Table(title=f"{world} trained checkpoints (partners/{world}/<layout>/<partner>/), by layout, best first")
    for column in COLUMNS:
        table.add_column(column)
    for row, after in zip(rows, [*rows[1:], None]):
        table.add_row(*row, end_section=after is not None and after[0] != row[0])
    print_table(console, table, markdown_rows(COLUMNS, rows))
    if any(row[-1] == CHANCE_NOTE for row in rows):
        console.print(CHANCE_RULE, markup=False, soft_wrap=True)
