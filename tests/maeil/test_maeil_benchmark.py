"""benchmarks/maeil_speed.py still measures what it says (tiny episodes; no timing asserts)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "maeil_speed.py"


def _load():
    spec = importlib.util.spec_from_file_location("maeil_speed", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["maeil_speed"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # four short episodes and two loopback servers (~13 s)
def test_overhead_and_concurrency_are_measured_on_real_episodes() -> None:
    bench = _load()
    row = bench.overhead("centralized", 6)
    assert row["steps"] == 6 and row["rounds"] >= 2 and row["median_ms"] >= 0
    c = bench.concurrency(0.01, 6)
    assert c["rounds"] >= 2 and c["llm_calls"] > c["rounds"] / 2 and c["cognition_s"] > 0
    assert c["sequential_calls"] > 0
