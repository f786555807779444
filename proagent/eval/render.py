"""Render `Pivot` and `Summary` tables as markdown, CSV and rich tables (the data stays in tables)."""

from __future__ import annotations

import csv
import io

from rich.table import Table

from proagent.eval.stats import MeanSE
from proagent.eval.tables import Labels, Pivot, Summary


def label_text(labels: Labels) -> str:
    return " / ".join(f"P{v}" if k == "seat" else str(v) for k, v in labels.items())


def keys_text(keys: list[str]) -> str:
    return " / ".join(keys)


def best_index(cells: list[MeanSE], digits: int) -> int | None:
    """The cell to bold: the one whose mean, as printed, is strictly above every other's; None on a
    tie for the top (a tie is no win) or with fewer than two cells to compare."""
    shown = [(round(c.mean, digits), i) for i, c in enumerate(cells) if c.mean is not None]
    if len(shown) < 2:
        return None
    ranked = sorted(shown, reverse=True)
    return ranked[0][1] if ranked[0][0] > ranked[1][0] else None


def pivot_markdown(table: Pivot, digits: int = 1) -> str:
    """Markdown with the strictly best mean of each row in bold, as in ProAgent's Table 1."""
    header = [keys_text(table.row_keys) + " \\ " + keys_text(table.col_keys), *map(label_text, table.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table.rows:
        best = best_index(row.cells, digits)
        cells = [f"**{c.text(digits)}**" if i == best else c.text(digits) for i, c in enumerate(row.cells)]
        lines.append("| " + " | ".join([label_text(row.labels), *cells]) + " |")
    return "\n".join(lines) + "\n"


def summary_markdown(table: Summary, digits: int = 2, headers: dict[str, str] | None = None) -> str:
    """``headers``: shorter column names (metric -> header), as in `summary_rich`. Each cell carries
    its own n: metrics a record lacks (an LLM metric of a partner agent) rest on fewer episodes."""
    header = [keys_text(table.group_keys), *((headers or {}).get(m, m) for m in table.metrics)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table.rows:
        lines.append(
            "| " + " | ".join([label_text(row.labels), *(row.stats[m].text(digits) for m in table.metrics)]) + " |"
        )
    return "\n".join(lines) + "\n"


def pivot_csv(table: Pivot) -> str:
    """Long format: one line per cell, the row and column labels, n, mean, se."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*table.row_keys, *table.col_keys, "metric", "n", "mean", "se"])
    for row in table.rows:
        for column, cell in zip(table.columns, row.cells):
            writer.writerow(
                [*row.labels.values(), *column.values(), table.metric, cell.n, _num(cell.mean), _num(cell.se)]
            )
    return out.getvalue()


def summary_csv(table: Summary) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*table.group_keys, *(f"{m}_{part}" for m in table.metrics for part in ("mean", "se", "n"))])
    for row in table.rows:
        stats = [x for m in table.metrics for x in (_num(row.stats[m].mean), _num(row.stats[m].se), row.stats[m].n)]
        writer.writerow([*row.labels.values(), *stats])
    return out.getvalue()


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def pivot_rich(table: Pivot, title: str, digits: int = 1) -> Table:
    out = Table(title=title, title_justify="left")
    out.add_column(keys_text(table.row_keys), no_wrap=True)
    for column in table.columns:
        out.add_column(label_text(column), justify="right")
    for row in table.rows:
        best = best_index(row.cells, digits)
        cells = [f"[bold]{c.text(digits)}[/bold]" if i == best else c.text(digits) for i, c in enumerate(row.cells)]
        out.add_row(label_text(row.labels), *cells)
    return out


def summary_rich(table: Summary, title: str, digits: int = 2, headers: dict[str, str] | None = None) -> Table:
    """``headers``: shorter column names for a terminal (metric -> header)."""
    out = Table(title=title, title_justify="left")
    out.add_column(keys_text(table.group_keys), no_wrap=True)
    for metric in table.metrics:
        out.add_column((headers or {}).get(metric, metric), justify="right")
    for row in table.rows:
        out.add_row(label_text(row.labels), *(row.stats[m].text(digits) for m in table.metrics))
    return out
