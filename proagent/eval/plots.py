"""Bar charts as PNG: scores per layout like ProAgent's Fig. 2 (hatched bars: the agent as player 1),
and one panel per metric for comparisons. An error bar is the standard error and is drawn only from
two samples up; a bar resting on one is marked ``n=1`` instead. Uses matplotlib's object API with
the Agg canvas, so no global backend is switched and no display is needed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from proagent.eval.render import label_text
from proagent.eval.stats import MeanSE
from proagent.eval.tables import Pivot, Summary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

HATCH = ("", "//")  # by seat: the agent as player 1 is hatched, as in ProAgent's Fig. 2



def new_figure(width: float, height: float) -> Figure:
    """A figure drawn by Agg (no GUI backend). matplotlib is imported here, on the first plot, not
    when a module that can plot is imported: about 0.5 s of every process start otherwise."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig

def draw_bar(
    ax: Axes, x: float, width: float, stat: MeanSE, color: str, hatch: str = "", label: str | None = None
) -> None:
    """One bar of ``stat``'s mean with its standard error; below two samples there is no standard
    error, so no error bar (not a zero-height one that reads as certainty) and ``n=1`` over the bar."""
    height = stat.mean if stat.mean is not None else 0.0
    error = stat.se if stat.se is not None and stat.n >= 2 else None
    ax.bar(
        x, height, width, yerr=error, color=color, hatch=hatch, edgecolor="black", linewidth=0.5, capsize=2, label=label
    )
    if stat.mean is not None and error is None:
        ax.annotate(
            f"n={stat.n}", (x, height), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=6
        )


def score_chart(table: Pivot, path: Path, title: str) -> Path:
    """`score_figure` written to ``path``."""
    score_figure(table, title).savefig(path, dpi=120, bbox_inches="tight")
    return path


def score_figure(table: Pivot, title: str) -> Figure:
    """x: layouts; per layout one bar per column and seat (seat 1 hatched); error bars: se (n >= 2)."""
    layouts = list(dict.fromkeys(row.labels["layout"] for row in table.rows))
    seats = list(dict.fromkeys(int(row.labels["seat"]) for row in table.rows))
    cells = {(row.labels["layout"], int(row.labels["seat"])): row.cells for row in table.rows}
    n_bars = len(table.columns) * len(seats)
    width = 0.8 / max(n_bars, 1)
    fig = new_figure(max(6.0, 1.2 + len(layouts) * n_bars * 0.35), 4.0)
    ax = fig.add_subplot()
    colors = [f"C{i % 10}" for i in range(len(table.columns))]
    for li, layout in enumerate(layouts):
        for ci, column in enumerate(table.columns):
            for si, seat in enumerate(seats):
                stat = cells.get((layout, seat), [MeanSE(n=0)] * len(table.columns))[ci]
                x = li - 0.4 + width * (ci * len(seats) + si + 0.5)
                label = f"{label_text(column)} (agent P{seat})" if li == 0 else None
                draw_bar(ax, x, width, stat, colors[ci], HATCH[seat % 2], label)
    ax.set_xticks(range(len(layouts)), [name.replace("_", " ") for name in layouts], fontsize=8)
    ax.set_ylabel(table.metric)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncols=min(3, n_bars), loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False)
    return fig


def comparison_chart(table: Summary, path: Path, title: str) -> Path:
    """`comparison_figure` written to ``path``."""
    comparison_figure(table, title).savefig(path, dpi=120)
    return path


def comparison_figure(table: Summary, title: str) -> Figure:
    """One panel per metric, one bar per row of ``table`` (e.g. per ablation variant)."""
    metrics = table.metrics
    fig = new_figure(max(4.0, 3.2 * len(metrics)), 3.6)
    labels = [label_text(row.labels) for row in table.rows]
    for mi, metric in enumerate(metrics):
        ax = fig.add_subplot(1, len(metrics), mi + 1)
        for ri, row in enumerate(table.rows):
            draw_bar(ax, ri, 0.7, row.stats[metric], f"C{ri % 10}")
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_title(metric, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
