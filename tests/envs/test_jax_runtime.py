"""Importing envs turns CPU async dispatch off (see envs/jax_runtime.py for the hang it avoids)."""

from __future__ import annotations

import subprocess
import sys


def test_importing_envs_turns_cpu_async_dispatch_off_before_the_backend_starts():
    code = (
        "import jax, envs, jax.numpy as jnp\n"
        "assert jax.config.read('jax_cpu_enable_async_dispatch') is False\n"
        "print(int(jnp.arange(3).sum()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"
