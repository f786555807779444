"""The env speed benchmark still runs (tiny sizes, no timing assertions)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "env_speed.py"


@pytest.fixture(scope="module")
def env_speed():
    spec = importlib.util.spec_from_file_location("env_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["env_speed"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("env_speed", None)


def test_benchmark_runs_tiny(env_speed, circuit):
    """Also a check of the wrapper: bench_scan raises unless ours and raw JaxMARL sum to exactly the same
    rewards and observations over the rollout."""
    rows = env_speed.run(loop_steps=3, scan_sizes=(2,), scan_steps=2, repeats=1, ours=circuit, core=False)
    assert [r.target for r in rows] == [env_speed.TARGET_LOOP, None, env_speed.TARGET_SCAN]
    assert all(r.ours > 0 and r.raw > 0 for r in rows)
    table = env_speed.format_table(rows, header="tiny")
    lines = table.split("\n")
    assert lines[0] == "tiny" and "ours steps/s" in lines[1] and len(lines) == 2 + len(rows)
    assert "N=2" in lines[-1]


def test_benchmark_pair_is_the_same_kitchen(env_speed, circuit):
    pair = env_speed.build(ours=circuit)
    assert pair.raw.layout is circuit.engine.layout
    assert pair.raw.max_steps == circuit.dynamics.horizon
    assert env_speed.random_actions((4, 3)).shape == (4, 3)


@pytest.mark.slow
def test_benchmark_main_tiny(env_speed, capsys):
    """The command line, every row (engine-core reference included); one more compile per rollout."""
    assert env_speed.main(["--loop-steps", "3", "--sizes", "2", "--scan-steps", "2", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "engine core" in out and "N=2" in out and "(total" in out
