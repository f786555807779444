"""EmCoop's process plots (its Figure 3) as PNG: a radar of process metrics per communication
topology, bars of one metric by difficulty per topology, and the failures attributed to each
cooperation constraint by difficulty. Like `proagent.eval.plots`: matplotlib's object API on the
Agg canvas, so no global backend is switched and no display is needed.

Each function takes ``rows``, one dict per episode: ``{"topology": str, "difficulty": str,
"team_size": int, **process_metrics, "score": float}`` (an episode's ``process_metrics`` and what
it was played under), writes the figure to ``path`` and returns ``path``. A metric is a row field
or one of `DERIVED` (computed from fields every MAEIL episode has); a name that is neither, in no
row, is a ValueError naming what there is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.eval.plots import draw_bar, new_figure
from proagent.eval.stats import MeanSE, mean_se

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CONSTRAINTS: tuple[str, ...] = (
    "spatial",
    "temporal",
    "participation",
    "dependency",
)  # EmCoop's, as the trace names them
TOPOLOGY_ORDER: tuple[str, ...] = ("individual", "debate", "centralized", "decentralized", "broadcast_chain")
DIFFICULTY_ORDER: tuple[str, ...] = ("emcoop_3a", "emcoop_6a", "easy", "medium", "hard")
CONSTRAINT_COLORS = {"spatial": "#4c72b0", "temporal": "#dd8452", "participation": "#55a868", "dependency": "#c44e52"}


def _steps(row: dict) -> float | None:
    """The episode's environment steps: ``steps`` when the row has it, else what the per-step
    rates and their totals imply."""
    if _number(row.get("steps")):
        return float(row["steps"])
    for total, rate in (("messages", "messages_per_step"), ("cognitive_rounds", "rounds_per_step")):
        if _number(row.get(total)) and _number(row.get(rate)) and row[rate] > 0:
            return row[total] / row[rate]
    return None


def _ratio(numerator: str, denominator: Callable[[dict], float | None]) -> Callable[[dict], float | None]:
    def value(row: dict) -> float | None:
        below = denominator(row)
        return row[numerator] / below if _number(row.get(numerator)) and _number(below) and below else None

    return value


# Metrics computed from a row's fields (name -> (axis label, function; None where undefined)).
DERIVED: dict[str, tuple[str, Callable[[dict], float | None]]] = {
    "interruptions_per_step": ("interruptions / step", _ratio("interruptions", _steps)),
    "coop_satisfaction_rate": ("constraint satisfaction", _ratio("coop_satisfied", lambda r: r.get("task_steps"))),
}
RADAR_METRICS: tuple[str, ...] = (
    "plan_coherence",
    "resumption_rate",
    "messages_per_step",
    "message_imbalance",
    "interruptions_per_step",
    "decision_latency_ms",
    "coop_satisfaction_rate",
)
LABELS = {
    "plan_coherence": "plan coherence",
    "resumption_rate": "resumption rate",
    "messages_per_step": "messages / step",
    "message_imbalance": "message imbalance",
    "decision_latency_ms": "decision latency (ms)",
    "attempt_success_rate": "attempt success",
    **{name: label for name, (label, _) in DERIVED.items()},
}


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def metric_value(row: dict, metric: str) -> float | None:
    """One episode's ``metric``: a derived one, else the row's number; None where undefined."""
    if metric in DERIVED:
        return DERIVED[metric][1](row)
    value = row.get(metric)
    return float(value) if _number(value) else None


def check_metrics(rows: Sequence[dict], metrics: Iterable[str]) -> None:
    """ValueError for a metric that is neither derived nor a numeric field of any row."""
    fields = sorted({k for row in rows for k, v in row.items() if _number(v)})
    unknown = [m for m in metrics if m not in DERIVED and m not in fields]
    if unknown:
        raise ValueError(
            f"unknown metric(s) {', '.join(map(repr, unknown))}: not a numeric field of any row "
            f"(they have: {', '.join(fields) or 'none'}) nor a derived one ({', '.join(DERIVED)})"
        )


def _check_rows(rows: Sequence[dict], *keys: str) -> None:
    if not rows:
        raise ValueError("no rows to plot: give one dict per episode")
    for key in keys:
        missing = sum(1 for row in rows if row.get(key) in (None, ""))
        if missing:
            raise ValueError(f"{missing} of {len(rows)} row(s) have no {key!r}")


def ordered(values: Iterable[str], known: Sequence[str] = ()) -> list[str]:
    """Distinct values: those of ``known`` first, in its order, then the rest as they first appear."""
    seen = list(dict.fromkeys(str(v) for v in values))
    return [v for v in known if v in seen] + [v for v in seen if v not in known]


# Metrics that are shares of a whole: their axis runs from 0 to 1 whatever the data.
RATE_METRICS = frozenset(
    {"plan_coherence", "resumption_rate", "coop_satisfaction_rate", "coop_rate", "attempt_success_rate"}
)


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 (times a power of ten) at or above ``value``; 1 for nothing
    above 0 (an axis needs some length)."""
    if not math.isfinite(value) or value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in (1.0, 2.0, 2.5, 5.0, 10.0) if step * power >= value * (1 - 1e-12))


def axis_top(metric: str, values: Iterable[float | None]) -> float:
    """The value at the tip of ``metric``'s radar axis: 1 for a rate, else `nice_ceiling` of the
    largest value over every series shown. Every axis starts at 0, so one value is always drawn
    at one radius, whichever series holds it, and a small difference stays small."""
    if metric in RATE_METRICS or metric.startswith("c_rate_") or metric.endswith("_violation_rate"):
        return 1.0
    return nice_ceiling(max((v for v in values if v is not None), default=0.0))


def radar_radii(means: dict[str, dict[str, float | None]]) -> tuple[dict[str, float], dict[str, list[float]]]:
    """(metric -> its axis top, series -> its radius on each metric's axis in [0, 1]) for ``means``
    (metric -> series -> mean); an undefined mean, or a negative one, is drawn at 0."""
    tops = {m: axis_top(m, values.values()) for m, values in means.items()}
    series = list(dict.fromkeys(s for values in means.values() for s in values))
    radii = {s: [min(1.0, max(0.0, (means[m].get(s) or 0.0) / tops[m])) for m in means] for s in series}
    return tops, radii


def _stat(rows: Iterable[dict], metric: str) -> MeanSE:
    return mean_se([v for v in (metric_value(row, metric) for row in rows) if v is not None])


def _label(metric: str) -> str:
    return LABELS.get(metric, metric.replace("_", " "))


def _figure(width: float, height: float, **subplot) -> tuple[Figure, object]:
    fig = new_figure(width, height)
    return fig, fig.add_subplot(**subplot)


def radar_by_topology(
    rows: Sequence[dict], path: Path, metrics: Sequence[str] = RADAR_METRICS, title: str = ""
) -> Path:
    """`radar_figure` written to ``path``."""
    radar_figure(rows, metrics, title).savefig(path, dpi=120, bbox_inches="tight")
    return Path(path)


def radar_figure(rows: Sequence[dict], metrics: Sequence[str] = RADAR_METRICS, title: str = "") -> Figure:
    """One radar, a polygon per topology: each axis a metric's mean over the topology's episodes on
    a fixed scale from 0 (`axis_top`: 0..1 for rates, else 0 up to a round value above the largest
    mean); the axis label gives its range. A metric no episode of a topology defines is drawn at 0."""
    _check_rows(rows, "topology")
    metrics = list(metrics)
    if len(metrics) < 3:
        raise ValueError(f"a radar needs at least 3 metrics, got {len(metrics)}")
    check_metrics(rows, metrics)
    topologies = ordered((row["topology"] for row in rows), TOPOLOGY_ORDER)
    means = {m: {t: _stat([r for r in rows if str(r["topology"]) == t], m).mean for t in topologies} for m in metrics}
    tops, radii = radar_radii(means)
    angles = [2 * math.pi * i / len(metrics) for i in range(len(metrics))]
    fig, ax = _figure(6.4, 6.0, projection="polar")
    for i, topology in enumerate(topologies):
        values = radii[topology]
        ax.plot([*angles, angles[0]], [*values, values[0]], color=f"C{i % 10}", linewidth=1.5, label=topology)
        ax.fill([*angles, angles[0]], [*values, values[0]], color=f"C{i % 10}", alpha=0.12)
    ax.set_xticks(angles, [f"{_label(m)}\n0–{tops[m]:g}" for m in metrics], fontsize=8)
    ax.xaxis.set_tick_params(pad=14)
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["", "", "", ""])
    ax.set_title(
        title or f"process metrics by topology ({len(rows)} episodes; each axis from 0 to the value at its label)",
        fontsize=10,
        pad=30,
    )
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.12, 1.0), frameon=False)
    return fig


def bars_by_difficulty(rows: Sequence[dict], path: Path, metric: str, title: str = "") -> Path:
    """Grouped bars: x = difficulty, one bar per topology, height the mean of ``metric`` over the
    episodes, error bar its standard error (none with one episode)."""
    _check_rows(rows, "topology", "difficulty")
    check_metrics(rows, [metric])
    topologies = ordered((row["topology"] for row in rows), TOPOLOGY_ORDER)
    difficulties = ordered((row["difficulty"] for row in rows), DIFFICULTY_ORDER)
    width = 0.8 / len(topologies)
    fig, ax = _figure(max(5.0, 1.5 + len(difficulties) * len(topologies) * 0.45), 3.8)
    for ti, topology in enumerate(topologies):
        for di, difficulty in enumerate(difficulties):
            stat = _stat(
                [r for r in rows if str(r["topology"]) == topology and str(r["difficulty"]) == difficulty], metric
            )
            x = di - 0.4 + width * (ti + 0.5)
            draw_bar(ax, x, width, stat, f"C{ti % 10}", label=topology if di == 0 else None)
    ax.set_xticks(range(len(difficulties)), difficulties)
    ax.set_xlabel("difficulty")
    ax.set_ylabel(_label(metric))
    ax.set_title(title or f"{_label(metric)} by difficulty and topology (mean ± se)", fontsize=10)
    ax.legend(fontsize=8, ncols=min(4, len(topologies)), loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return Path(path)


def failure_bars(rows: Sequence[dict], path: Path, title: str = "") -> Path:
    """Stacked bars of the failed attempts attributed to each constraint type (``failures_<type>``),
    mean per episode, by difficulty: one stacked bar per difficulty, or with several topologies one
    per topology within each difficulty (labelled under it). The constraints drawn are those the
    rows have failures for (MA-Crafter's EmCoop attempt events score no participation; its
    attribution is fractional, each failure's violation per constraint)."""
    _check_rows(rows, "difficulty")
    constraints = [c for c in CONSTRAINTS if any(_number(row.get(f"failures_{c}")) for row in rows)]
    check_metrics(rows, [f"failures_{c}" for c in (constraints or CONSTRAINTS)])
    topologies = ordered((row.get("topology") or "" for row in rows), TOPOLOGY_ORDER)
    difficulties = ordered((row["difficulty"] for row in rows), DIFFICULTY_ORDER)
    width = 0.8 / len(topologies)
    fig, ax = _figure(max(5.0, 1.5 + len(difficulties) * len(topologies) * 0.6), 4.0)
    ticks, names = [], []
    for di, difficulty in enumerate(difficulties):
        for ti, topology in enumerate(topologies):
            group = [r for r in rows if str(r["difficulty"]) == difficulty and str(r.get("topology") or "") == topology]
            x = di - 0.4 + width * (ti + 0.5)
            bottom = 0.0
            for c in constraints:
                height = _stat(group, f"failures_{c}").mean or 0.0
                label = c if di == 0 and ti == 0 else None
                ax.bar(
                    x,
                    height,
                    width * 0.9,
                    bottom=bottom,
                    color=CONSTRAINT_COLORS[c],
                    edgecolor="black",
                    linewidth=0.5,
                    label=label,
                )
                bottom += height
            if len(topologies) > 1:
                ticks.append(x)
                names.append(topology)
    if len(topologies) > 1:
        ax.set_xticks(ticks, names, rotation=30, ha="right", fontsize=7)
        for di, difficulty in enumerate(difficulties):
            ax.annotate(
                difficulty,
                (di, 0),
                xycoords=("data", "axes fraction"),
                xytext=(0, -60),
                textcoords="offset points",
                ha="center",
                fontsize=9,
            )
    else:
        ax.set_xticks(range(len(difficulties)), difficulties)
        ax.set_xlabel("difficulty")
    ax.set_ylabel("failed attempts per episode (mean)")
    ax.set_title(title or "failures attributed to each constraint, by difficulty", fontsize=10)
    ax.legend(fontsize=8, title="attributed to", title_fontsize=8, frameon=False, loc="upper left")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return Path(path)


__all__ = [
    "DERIVED",
    "RADAR_METRICS",
    "axis_top",
    "bars_by_difficulty",
    "check_metrics",
    "failure_bars",
    "metric_value",
    "nice_ceiling",
    "ordered",
    "radar_by_topology",
    "radar_figure",
    "radar_radii",
]
