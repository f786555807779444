"""Table math on known records: mean ± standard error (n - 1), grouping, ordering, rendering."""

from __future__ import annotations

import math

import pytest
from eval_helpers import rec

from proagent.eval.render import pivot_csv, pivot_markdown, summary_markdown
from proagent.eval.stats import mean_se, metric_value
from proagent.eval.tables import pivot, summarize


def test_mean_and_standard_error():
    s = mean_se([20.0, 40.0, 60.0, 80.0])
    assert s.n == 4 and s.mean == 50.0
    assert s.se == pytest.approx(math.sqrt(((30**2 + 10**2) * 2) / 3) / 2)  # stdev (n-1) / sqrt(n) = 12.91
    assert s.text() == "50.0 ± 12.9 (n=4)"
    one = mean_se([7.0])
    assert one.se is None and one.text() == "7.0 (n=1)"  # one episode: no error bar, not a fake zero
    assert mean_se([]).text() == "n/a (n=0)"


def test_derived_metrics_and_missing_values():
    r = rec("a", "p", 0, 0, 20, skills_done=3, skills_failed=1, prompt_tokens=10, completion_tokens=5, decisions=4, rejections=2)
    assert metric_value(r, "skill_success_rate") == 0.75 and metric_value(r, "tokens") == 15
    assert metric_value(r, "replans_per_decision") == 0.5
    assert metric_value(rec("a", "p", 0, 0, 0), "intention_accuracy") is None  # skipped, not counted as 0


def test_pivot_rows_layout_seat_columns_agent_partner():
    records = [rec("pro", "greedy", 0, i, s) for i, s in enumerate([20, 40, 60])]
    records += [rec("pro", "greedy", 1, i, s) for i, s in enumerate([0, 20])]
    records += [rec("sp", "greedy", 0, i, s) for i, s in enumerate([100, 100])]
    table = pivot(records, "score", ["layout", "seat"], ["agent", "partner"], order={"agent": ["sp", "pro"]})
    assert table.columns == [{"agent": "sp", "partner": "greedy"}, {"agent": "pro", "partner": "greedy"}]
    (p0, p1) = table.rows
    assert p0.labels == {"layout": "cramped_room", "seat": 0}
    assert [c.mean for c in p0.cells] == [100.0, 40.0] and p0.cells[1].se == pytest.approx(20 / math.sqrt(3))
    assert p1.cells[0].n == 0 and p1.cells[1].mean == 10.0  # sp never played seat 1
    md = pivot_markdown(table)
    assert "| cramped_room / P0 | **100.0 (n=2, identical)** | 40.0 ± 11.5 (n=3) |" in md  # alike episodes: one result
    assert "| cramped_room / P1 | n/a (n=0) | 10.0 ± 10.0 (n=2) |" in md
    assert "cramped_room,0,pro,greedy,score,3,40,11.547" in pivot_csv(table)


def test_summary_pools_over_the_other_keys():
    records = [rec("pro", "greedy", seat, i, 20.0 * (i + seat), llm_calls=10 + i) for seat in (0, 1) for i in range(2)]
    table = summarize(records, ["agent"], ["score", "llm_calls"])
    (row,) = table.rows
    assert row.stats["score"].n == 4 and row.stats["score"].mean == 20.0 and row.stats["llm_calls"].mean == 10.5
    assert "| pro | 20.00 ± 8.16 (n=4) | 10.50 ± 0.29 (n=4) |" in summary_markdown(table)
