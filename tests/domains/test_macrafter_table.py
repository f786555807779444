"""The MA-Crafter table (proagent.tables.macrafter_topologies): the topology x difficulty x feedback
table's cells, intervals and the feedback difference paired by world (synthetic rows; a tiny run
end to end is in tests/eval/test_reproduce_tables.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import proagent.tables.macrafter_topologies as table_module
from proagent.cli import main


def _load():
    return table_module


def _row(topology: str, feedback: bool, scenario: str, score: float) -> dict:
    metrics = {m: 1.0 for m, _ in _load().COLUMNS}
    return {
        **metrics,
        "difficulty": "easy",
        "topology": topology,
        "feedback": feedback,
        "scenario": scenario,
        "score": score,
    }


def test_emcoop_worlds_by_team_size_and_our_difficulties_by_seeded_random_worlds() -> None:
    labels = _load().layouts(2)
    emcoop = {"emcoop:0": "emcoop_3a", "emcoop:1": "emcoop_3a", "emcoop:0@6": "emcoop_6a", "emcoop:1@6": "emcoop_6a"}
    assert labels == emcoop | {f"random:{d}:{s}": d for d in ("easy", "medium", "hard") for s in (0, 1)}
    assert _load().layouts(1, list(_load().Settings().difficulties)) == {"emcoop:0": "emcoop_3a", "emcoop:0@6": "emcoop_6a"}


def test_the_feedback_difference_is_paired_by_world() -> None:
    script = _load()
    off = {"random:easy:0": 2.0, "random:easy:1": 4.0, "random:easy:2": 6.0}
    rows = [_row("centralized", False, s, v) for s, v in off.items()]
    rows += [_row("centralized", True, s, v + 1.0 + 0.5 * i) for i, (s, v) in enumerate(off.items())]  # +1, +1.5, +2
    rows += [_row("debate", False, "random:easy:0", 3.0), _row("debate", True, "random:easy:0", 5.0)]
    text = script.table(rows)
    lines = {tuple(line.split(" | ")[1:4]): line for line in text.splitlines() if line.startswith("| easy |")}
    assert text.splitlines()[0].endswith("| score 95% CI | Δ score feedback on − off [95% CI] |")
    half = 4.303 * (2.0 / 3**0.5)  # t(2) x se of 2, 4, 6
    assert lines[("centralized", "off", "3")].endswith(f"| [{4 - half:.2f}, {4 + half:.2f}] | baseline |")
    diff_half = 4.303 * (0.5 / 3**0.5)  # the differences 1, 1.5, 2
    assert lines[("centralized", "on", "3")].endswith(
        f"| 1.50 ± 0.29 (n=3) [{1.5 - diff_half:.2f}, {1.5 + diff_half:.2f}] |"
    )
    assert lines[("debate", "on", "1")].endswith("| – | 2.00 (n=1) – |")  # one pair: no interval
    assert "**" not in text  # nothing bold, ties or not
    assert ("decentralized", "off", "0") not in lines  # a topology the rows do not have: no row


def test_plot_rows_name_the_feedback_runs() -> None:
    drawn = _load().labelled([_row("centralized", True, "w", 1.0), _row("centralized", False, "w", 1.0)])
    assert [r["topology"] for r in drawn] == ["centralized+feedback", "centralized"]


def test_rebuilding_needs_two_run_folders(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["reproduce", "emcoop-macrafter", "--set", f"from_runs={tmp_path}", "--out", str(tmp_path / "t")]
    assert main(argv) == 2
    assert "two run folders" in capsys.readouterr().err and not (tmp_path / "t.md").exists()
