"""A `proagent` command keeps XLA's compiled programs in the user's cache folder, per CPU; a folder
chosen by the user (or the test suite) stands; `off` and an unwritable folder leave JAX as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from proagent.compile_cache import JAX_VARIABLE, VARIABLE, cpu_tag, enable_compile_cache


def test_the_default_folder_is_the_users_cache_per_cpu(tmp_path: Path) -> None:
    environ = {"XDG_CACHE_HOME": str(tmp_path)}
    folder = enable_compile_cache(environ)
    assert folder == tmp_path / "proagent" / "xla" / cpu_tag() and folder.is_dir()
    assert environ[JAX_VARIABLE] == str(folder)
    assert cpu_tag() == cpu_tag() and len(cpu_tag().rsplit("-", 1)[1]) == 12


def test_a_folder_named_by_the_user_is_used(tmp_path: Path) -> None:
    environ = {VARIABLE: str(tmp_path / "mine")}
    assert enable_compile_cache(environ) == tmp_path / "mine"
    assert environ[JAX_VARIABLE] == str(tmp_path / "mine")


def test_off_and_a_folder_set_already_leave_the_environment_alone(tmp_path: Path) -> None:
    off = {VARIABLE: "off", "XDG_CACHE_HOME": str(tmp_path)}
    assert enable_compile_cache(off) is None and JAX_VARIABLE not in off
    chosen = {JAX_VARIABLE: "/their/own", VARIABLE: str(tmp_path)}
    assert enable_compile_cache(chosen) is None and chosen[JAX_VARIABLE] == "/their/own"
    assert not list(tmp_path.iterdir())  # nothing made


def test_an_unwritable_folder_turns_the_cache_off(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    environ = {VARIABLE: str(blocker / "xla")}
    assert enable_compile_cache(environ) is None and JAX_VARIABLE not in environ


def test_a_command_compiles_into_the_folder_before_jax_starts(tmp_path: Path) -> None:
    """The command's JAX reads the folder (it is set before JAX is imported) and writes its programs there."""
    env = {k: v for k, v in os.environ.items() if k != JAX_VARIABLE}
    env.update({VARIABLE: str(tmp_path / "xla"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"})
    code = (
        "from proagent.cli import main\n"
        "main(['layouts'])\n"
        "import jax, jax.numpy as jnp\n"
        "print(jax.config.jax_compilation_cache_dir)\n"
        "jax.jit(lambda x: x * 2 + 1)(jnp.arange(3)).block_until_ready()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == str(tmp_path / "xla")
    assert list((tmp_path / "xla").iterdir())  # the program is on disk
