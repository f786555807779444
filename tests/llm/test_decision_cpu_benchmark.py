"""The decision CPU benchmark still runs and reports its figures (tiny size, no timing assertion)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "decision_cpu.py"


def test_benchmark_runs_tiny():
    spec = importlib.util.spec_from_file_location("decision_cpu", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["decision_cpu"] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        results = module.measure(decisions=3, warm_up=1)
        text = module.report(results)
    finally:
        sys.modules.pop("decision_cpu", None)
    assert results.loopback.decisions == results.in_process.decisions == 3
    assert results.loopback.cpu_s > 0 and results.in_process.cpu_s > 0
    for figure in (
        "loopback server over HTTP",
        "in-process answer (agent)",
        "client side",
        "client / agent",
        "verdict",
    ):
        assert figure in text
