"""The CUBE speed benchmark still runs (tiny sizes, no timing assertions)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from envs.cube import BlockSpec, Scenario

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "cube_speed.py"
TINY = Scenario("tiny", (BlockSpec(2, 1, 1),), ((0, 1), (0, 2)), grid_size=5, horizon=6)


@pytest.fixture(scope="module")
def cube_speed():
    spec = importlib.util.spec_from_file_location("cube_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cube_speed"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("cube_speed", None)


def test_benchmark_runs_tiny(cube_speed):
    """Also a cross-check: run raises unless env 0 of each JAX batch ends where the reference does
    (with the horizon of 6 < 8 steps, both must freeze at done rather than reset)."""
    rows = cube_speed.run([TINY], batch=3, steps=8, repeats=1, numpy_steps=8)
    assert [r.target for r in rows] == [cube_speed.TARGET, None, None, None, None]
    assert all(r.steps_per_s > 0 for r in rows) and rows[-1].ratio == 1.0
    lines = cube_speed.format_table(rows, header="tiny").split("\n")
    assert lines[0] == "tiny" and "env-steps/s" in lines[1] and len(lines) == 2 + len(rows)
