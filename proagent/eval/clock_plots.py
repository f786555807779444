"""The clock's figure of an evaluation run (``clock.png``): when some agent played under a clock other
than turns (``--clock tokens:N`` or ``seconds:S``), one panel per clock metric (idle, stale and
fallback steps, decisions per 100 steps, steps per decision), one bar per agent / partner pooled over
layouts and seats, as `proagent.eval.plots` draws its bars (mean with its standard error, ``n=…``
where there is no spread to draw). Agents that played under turns have no clock figures, so they
have no bars here: a zero bar would read as a clock that never made them wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from proagent.eval.config import PROAGENT, EvalConfig
from proagent.eval.plots import draw_bar, new_figure
from proagent.eval.records import EvalRecord
from proagent.eval.render import label_text
from proagent.eval.stats import MeanSE
from proagent.eval.tables import Summary, summarize

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# metric -> the panel's title, in the order of the panels
CLOCK_PANELS = MappingProxyType({
    "clock_idle_steps": "idle steps",
    "clock_stale_steps": "stale steps (acted on an earlier world)",
    "clock_fallback_steps": "fallback steps",
    "decisions_per_100_steps": "decisions / 100 steps",
    "decision_steps_mean": "decision latency (steps)",
})  # fmt: skip
CLOCK_FIGURE = "clock.png"


def clocked_records(records: Sequence[EvalRecord]) -> list[EvalRecord]:
    """The episodes played under a clock other than turns: the only ones whose record has the clock's fields."""
    return [r for r in records if r.clock_idle_steps is not None]


def clock_summary(records: Sequence[EvalRecord], order: dict[str, list] | None = None) -> Summary | None:
    """The clock metrics per agent / partner over the clocked episodes; None when no episode was clocked."""
    clocked = clocked_records(records)
    if not clocked:
        return None
    return summarize(clocked, ["agent", "partner"], list(CLOCK_PANELS), order)


def clocks_short(config: EvalConfig | None) -> str:
    """Which clock each clocked LLM agent played under, in a few words, for the figure's caption
    (the model and prompt set are `models_short`'s)."""
    if config is None:
        return "clock not recorded"
    groups: dict[str, list[str]] = {}  # agents that share a clock and fallback are named together
    for spec in config.agents:
        if spec.kind != PROAGENT:
            continue
        agent = spec.agent_config()
        if agent.settled_clock().kind != "turns":
            groups.setdefault(f"--clock {agent.clock}, fallback {agent.clock_fallback}", []).append(spec.name)
    if not groups:
        return "clock turns"
    return "; ".join(f"{clock} ({', '.join(names)})" for clock, names in groups.items())


def clock_chart(table: Summary, path: Path, title: str) -> Path:
    """`clock_figure` written to ``path``."""
    clock_figure(table, title).savefig(path, dpi=120, bbox_inches="tight")
    return path


def clock_figure(table: Summary, title: str) -> Figure:
    """One panel per clock metric of ``table`` (`clock_summary`), one bar per agent / partner row:
    the row's mean, its standard error from two samples up, ``n=…`` on a bar without one."""
    metrics = [m for m in table.metrics if m in CLOCK_PANELS]
    labels = [label_text(row.labels) for row in table.rows]
    fig = new_figure(max(6.0, 2.6 * len(metrics)), 3.4 + 0.08 * max((len(label) for label in labels), default=0))
    for mi, metric in enumerate(metrics):
        ax = fig.add_subplot(1, len(metrics), mi + 1)
        for ri, row in enumerate(table.rows):
            draw_bar(ax, ri, 0.7, row.stats[metric], f"C{ri % 10}")
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_title(CLOCK_PANELS[metric], fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        _from_zero(ax, [row.stats[metric] for row in table.rows])
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def _from_zero(ax: Axes, stats: list[MeanSE]) -> None:
    """Counts and rates start at zero: no negative axis under a panel of zeros (matplotlib centres
    one on 0), nor under bars whose error bars stay above it; a panel of zeros gets the axis 0 to 1."""
    means = [s.mean for s in stats if s.mean is not None]
    lows = [s.mean - s.se for s in stats if s.mean is not None and s.se is not None and s.n >= 2]
    if not any(means):
        ax.set_ylim(0.0, 1.0)
    else:
        ax.set_ylim(bottom=min([0.0, *lows]))
