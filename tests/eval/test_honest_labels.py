"""Labels and numbers that must not say more than the data: a summary's standard error at one
episode, copies of one deterministic episode, and intervals of rates that stay within [0, 1]."""

from __future__ import annotations

import pytest

from proagent.eval.ablation_table import ablation_markdown
from proagent.eval.stats import MeanSE, is_rate, mean_se, wilson_interval
from proagent.numbers import format_score_mean
from proagent.runner.records import EpisodeRecord
from proagent.runner.summary import summary_of


def episode(index: int, score: float, **extra: object) -> EpisodeRecord:
    base = {"episode": index, "seed": index, "layout": "fixed", "partner": "p", "seat": 0, "score": score,
            "steps": 50, "wall_time_s": 1.0 + index, "shaped_return": [0.0, 0.0]}  # fmt: skip
    return EpisodeRecord.model_validate({**base, **extra})


def test_one_episode_has_no_standard_error_in_the_summary() -> None:
    summary = summary_of([episode(0, 40.0)], ())
    assert summary["score_se"] is None and summary["episodes"] == 1
    assert format_score_mean(summary["score_mean"], summary["score_se"], 1) == "40 (n=1)"


def test_identical_episodes_are_said_so_and_counted_once() -> None:
    copies = [episode(i, 40.0) for i in range(5)]  # only the wall time differs
    summary = summary_of(copies, ())
    assert summary["identical_episodes"] and summary["distinct_episodes"] == 1 and summary["score_se"] is None
    varied = summary_of([*copies[:4], episode(4, 40.0, steps=49)], ())  # one played out otherwise
    assert not varied["identical_episodes"] and varied["distinct_episodes"] == 5 and varied["score_se"] == 0.0


@pytest.mark.parametrize(("p", "n"), [(1.0, 2), (0.0, 3), (0.97, 2), (0.5, 4)])
def test_the_wilson_interval_stays_within_zero_and_one(p: float, n: int) -> None:
    low, high = wilson_interval(p, n)
    assert 0.0 <= low <= p <= high <= 1.0


def test_a_rates_interval_in_the_ablation_table_never_runs_past_one() -> None:
    near_one = mean_se([1.0, 0.9])  # a t interval: 0.95 ± 12.7 * 0.05, past 1
    assert near_one.interval() is not None and near_one.interval()[1] > 1.0
    low, high = near_one.interval(rate=True)
    assert 0.0 <= low < 0.95 < high <= 1.0
    assert is_rate("skill_success_rate") and is_rate("intention_accuracy") and not is_rate("score")


def test_the_ablation_markdown_uses_it_for_rate_columns() -> None:
    from proagent.eval.ablation_table import AblationRow, AblationTable

    stats = {"skill_success_rate": mean_se([1.0, 0.9]), "score": mean_se([10.0, 30.0])}
    table = AblationTable(title="t", baseline="on", varied=[], group_keys=["agent"], metrics=list(stats),
                          rows=[AblationRow(labels={"agent": "on"}, config={}, stats=stats, differences={})])  # fmt: skip
    text = ablation_markdown(table)
    low, high = wilson_interval(0.95, 2)
    assert f"[{low:.2f}, {high:.2f}]" in text and "Wilson score interval" in text
    assert MeanSE(n=2, mean=20.0, se=10.0).interval_text(2) in text  # the score keeps its t interval


def test_the_ablation_table_names_an_adapter_by_its_folder_and_file_and_the_raw_model_as_none() -> None:
    """The path an adapter was run from is the machine's: the table (and the pages that quote it)
    shows where it lives in the project, and a raw model is never printed as Python's None."""
    from proagent.eval.ablation_table import shown_value

    assert shown_value("adapter", "~/proagent/data/adapters/taught/adapter.gguf") == "taught/adapter.gguf"
    assert shown_value("adapter", None) == "none (the raw model)"
    assert shown_value("adapter", "–") == "–"
    assert shown_value("memory_k", None) == "None"
