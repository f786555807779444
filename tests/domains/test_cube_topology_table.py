"""scripts/cube_topology_table.py regenerates the topology x difficulty table (one tiny sweep)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts_loader import load_script


def _load():
    return load_script("cube_topology_table")


def test_every_team_size_and_difficulty_is_a_layout() -> None:
    labels = _load().layouts(2)
    assert len(labels) == 8 and labels["random:hard:1@6"] == "hard (6 agents)" and labels["random:easy:0"] == "easy (2 agents)"


@pytest.mark.slow  # 16 short episodes through `proagent eval` (~40 s)
def test_the_table_and_plots_are_written_for_every_cell(tmp_path: Path) -> None:
    out = tmp_path / "table"
    assert _load().main(["--seeds", "1", "--horizon", "15", "--out", str(out), "--runs-dir", str(tmp_path)]) == 0
    text = out.with_suffix(".md").read_text()
    for team in ("easy (2 agents)", "medium (3 agents)", "hard (4 agents)", "hard (6 agents)"):
        for topology in ("individual", "debate", "centralized", "decentralized"):
            assert f"| {team} | {topology} | 1 |" in text
    for suffix in ("_radar.png", "_score.png", "_failures.png"):
        assert out.with_name(out.name + suffix).stat().st_size > 0
