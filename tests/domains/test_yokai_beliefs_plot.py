"""scripts/yokai_beliefs.py: per-turn means over episodes (seen and unseen apart, one layout),
untrusted lines skipped, a PNG written, and bad inputs refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.domains.scripts_loader import load_script

beliefs = load_script("yokai_beliefs")


def _turn(turn: int, seen: float | None, unseen: float | None) -> dict:
    return {"turn": turn, "step": 4 * turn, "seen_accuracy": seen, "unseen_accuracy": unseen, "seen_total": 1, "unseen_total": 8}


def _record(episode: int, layout: str, turns: list[dict]) -> dict:
    return {"episode": episode, "seed": episode, "layout": layout, "partner": "careful", "seat": 0, "score": 0.0,
            "steps": 10, "wall_time_s": 1.0, "shaped_return": [0.0, 0.0], "belief_by_turn": turns}  # fmt: skip


def _run(tmp_path: Path, lines: list[str]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    return run


def test_means_per_turn_keep_seen_and_unseen_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = [
        _record(0, "9c_2p", [_turn(0, None, 0.0), _turn(2, 1.0, 0.25)]),
        _record(1, "9c_2p", [_turn(0, None, 0.5), _turn(2, 0.5, 0.75)]),
        _record(2, "16c_2p", [_turn(0, None, 1.0)]),  # another layout: left out with --layout
    ]
    bad = [_record(3, "9c_2p", [{"turn": "2", "seen_accuracy": 1.0}]), _record(4, "9c_2p", [_turn(2, 7.0, 0.0)])]
    run = _run(tmp_path, [json.dumps(r) for r in good + bad] + ["{torn"])
    seen, unseen, episodes = beliefs.read_turns([run], "9c_2p")
    assert episodes == 2 and dict(seen) == {2: [1.0, 0.5]} and dict(unseen) == {0: [0.0, 0.5], 2: [0.25, 0.75]}
    out = tmp_path / "b.png"
    assert beliefs.main([str(run), "--layout", "9c_2p", "--out", str(out), "--note", "scripted\x1b[31m double"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = capsys.readouterr().out
    assert "| 0 | - | 0 | 0.25 | 2 |" in table and "| 2 | 0.75 | 2 | 0.50 | 2 |" in table


def test_runs_without_probes_or_records_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert beliefs.main([str(tmp_path), "--out", str(tmp_path / "x.png")]) == 2
    run = _run(tmp_path, [json.dumps(_record(0, "9c_2p", []))])
    assert beliefs.main([str(run), "--out", str(tmp_path / "x.png")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and "no episodes.jsonl" in errors[0] and "--belief-probe" in errors[1]
    assert not (tmp_path / "x.png").exists()
