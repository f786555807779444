"""The CUBE topology table (proagent.tables.cube_topologies) regenerates the topology x difficulty
table (one tiny sweep, on the loopback test double)."""

from __future__ import annotations

from pathlib import Path

import pytest

import proagent.tables.cube_topologies as table_module
from proagent.cli import main


def _load():
    return table_module


def test_every_team_size_and_difficulty_is_a_layout() -> None:
    labels = _load().layouts(2)
    assert len(labels) == 8 and labels["random:hard:1@6"] == "hard (6 agents)" and labels["random:easy:0"] == "easy (2 agents)"


@pytest.mark.slow  # 16 short episodes through `proagent eval` (~40 s)
def test_the_table_and_plots_are_written_for_every_cell(tmp_path: Path) -> None:
    out = tmp_path / "table"
    argv = ["reproduce", "emcoop-topologies", "--episodes", "1", "--horizon", "15", "--out", str(out), "--runs-dir", str(tmp_path)]
    assert main([*argv, "--progress", "off", "--llm", "scripted"]) == 0
    text = out.with_suffix(".md").read_text()
    assert "the world's scripted planner (not a language model)" in text
    for team in ("easy (2 agents)", "medium (3 agents)", "hard (4 agents)", "hard (6 agents)"):
        for topology in ("individual", "debate", "centralized", "decentralized"):
            assert f"| {team} | {topology} | 1 |" in text
    for suffix in ("_radar.png", "_score.png", "_failures.png"):
        assert out.with_name(out.name + suffix).stat().st_size > 0


def _row(team: str, topology: str, scenario: str, score: float) -> dict:
    metrics = {m: 1.0 for m, _ in _load().COLUMNS}
    return {**metrics, "difficulty": team, "topology": topology, "scenario": scenario, "score": score}


def test_the_table_gives_the_score_interval_and_the_difference_paired_by_scenario() -> None:
    script = _load()
    easy = "easy (2 agents)"
    base = {"random:easy:0": 2.0, "random:easy:1": 4.0, "random:easy:2": 6.0}
    rows = [_row(easy, "individual", s, v) for s, v in base.items()]
    rows += [_row(easy, "debate", s, v + 1.0 + 0.5 * i) for i, (s, v) in enumerate(base.items())]  # +1, +1.5, +2
    rows += [_row(easy, "centralized", "random:easy:0", 9.0)]  # one scenario only: no interval
    text = script.table(rows)
    lines = {line.split(" | ")[1]: line for line in text.splitlines() if line.startswith(f"| {easy} |")}
    assert text.splitlines()[0].endswith("| score 95% CI | Δ score vs individual [95% CI] |")
    half = 4.303 * (2.0 / 3**0.5)  # t(2) x se of 2, 4, 6
    assert lines["individual"].endswith(f"| [{4 - half:.2f}, {4 + half:.2f}] | baseline |")
    diff_half = 4.303 * (0.5 / 3**0.5)  # the differences 1, 1.5, 2: se 0.5 / sqrt(3)
    assert lines["debate"].endswith(f"| 1.50 ± 0.29 (n=3) [{1.5 - diff_half:.2f}, {1.5 + diff_half:.2f}] |")
    assert lines["centralized"].endswith("| 1.00 (n=1) | – | 7.00 (n=1) – |") and "| 9.00 (n=1) |" in lines["centralized"]
