"""The eval tables show the clock's columns (stale, idle, fallback steps, decisions per 100 steps)
where an agent played under a clock other than turns, and only there."""

from __future__ import annotations

import json

from eval_helpers import config, rec, run_eval

from proagent.eval.report import CLOCK_METRICS, build_report


def test_a_clocked_agent_brings_the_clock_columns(world, tmp_path) -> None:
    cfg = config(
        agents=[
            {"kind": "proagent", "llm": "scripted", "label": "turns"},
            {
                "kind": "proagent",
                "llm": "scripted",
                "label": "tokens",
                "clock": "tokens:40",
                "clock_fallback": "scripted",
            },
        ],
        partners=["greedy"],
        seats=[0],
        episodes=1,
    )
    handle, _ = run_eval(cfg, world, tmp_path)
    folder = handle.folder.path
    header = (folder / "metrics.md").read_text()
    assert all(name in header for name in CLOCK_METRICS)
    rows = {row["labels"]["agent"]: row for row in json.loads((folder / "metrics.json").read_text())["rows"]}
    clocked = rows["tokens"]["stats"]
    assert clocked["decisions_per_100_steps"]["mean"] > 0 and clocked["clock_fallback_steps"]["mean"] > 0
    assert rows["turns"]["stats"]["clock_idle_steps"]["n"] == 0, "no clock, no figure (not a zero)"


def test_turn_only_runs_have_no_clock_columns() -> None:
    records = [rec("proagent", "greedy", 0, e, 20.0) for e in range(2)]
    report = build_report(records, None, "t")
    assert not set(CLOCK_METRICS) & set(report.metrics.metrics) and not set(CLOCK_METRICS) & set(report.pairs.metrics)
    clocked = [
        *records,
        rec("fast", "greedy", 0, 0, 0.0, clock_idle_steps=5, clock_stale_steps=3, decisions_per_100_steps=2.5),
    ]
    report = build_report(clocked, None, "t")
    assert set(CLOCK_METRICS) <= set(report.pairs.metrics) and set(CLOCK_METRICS) <= set(report.metrics.metrics)
