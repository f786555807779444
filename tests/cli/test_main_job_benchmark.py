"""benchmarks/main_job.py still measures the README's main job (tiny horizons, no timing asserts)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "main_job.py"


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_main_job_benchmark_reports_tokens_reuse_and_memory():
    cmd = [sys.executable, str(BENCHMARK), "--horizon", "12", "--baseline-horizon", "3"]  # compact: two decisions or more (prefix reuse)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["label"] for r in rows] == ["compact (default)", "full proagent prompt"]
    compact, full = rows
    assert compact["decisions"] >= 1 and compact["peak_rss_mb"] > 100
    # the compact set re-evaluates fewer tokens and writes fewer than the full prompt
    assert compact["evaluated_tokens_per_decision"] < full["evaluated_tokens_per_decision"]
    assert compact["generated_tokens_per_decision"] < full["generated_tokens_per_decision"]
    assert compact["reused_tokens_per_decision"] > 0
    assert "seconds per decision, compact / full prompt:" in out and "targets:" in out
