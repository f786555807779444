"""Statistics that do not look like more than they are: n beside every mean, no ± or error bar
below two samples, no bold for a tie, 95% t intervals and paired differences, and a radar whose
axes are fixed scales from 0 (equal values at equal radius)."""

from __future__ import annotations

import pytest
from eval_helpers import rec
from matplotlib.container import ErrorbarContainer

from proagent.eval.plots import comparison_figure, score_figure
from proagent.eval.process_plots import radar_figure
from proagent.eval.render import pivot_markdown, pivot_rich, summary_markdown
from proagent.eval.stats import MeanSE, mean_se, paired_difference, t_critical
from proagent.eval.tables import pivot, summarize


def _score_table(scores: dict[str, list[float]]):
    records = [rec(agent, "greedy", 0, i, s) for agent, values in scores.items() for i, s in enumerate(values)]
    return pivot(records, "score", ["layout", "seat"], ["agent"])


def test_every_mean_in_a_table_carries_its_n_and_one_sample_has_no_plus_minus():
    table = _score_table({"a": [7.0], "b": [10.0, 20.0]})
    md = pivot_markdown(table)
    assert "| cramped_room / P0 | 7.0 (n=1) | **15.0 ± 5.0 (n=2)** |" in md
    assert "± 0.0" not in md
    summary = summarize([rec("a", "greedy", 0, 0, 7.0, llm_calls=3)], ["agent"], ["score", "llm_calls"])
    assert "| a | 7.00 (n=1) | 3.00 (n=1) |" in summary_markdown(summary)


def test_a_tie_for_the_top_is_not_bolded_as_a_win():
    tie = pivot_markdown(_score_table({"a": [20.0, 40.0], "b": [30.0, 30.0], "c": [0.0, 10.0]}))
    assert "**" not in tie, "a and b share the best mean: neither won"
    all_equal = pivot_markdown(_score_table({"a": [5.0], "b": [5.0]}))
    assert "**" not in all_equal
    best = pivot_markdown(_score_table({"a": [20.0, 40.0], "b": [30.0, 31.0]}))
    assert best.count("**") == 2 and "**30.5 ± 0.5 (n=2)**" in best
    rich_cells = [str(c) for c in pivot_rich(_score_table({"a": [1.0], "b": [1.0]}), "t").columns[1]._cells]
    assert not any("[bold]" in c for c in rich_cells)


def _error_bars(fig) -> list[ErrorbarContainer]:
    return [c for ax in fig.axes for c in ax.containers if isinstance(c, ErrorbarContainer)]


def _texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_no_error_bar_below_two_samples_but_an_n_label():
    one = score_figure(_score_table({"a": [7.0]}), "t")
    assert _error_bars(one) == [] and "n=1" in _texts(one)
    two = score_figure(_score_table({"a": [7.0, 9.0]}), "t")
    assert len(_error_bars(two)) == 1 and "n=1" not in _texts(two)
    summary = summarize([rec("a", "greedy", 0, 0, 7.0), rec("b", "greedy", 0, 0, 5.0), rec("b", "greedy", 0, 1, 6.0)], ["agent"], ["score"])
    chart = comparison_figure(summary, "t")
    assert len(_error_bars(chart)) == 1 and _texts(chart) == ["n=1"]


def test_the_95_percent_t_interval_of_the_mean():
    stat = mean_se([1.0, 2.0, 3.0])  # se = 1 / sqrt(3); t(2) = 4.303
    low, high = stat.interval()
    assert (low, high) == pytest.approx((2 - 4.303 / 3**0.5, 2 + 4.303 / 3**0.5))
    assert stat.interval_text(2) == f"[{low:.2f}, {high:.2f}]"
    assert mean_se([5.0]).interval() is None and mean_se([5.0]).interval_text() == "–"
    assert t_critical(1) == 12.706 and t_critical(30) == 2.042 and t_critical(31) == 1.96
    with pytest.raises(ValueError):
        t_critical(0)


def test_a_paired_difference_uses_only_shared_keys_and_cancels_what_the_seed_decides():
    variant = {0: 10.0, 1: 30.0, 2: 50.0, 3: 99.0}
    baseline = {0: 9.0, 1: 28.0, 2: 49.0}  # seed 3 not played by the baseline: unpaired, left out
    diff = paired_difference(variant, baseline)
    assert diff.n == 3 and diff.mean == pytest.approx(4 / 3)
    assert diff.se == pytest.approx(mean_se([1.0, 2.0, 1.0]).se)
    assert diff.se < mean_se(list(variant.values())[:3]).se, "pairing removes the spread between seeds"
    assert paired_difference({}, baseline) == MeanSE(n=0)


def _radar_row(topology: str, coherence: float, latency: float) -> dict:
    return {"topology": topology, "plan_coherence": coherence, "decision_latency_ms": latency, "resumption_rate": 0.5}


def test_the_radar_draws_equal_values_at_equal_radius_on_fixed_scales():
    rows = [_radar_row("debate", 0.8, 100.0), _radar_row("centralized", 0.8, 101.0)]
    fig = radar_figure(rows, ["plan_coherence", "decision_latency_ms", "resumption_rate"])
    (ax,) = fig.axes
    lines = {line.get_label(): list(line.get_ydata())[:3] for line in ax.get_lines() if not line.get_label().startswith("_")}
    assert lines["debate"] == pytest.approx([0.8, 0.5, 0.5])  # not mid-radius for a tie, not 0 for the smaller
    assert lines["centralized"] == pytest.approx([0.8, 0.505, 0.5])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["plan coherence\n0–1", "decision latency (ms)\n0–200", "resumption rate\n0–1"]


def test_identical_episodes_show_one_result_not_a_zero_standard_error():
    """Five episodes that played out exactly alike (a fixed scenario, deterministic agents) are one
    result repeated: the cell says so, with no ± 0.0 and no interval; equal scores of episodes that
    differed otherwise keep their (zero) spread."""
    alike = [rec("a", "greedy", 0, i, 20.0) for i in range(5)]
    table = pivot(alike, "score", ["layout", "seat"], ["agent"])
    (cell,) = table.rows[0].cells
    assert cell.identical and cell.se is None and cell.interval() is None
    assert "20.0 (n=5, identical)" in pivot_markdown(table) and "± 0.0" not in pivot_markdown(table)
    differed = [rec("a", "greedy", 0, i, 20.0, decisions=i) for i in range(5)]
    (cell,) = pivot(differed, "score", ["layout", "seat"], ["agent"]).rows[0].cells
    assert not cell.identical and cell.se == 0.0 and cell.text() == "20.0 ± 0.0 (n=5)"
