"""benchmarks/train_speed.py runs every variant end to end (tiny sizes) and prints its ratios."""

from __future__ import annotations

import importlib.util

import pytest

from proagent.paths import PROJECT_ROOT


@pytest.mark.slow
def test_train_speed_benchmark_runs_every_variant(capsys):
    spec = importlib.util.spec_from_file_location("train_speed", PROJECT_ROOT / "benchmarks" / "train_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    variants = "fast,pop-sp,pop-br,pop-rr4,baseline"
    sizes = ["--num-envs", "16", "--num-steps", "8", "--minibatches", "2", "--updates", "1", "--repeats", "2"]
    module.main([*sizes, "--only", variants])
    out = capsys.readouterr().out
    for name in variants.split(","):
        assert f"{name:>9}: " in out and "x baseline training speed" in out
