"""The Yōkai speed benchmark still runs (tiny sizes, no timing assertions)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "yokai_speed.py"


@pytest.fixture(scope="module")
def yokai_speed():
    spec = importlib.util.spec_from_file_location("yokai_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["yokai_speed"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("yokai_speed", None)


def test_benchmark_runs_tiny(yokai_speed):
    """Also a cross-check: run raises unless env 0 of the batch matches the reference."""
    rows = yokai_speed.run(["9c_2p"], (4,), steps=40, repeats=1, numpy_steps=20)
    assert [(r.layout, r.batch) for r in rows] == [("9c_2p", 4)]
    assert rows[0].steps_per_s > 0 and rows[0].ratio > 0
    lines = yokai_speed.format_table(rows, header="tiny").split("\n")
    assert lines[0] == "tiny" and "env-steps/s" in lines[1] and len(lines) == 3
