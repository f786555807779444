"""benchmarks/scale_out.py --quick still runs end to end and prints its ratio (no timing assertion:
the numbers are the benchmark's to report). Slow: it starts a Ray runtime and runs the grid's
`proagent eval` once locally and once on Ray, each a process of its own, about 40 s on 2 cores. A
subprocess, so that its Ray session is its own and not a test module's."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from proagent.paths import PROJECT_ROOT

pytest.importorskip("ray")


@pytest.mark.slow
def test_scale_out_quick_prints_its_numbers():
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    script = PROJECT_ROOT / "benchmarks" / "scale_out.py"
    command = [sys.executable, str(script), "--quick"]
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"\| API-bound: wall\(ray\)/wall\(local\) +\| +\d+\.\d\dx \|", done.stdout), done.stdout
    assert re.search(r"api local +median +\d+\.\d\ds", done.stdout) and re.search(r"api ray +median", done.stdout)
