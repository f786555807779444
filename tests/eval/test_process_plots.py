"""EmCoop's process plots: the files are written, the radar's axes are fixed scales from 0, derived
metrics come from the episode's fields, and a bad metric name is a clear error."""

from __future__ import annotations

import math

import pytest

from proagent.eval.process_plots import (
    RADAR_METRICS,
    bars_by_difficulty,
    failure_bars,
    metric_value,
    nice_ceiling,
    ordered,
    radar_by_topology,
    radar_radii,
)

PNG = b"\x89PNG\r\n\x1a\n"


def _row(topology: str, difficulty: str, k: float) -> dict:
    """One episode's row as the paper's plots take it (60 steps, a process_metrics dict)."""
    return {
        "topology": topology,
        "difficulty": difficulty,
        "team_size": 3,
        "score": 2 * k,
        "steps": 60,
        "messages": 6 * k,
        "messages_per_step": 0.1 * k,
        "message_imbalance": 0.2 * k,
        "interruptions": 3 * k,
        "replans": k,
        "resumptions": 2 * k,
        "resumption_rate": 2 / 3,
        "plan_coherence": 1 - 0.1 * k,
        "decision_latency_ms": 100 * k,
        "coop_satisfied": 10 * k,
        "task_steps": 100.0,
        "failures_spatial": 4 * k,
        "failures_temporal": k,
        "failures_participation": 2 * k,
        "failures_dependency": 0.0,
    }


@pytest.fixture
def rows() -> list[dict]:
    grid = [("centralized", 1.0), ("decentralized", 2.0), ("debate", 1.5), ("individual", 0.5)]
    return [_row(t, d, k * f) for t, k in grid for d, f in (("easy", 1.0), ("hard", 2.0)) for _ in range(2)] + [
        _row("centralized", "medium", 1.2)
    ]


def _png(path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG) and len(data) > 5_000, f"{path} is not a drawn PNG"


def test_the_three_plots_are_written_as_pngs(rows, tmp_path):
    assert radar_by_topology(rows, tmp_path / "radar.png") == tmp_path / "radar.png"
    assert bars_by_difficulty(rows, tmp_path / "bars.png", "plan_coherence") == tmp_path / "bars.png"
    assert failure_bars(rows, tmp_path / "failures.png") == tmp_path / "failures.png"
    one = [r for r in rows if r["topology"] == "centralized"]
    failure_bars(one, tmp_path / "failures1.png")  # one topology: a single stacked bar per difficulty
    radar_by_topology(rows, tmp_path / "radar3.png", ["score", "replans", "interruptions_per_step"])
    for name in ("radar", "bars", "failures", "failures1", "radar3"):
        _png(tmp_path / f"{name}.png")


def test_radar_axes_have_fixed_scales_from_zero():
    tops, radii = radar_radii({
        "plan_coherence": {"a": 0.8, "b": 0.8},  # equal values: equal radius, on the 0..1 scale of a rate
        "decision_latency_ms": {"a": 100.0, "b": 101.0},  # a 1% difference stays a 1% difference
        "messages_per_step": {"a": None, "b": 3.0},  # undefined: drawn at 0
    })  # fmt: skip
    assert tops == {"plan_coherence": 1.0, "decision_latency_ms": 200.0, "messages_per_step": 5.0}
    assert radii["a"] == pytest.approx([0.8, 0.5, 0.0]) and radii["b"] == pytest.approx([0.8, 0.505, 0.6])
    assert [nice_ceiling(v) for v in (0.0, 0.3, 1.0, 1.2, 7.0, 101.0, 2.5)] == [1.0, 0.5, 1.0, 2.0, 10.0, 200.0, 2.5]


def test_derived_metrics_and_orders():
    row = _row("centralized", "easy", 2.0)
    assert metric_value(row, "interruptions_per_step") == pytest.approx(6 / 60)
    assert metric_value(row, "coop_satisfaction_rate") == pytest.approx(0.2)
    no_steps = {k: v for k, v in row.items() if k != "steps"}
    assert metric_value(no_steps, "interruptions_per_step") == pytest.approx(6 / (12 / 0.2)), (
        "steps from messages / rate"
    )
    assert metric_value({**row, "task_steps": 0}, "coop_satisfaction_rate") is None
    assert metric_value(row, "plan_coherence") == pytest.approx(0.8) and metric_value(row, "topology") is None
    assert set(RADAR_METRICS) >= {
        "plan_coherence",
        "messages_per_step",
        "coop_satisfaction_rate",
        "decision_latency_ms",
    }
    assert ordered(["hard", "x", "easy", "hard"], ("easy", "medium", "hard")) == ["easy", "hard", "x"]
    assert not math.isnan(metric_value(row, "score"))


def test_bad_inputs_are_clear_errors(rows, tmp_path):
    with pytest.raises(
        ValueError, match=r"unknown metric\(s\) 'plan_coherenc'.*plan_coherence.*interruptions_per_step"
    ):
        bars_by_difficulty(rows, tmp_path / "b.png", "plan_coherenc")
    with pytest.raises(ValueError, match="unknown metric.*'nope'"):
        radar_by_topology(rows, tmp_path / "r.png", ["plan_coherence", "score", "nope"])
    with pytest.raises(ValueError, match="at least 3 metrics"):
        radar_by_topology(rows, tmp_path / "r.png", ["plan_coherence", "score"])
    with pytest.raises(ValueError, match="no rows"):
        radar_by_topology([], tmp_path / "r.png")
    with pytest.raises(ValueError, match="1 of 1 row.*'difficulty'"):
        bars_by_difficulty([{"topology": "debate", "score": 1.0}], tmp_path / "b.png", "score")
    with pytest.raises(ValueError, match="failures_spatial"):
        failure_bars([{"topology": "debate", "difficulty": "easy", "score": 1.0}], tmp_path / "f.png")
    assert not list(tmp_path.iterdir()), "nothing written for a bad call"
