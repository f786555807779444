"""Tables of the cooperation metrics: per group (agent|partner|layout|seat), mean over episodes.

Shared by `proagent analyze` (rich on the terminal, also saved as markdown) and the Table-1
script. The constructive share is pooled (all constructive pairs / all pairs of the group), so
episodes without any interdependence do not count as 0 % or 100 %.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from pydantic import BaseModel
from rich.table import Table

from proagent.interdependence.folder import EpisodeAnalysis

COLUMNS = (
    ("episodes", "n"),
    ("score", "score"),
    ("total", "Int"),
    ("constructive", "Int cons"),
    ("non_constructive", "Int non-cons"),
    ("share", "cons %"),
    ("initiated_0", "init p0"),
    ("accepted_by_1", "p1 acc. %"),
    ("initiated_1", "init p1"),
    ("accepted_by_0", "p0 acc. %"),
    ("intention", "intention"),
)


class GroupRow(BaseModel):
    group: str
    values: dict[str, float | None]


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def _share(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def group_rows(episodes: Sequence[EpisodeAnalysis]) -> list[GroupRow]:
    """One row per group, in first-appearance order."""
    groups: dict[str, list[EpisodeAnalysis]] = {}
    for e in episodes:
        groups.setdefault(e.group, []).append(e)
    return [GroupRow(group=g, values=_values(eps)) for g, eps in groups.items()]


def _values(eps: Sequence[EpisodeAnalysis]) -> dict[str, float | None]:
    results = [e.interdependence for e in eps]
    agents = [r.agents for r in results if len(r.agents) == 2]
    initiated = [sum(a[i].initiated for a in agents) for i in (0, 1)]
    accepted = [sum(a[i].accepted for a in agents) for i in (0, 1)]
    total = sum(r.total for r in results)
    hits = sum((e.intention_reported.hits if e.intention_reported else 0) for e in eps)
    asked = sum((e.intention_reported.total if e.intention_reported else 0) for e in eps)
    return {
        "episodes": float(len(eps)),
        "score": _mean([e.score for e in eps]),
        "total": _mean([r.total for r in results]),
        "constructive": _mean([r.constructive for r in results]),
        "non_constructive": _mean([r.non_constructive for r in results]),
        "share": _share(sum(r.constructive for r in results), total),
        "initiated_0": _mean([a[0].initiated for a in agents]),
        "accepted_by_1": _share(accepted[1], initiated[0]),
        "initiated_1": _mean([a[1].initiated for a in agents]),
        "accepted_by_0": _share(accepted[0], initiated[1]),
        "intention": _share(hits, asked),
    }


def _fmt(value: float | None, key: str) -> str:
    if value is None:
        return "–"
    return f"{value:.0f}" if key == "episodes" else f"{value:.1f}"


def rich_table(rows: Sequence[GroupRow], title: str) -> Table:
    table = Table(title=title)
    table.add_column("agent|partner|layout|seat")
    for _, header in COLUMNS:
        table.add_column(header, justify="right")
    for row in rows:
        table.add_row(row.group, *(_fmt(row.values.get(k), k) for k, _ in COLUMNS))
    return table


def markdown_table(rows: Sequence[GroupRow]) -> str:
    # " / " for "|" in the group column, header included: a bare | would split the cell
    header = "| agent / partner / layout / seat | " + " | ".join(h for _, h in COLUMNS) + " |"
    rule = "|" + "---|" * (len(COLUMNS) + 1)
    body = ["| " + row.group.replace("|", " / ") + " | " + " | ".join(_fmt(row.values.get(k), k) for k, _ in COLUMNS) + " |" for row in rows]
    return "\n".join([header, rule, *body]) + "\n"


LEGEND = (
    "Int: interdependent action pairs per episode (Def. 4.1); Int cons / non-cons: constructive "
    "(goal-reaching and non-looping, Def. 4.6) and the rest; cons %: constructive share of all pairs "
    "(pooled); init pN: trigger actions of player N per episode (Def. 4.2); pM acc. %: share of the "
    "other player's triggers that player M acted upon; intention: ProAgent's predictions of its "
    "teammate's next completed skill that were right (pooled)."
)
