"""The report's two figures, as PNG: Table 2 as bars (reward, Int_cons, Int_non-cons per agent,
one bar per layout) and the questionnaire's categories per agent and layout. Like
`proagent.eval.plots`: matplotlib's object API on the Agg canvas (no display, no global backend),
standard-error bars only from two samples up. matplotlib is not a dependency of the package, so
without it the report is written without plots and says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.study.read import Study
from proagent.study.stats import Mean
from proagent.study.tables import StudyTables

if TYPE_CHECKING:
    from matplotlib.axes import Axes


OUTCOMES_PNG = "table2.png"
RATINGS_PNG = "ratings.png"
WIDTH = 0.8


def draw_plots(study: Study, result: StudyTables, out: Path) -> tuple[list[Path], str | None]:
    """The PNGs written into ``out`` and, when none could be, why (for report.md)."""
    try:
        from matplotlib.figure import Figure  # noqa: F401 - only whether it is installed
    except ImportError:
        return [], "skipped: matplotlib is not installed (pip install matplotlib, then re-run the report)"
    return [_outcomes(study, result, out / OUTCOMES_PNG), _ratings(study, result, out / RATINGS_PNG)], None


def _bars(ax: Axes, study: Study, value: Callable[[str, str], Mean | None], title: str) -> None:
    """One group of bars per agent, one bar per layout."""
    layouts = study.config.layouts
    width = WIDTH / len(layouts)
    for j, layout in enumerate(layouts):
        for i, partner in enumerate(study.config.partners):
            stat = value(partner.name, layout.name)
            if stat is None or stat.mean is None:
                continue
            x = i + (j - (len(layouts) - 1) / 2) * width
            error = stat.se if stat.n >= 2 else None
            ax.bar(
                x,
                stat.mean,
                width,
                yerr=error,
                color=f"C{j}",
                edgecolor="black",
                linewidth=0.5,
                capsize=2,
                label=layout.label if i == 0 else None,
            )
            if error is None:
                ax.annotate(
                    f"n={stat.n}", (x, stat.mean), xytext=(0, 2), textcoords="offset points", ha="center", fontsize=6
                )
    ax.set_xticks(
        range(len(study.config.partners)), [p.shown for p in study.config.partners], rotation=30, ha="right", fontsize=8
    )
    ax.set_title(title, fontsize=9)


def _outcomes(study: Study, result: StudyTables, path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cells = {(r.partner, r.layout): r for r in result.table2}
    figure = Figure(figsize=(11, 3.4))
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 3)
    for ax, (field, title) in zip(
        axes,
        (("reward", "task reward"), ("constructive", "Int_cons"), ("non_constructive", "Int_non-cons")),
        strict=True,
    ):
        _bars(
            ax,
            study,
            lambda p, lay, f=field: getattr(cells[(p, lay)], f) if (p, lay) in cells else None,
            f"{title} (mean ± se per round)",
        )
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return path


def _ratings(study: Study, result: StudyTables, path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    categories = [s for s in result.scales if s.kind == "category"]
    cells = {(r.scale, r.partner, r.layout): r.rating for r in result.ratings}
    figure = Figure(figsize=(3.8 * len(categories), 3.4))
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, len(categories), squeeze=False)[0]
    for ax, scale in zip(axes, categories, strict=True):
        _bars(ax, study, lambda p, lay, k=scale.key: cells.get((k, p, lay)), scale.label)
        ax.set_ylim(1, len(study.questionnaire.scale))
        ax.axhline(study.neutral, color="grey", linewidth=0.8, linestyle="--")
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return path
