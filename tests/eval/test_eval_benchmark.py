"""The throughput benchmark still runs (tiny sizes, no timing assertions; slow: two server processes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "eval_throughput.py"


@pytest.mark.slow
def test_benchmark_runs_tiny():
    spec = importlib.util.spec_from_file_location("eval_throughput", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_throughput"] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        results = module.measure(delay=0.01, horizon=20, many=3)
    finally:
        sys.modules.pop("eval_throughput", None)
    assert len(results.records) == 3 and results.longest.llm_calls == max(r.llm_calls for r in results.records)
    text = module.report(results)
    assert "ratio 3 concurrent / longest alone" in text and "verdict" in text
