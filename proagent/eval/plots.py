"""Bar charts as PNG: scores per layout like ProAgent's Fig. 2 (hatched bars: the agent as player 1),
and one panel per metric for comparisons. Uses matplotlib's object API with the Agg canvas, so no
global backend is switched and no display is needed."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from proagent.eval.render import label_text
from proagent.eval.stats import MeanSE
from proagent.eval.tables import Pivot, Summary

HATCH = ("", "//")  # by seat: the agent as player 1 is hatched, as in ProAgent's Fig. 2


def _bar(ax, x: float, width: float, stat: MeanSE, color, hatch: str, label: str | None) -> None:
    height = stat.mean if stat.mean is not None else 0.0
    ax.bar(x, height, width, yerr=stat.se or 0.0, color=color, hatch=hatch, edgecolor="black", linewidth=0.5, capsize=2, label=label)


def score_chart(table: Pivot, path: Path, title: str) -> Path:
    """x: layouts; per layout one bar per column and seat (seat 1 hatched); error bars: se."""
    layouts = list(dict.fromkeys(row.labels["layout"] for row in table.rows))
    seats = list(dict.fromkeys(int(row.labels["seat"]) for row in table.rows))
    cells = {(row.labels["layout"], int(row.labels["seat"])): row.cells for row in table.rows}
    n_bars = len(table.columns) * len(seats)
    width = 0.8 / max(n_bars, 1)
    fig = Figure(figsize=(max(6.0, 1.2 + len(layouts) * n_bars * 0.35), 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = [f"C{i % 10}" for i in range(len(table.columns))]
    for li, layout in enumerate(layouts):
        for ci, column in enumerate(table.columns):
            for si, seat in enumerate(seats):
                stat = cells.get((layout, seat), [MeanSE(n=0)] * len(table.columns))[ci]
                x = li - 0.4 + width * (ci * len(seats) + si + 0.5)
                label = f"{label_text(column)} (agent P{seat})" if li == 0 else None
                _bar(ax, x, width, stat, colors[ci], HATCH[seat % 2], label)
    ax.set_xticks(range(len(layouts)), [name.replace("_", " ") for name in layouts], fontsize=8)
    ax.set_ylabel(table.metric)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncols=min(3, n_bars), loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return path


def comparison_chart(table: Summary, path: Path, title: str) -> Path:
    """One panel per metric, one bar per row of ``table`` (e.g. per ablation variant)."""
    metrics = table.metrics
    fig = Figure(figsize=(max(4.0, 3.2 * len(metrics)), 3.6))
    FigureCanvasAgg(fig)
    labels = [label_text(row.labels) for row in table.rows]
    for mi, metric in enumerate(metrics):
        ax = fig.add_subplot(1, len(metrics), mi + 1)
        for ri, row in enumerate(table.rows):
            _bar(ax, ri, 0.7, row.stats[metric], f"C{ri % 10}", "", None)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_title(metric, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path
