"""Tables of mean ± se built from episode records, as plain data (rendering is `render`).

Two shapes cover every report: a `Pivot` (one metric; rows and columns are groups, e.g. rows
layout x seat and columns agent x partner, ProAgent's Table 1) and a `Summary` (rows are groups,
columns are metrics: the per-pair metrics table and the ablation comparison).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from proagent.eval.records import EvalRecord
from proagent.eval.stats import MeanSE, metric_stat

Labels = dict[str, str | int]


class PivotRow(BaseModel):
    labels: Labels
    cells: list[MeanSE]


class Pivot(BaseModel):
    metric: str
    row_keys: list[str]
    col_keys: list[str]
    columns: list[Labels]
    rows: list[PivotRow]


class SummaryRow(BaseModel):
    labels: Labels
    stats: dict[str, MeanSE]


class Summary(BaseModel):
    group_keys: list[str]
    metrics: list[str]
    rows: list[SummaryRow]


def ordered_groups(
    records: Sequence[EvalRecord], keys: Sequence[str], order: dict[str, list] | None = None
) -> list[tuple]:
    """Distinct values of ``keys`` in ``records``: by ``order`` where given, else first appearance."""
    order = order or {}
    seen = list(dict.fromkeys(tuple(getattr(r, k) for k in keys) for r in records))

    def rank(group: tuple) -> tuple:
        return tuple(
            order[k].index(v) if k in order and v in order[k] else len(order.get(k, [])) for k, v in zip(keys, group)
        )

    return sorted(seen, key=rank)  # stable: unranked values keep their first-appearance order


def _split(records: Sequence[EvalRecord], keys: Sequence[str]) -> dict[tuple, list[EvalRecord]]:
    out: dict[tuple, list[EvalRecord]] = {}
    for r in records:
        out.setdefault(tuple(getattr(r, k) for k in keys), []).append(r)
    return out


def pivot(
    records: Sequence[EvalRecord],
    metric: str,
    row_keys: Sequence[str],
    col_keys: Sequence[str],
    order: dict[str, list] | None = None,
) -> Pivot:
    rows = ordered_groups(records, row_keys, order)
    cols = ordered_groups(records, col_keys, order)
    cells = _split(records, [*row_keys, *col_keys])
    return Pivot(
        metric=metric,
        row_keys=list(row_keys),
        col_keys=list(col_keys),
        columns=[dict(zip(col_keys, c)) for c in cols],
        rows=[
            PivotRow(labels=dict(zip(row_keys, r)), cells=[metric_stat(cells.get(r + c, []), metric) for c in cols])
            for r in rows
        ],
    )


def summarize(
    records: Sequence[EvalRecord],
    group_keys: Sequence[str],
    metrics: Sequence[str],
    order: dict[str, list] | None = None,
) -> Summary:
    groups = _split(records, group_keys)
    return Summary(
        group_keys=list(group_keys),
        metrics=list(metrics),
        rows=[
            SummaryRow(labels=dict(zip(group_keys, g)), stats={m: metric_stat(groups[g], m) for m in metrics})
            for g in ordered_groups(records, group_keys, order)
        ],
    )
