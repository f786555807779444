"""The golden evaluation (scripts/golden_runs.py) reproduces its recorded episodes exactly.

A change that moves any episode's score, calls or decisions fails here with the list of episodes
that differ."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "golden_runs.py"


@pytest.mark.slow
def test_the_golden_episodes_reproduce_exactly():
    spec = importlib.util.spec_from_file_location("golden_runs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["golden_runs"] = module
    try:
        spec.loader.exec_module(module)
        expected = json.loads(module.GOLDEN.read_text())
        actual = module.play(expected["horizon"])
        assert module.differences(expected["episodes"], actual) == []
        assert len(actual) == 2 * len(module.PARTNERS) * len(module.LAYOUTS) * 2
    finally:
        sys.modules.pop("golden_runs", None)


def test_differences_name_every_changed_episode():
    spec = importlib.util.spec_from_file_location("golden_runs_diff", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    old = {"a": {"score": 20, "llm_calls": 3}, "b": {"score": 0}}
    new = {"a": {"score": 40, "llm_calls": 3}, "c": {"score": 0}}
    assert module.differences(old, new) == ["missing: b", "new: c", "a: score 20 -> 40"]


@pytest.mark.slow
def test_the_published_zoo_crossplay_reproduces_exactly_on_cramped_room():
    """docs/results/zoo_crossplay_trained.json is the golden cross-play table: one layout replayed bit for bit."""
    from proagent.paths import PROJECT_ROOT
    from proagent.training.crossplay import zoo_crossplay

    tables = json.loads((PROJECT_ROOT / "docs" / "results" / "zoo_crossplay_trained.json").read_text())["tables"]
    golden = next(t for t in tables if t["layout"] == "cramped_room")
    table = zoo_crossplay("cramped_room", episodes=golden["episodes"], seed=golden["seed"])
    assert table.names == golden["names"]
    assert table.scores == golden["scores"]
