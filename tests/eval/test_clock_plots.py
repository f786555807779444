"""The eval report draws the clock's figure (clock.png: idle, stale and fallback steps, decisions per
100 steps, decision latency in steps per agent / partner) where an agent played under a clock other
than turns, and only there; its bars are the records' means, drawn as every other bar chart draws them."""

from __future__ import annotations

import statistics

import pytest
from eval_helpers import config, rec, run_eval
from matplotlib.container import BarContainer

from proagent.eval.clock_plots import CLOCK_FIGURE, CLOCK_PANELS, clock_figure, clocks_short
from proagent.eval.report import build_report

CLOCKED_AGENT = {
    "kind": "proagent", "llm": "scripted", "label": "tokens", "clock": "tokens:40", "clock_fallback": "scripted",
}  # fmt: skip


def test_a_clocked_run_writes_the_clock_figure_and_a_turns_run_does_not(world, tmp_path) -> None:
    turns = {"kind": "proagent", "llm": "scripted", "label": "turns"}
    clocked, _ = run_eval(
        config(agents=[turns, CLOCKED_AGENT], partners=["greedy"], seats=[0], episodes=1), world, tmp_path / "c"
    )
    folder = clocked.folder.path
    assert (folder / CLOCK_FIGURE).stat().st_size > 0
    metrics = (folder / "metrics.md").read_text()
    assert f"]({CLOCK_FIGURE})" in metrics and "--clock tokens:40, fallback scripted (tokens)" in metrics
    plain, _ = run_eval(config(agents=[turns], partners=["greedy"], seats=[0], episodes=1), world, tmp_path / "t")
    assert (plain.folder.path / "scores.png").exists() and not (plain.folder.path / CLOCK_FIGURE).exists()
    assert CLOCK_FIGURE not in (plain.folder.path / "metrics.md").read_text()


def _clock(idle: int, stale: int, fallback: int, per_100: float, latency: float) -> dict:
    return {
        "clock_idle_steps": idle, "clock_stale_steps": stale, "clock_fallback_steps": fallback,
        "decisions_per_100_steps": per_100, "decision_steps_mean": latency,
    }  # fmt: skip


def test_the_bars_are_the_records_means_with_their_errors() -> None:
    spread = [
        rec("fast", "greedy", 0, 0, 20.0, **_clock(10, 4, 0, 2.5, 3.0)),
        rec("fast", "greedy", 0, 1, 40.0, **_clock(16, 7, 0, 3.0, 5.0)),
        rec("fast", "greedy", 1, 2, 0.0, **_clock(31, 1, 0, 1.0, 8.5)),
    ]
    single = [rec("fast", "stay", 0, 0, 20.0, **_clock(5, 2, 9, 4.0, 1.0))]
    same = [rec("slow", "greedy", 0, e, 20.0, **_clock(40, 12, 0, 1.5, 20.0)) for e in range(2)]
    unclocked = [rec("turns", "greedy", 0, e, 60.0) for e in range(2)]  # turns: no clock fields, no bars
    report = build_report([*unclocked, *spread, *single, *same], None, "t")
    assert report.clock is not None
    groups = {("fast", "greedy"): spread, ("fast", "stay"): single, ("slow", "greedy"): same}
    assert [(row.labels["agent"], row.labels["partner"]) for row in report.clock.rows] == list(groups)

    fig = clock_figure(report.clock, "t")
    assert [ax.get_title() for ax in fig.axes] == list(CLOCK_PANELS.values())
    for ax, metric in zip(fig.axes, CLOCK_PANELS):
        means = [statistics.fmean(getattr(r, metric) for r in records) for records in groups.values()]
        assert [bar.get_height() for bar in ax.patches] == pytest.approx(means, rel=1e-12)
        bars, lone, identical = [c for c in ax.containers if isinstance(c, BarContainer)]
        low, high = bars.errorbar.lines[2][0].get_segments()[0][:, 1]
        values = [getattr(r, metric) for r in spread]
        se = statistics.stdev(values) / len(values) ** 0.5
        # three differing episodes: mean ± se
        assert (low, high) == pytest.approx((means[0] - se, means[0] + se), rel=1e-12)
        assert lone.errorbar is None and identical.errorbar is None  # n=1, and two episodes alike: no spread
        assert [t.get_text() for t in ax.texts] == ["n=1", "n=2"]
    assert report.clock.rows[2].stats["clock_idle_steps"].identical


def test_turn_only_records_have_no_clock_figure_and_the_caption_names_the_clock() -> None:
    assert build_report([rec("proagent", "greedy", 0, e, 20.0) for e in range(2)], None, "t").clock is None
    cfg = config(agents=[{"kind": "proagent", "llm": "scripted"}, {**CLOCKED_AGENT, "label": "t2"}, CLOCKED_AGENT])
    assert clocks_short(cfg) == "--clock tokens:40, fallback scripted (t2, tokens)"
    assert clocks_short(config()) == "clock turns" and clocks_short(None) == "clock not recorded"
