"""Suite-wide setup: JAX's persistent compilation cache (at the repository root, not in tests/: a
conftest there would put tests/ on sys.path, where tests/envs would shadow the envs package).

Most of this suite's time is XLA compiling small programs (tiny PPO updates, env steps for each
layout), and many tests compile the same program behind a different Python closure, which JAX's
in-memory cache does not recognise. The persistent cache keys on the compiled program itself, so a
repeat is a disk read: tests/training on a warm cache takes ~1 min instead of ~3.5. The slow CI
step reuses what the default step compiled, and a developer's second run is fast.

It lives in the checkout's git-ignored ``.cache/jax-tests`` (``PROAGENT_TEST_JAX_CACHE`` moves it;
``off`` disables it). JAX keys entries by program, compile options, device and jax/jaxlib version,
so a stale entry is never used; results are bit-identical either way (the golden runs check).
A whole run writes about 15 MB; entries of programs the code no longer builds stay until the folder
is deleted (JAX's size cap, ``jax_compilation_cache_max_size``, switches to an LRU layout that
fails on a folder written without it, so it is not set here).

The suite also compiles with XLA's light optimisation (``jax_disable_most_optimizations``): the
suite's programs are tiny and run once or twice, so XLA's optimisation passes cost more than they
save (the slow step's training tests take ~30% less CPU). It also turns off XLA:CPU's fusion emitters
(``--xla_cpu_use_fusion_emitters=false`` in ``XLA_FLAGS``): fusions are then emitted by XLA's older
elemental emitter, which compiles about 40% faster (two compile-heavy modules, cold cache, one
process: 41-45 s of XLA compilation before, 24-26 s after; the default step on a cold cache, 1,064 s
before, 872 s after, on 2 cores). On a clean checkout, as in CI, the default step spent more than a
third of its time in XLA compiling.

Tests compare two programs built under the same setting, or discrete outcomes (scores, calls,
decisions: the golden runs pass either way). A test that compares two different programs bit for
bit is marked ``product_compile`` and runs in a child process compiled as the product compiles
(`pytest_pyfunc_call` below): under the older emitter the population trainer and plain PPO round
one loss apart in its last digits. ``PROAGENT_TEST_XLA_OPT=full`` runs the whole suite with XLA's
default optimisation and emitters.

These settings also go into the environment (``XLA_FLAGS``, and ``JAX_...`` variables, which JAX reads
when it is imported), so the child processes some tests start compile the same way and share the cache.

The suite runs in one process per core plus one (pytest-xdist, ``-n auto`` in pyproject.toml): most
tests keep one core busy (XLA compiles on one thread), but many also wait (on a child process, a
served model, a Ray runtime, a double that answers late), and one process per core leaves that core
idle meanwhile: on 2 cores, 3 processes ran the default suite on a cold compilation cache with the
cores 99 % busy (whole-machine CPU time over wall time). The processes share the compilation cache (an entry
read while another process writes it is a miss, not an error: JAX compiles again). More than
``_MAX_WORKERS`` processes would each hold JAX, a served model or a Ray runtime for little gain, so
``auto`` stops there; ``-n 0`` runs in one process.
"""

from __future__ import annotations

import os
import sys


def _pin_this_worker() -> None:
    """A test process of ``-n N`` runs on its own share of the cores (worker i on cores i, i+N, ...),
    set before JAX starts its thread pools: XLA's and llama.cpp's threads size themselves to the
    cores a process may use, and two processes each running two busy-waiting llama.cpp threads on
    two cores take several times as long as each on its own core."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER"), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if worker is None or count < 2 or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= count:
        os.sched_setaffinity(0, cores[int(worker.removeprefix("gw")) % count :: count])


_pin_this_worker()


def _keep_bytecode() -> None:
    """Compiled byte-code (pytest's assertion-rewritten test modules, the project's modules) is written
    to the usual, git-ignored ``__pycache__`` folders and read back by every later process, even where
    the shell sets ``PYTHONDONTWRITEBYTECODE`` (as CI machines may): otherwise each test process, each
    ``proagent`` command a test starts and each Ray worker compiles every module again. Collecting the
    suite took ~27 s a process without it, ~15 s with it (3 processes a step, 2 steps in CI). Python's
    own setting stays untouched with ``PROAGENT_TEST_PYCACHE=off``."""
    if os.environ.get("PROAGENT_TEST_PYCACHE") == "off":
        return
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the processes tests start inherit it
    sys.dont_write_bytecode = False


_keep_bytecode()

_LIGHT_XLA = os.environ.get("PROAGENT_TEST_XLA_OPT", "light") != "full"
_FAST_COMPILE_FLAG = "--xla_cpu_use_fusion_emitters=false"
# set before JAX starts its backend (XLA reads XLA_FLAGS once); child processes inherit it, and a child
# asked to compile as the product does (`product_compile` below) drops it again
_other_flags = [flag for flag in os.environ.get("XLA_FLAGS", "").split() if flag != _FAST_COMPILE_FLAG]
os.environ["XLA_FLAGS"] = " ".join([*_other_flags, _FAST_COMPILE_FLAG] if _LIGHT_XLA else _other_flags)

import subprocess

import jax  # (after the pinning: JAX sizes its thread pools to this process's cores)
import pytest

from proagent.llm.embedded import usable_cores
from proagent.paths import PROJECT_ROOT

_SETTINGS: dict[str, str | float | int | bool] = {}
_where = os.environ.get("PROAGENT_TEST_JAX_CACHE", str(PROJECT_ROOT / ".cache" / "jax-tests"))
if _where == "off":
    os.environ["PROAGENT_COMPILE_CACHE"] = "off"  # the commands tests run keep off the user's cache too
else:
    _SETTINGS["jax_compilation_cache_dir"] = _where
    _SETTINGS["jax_persistent_cache_min_compile_time_secs"] = 0.0  # tiny test programs count too
    _SETTINGS["jax_persistent_cache_min_entry_size_bytes"] = 0
if _LIGHT_XLA:
    _SETTINGS["jax_disable_most_optimizations"] = True

for _name, _value in _SETTINGS.items():
    jax.config.update(_name, _value)
    # JAX reads JAX_... variables when it is imported: the processes tests start (a `proagent` command
    # in a child, Ray's workers) compile the same way and share the cache
    os.environ[_name.upper()] = str(int(_value)) if isinstance(_value, bool) else str(_value)


# Ray starts its worker processes at niceness 15 (its `worker_niceness` default), so that a driver
# stays responsive. Beside the suite's other processes (XLA compiling at niceness 0) that starves
# every Ray actor: tests/eval/test_ray_executor.py took 447 s beside two busy processes (72 s alone)
# for the same CPU time, the driver waiting on its actors. At 0 it took 112 s under the same load.
# The suite's Ray runtimes (and the commands tests start) read it from the environment.
os.environ.setdefault("RAY_worker_niceness", "0")


_MAX_WORKERS = 6


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one process per core this run may use, and one more, at most ``_MAX_WORKERS``."""
    return min(usable_cores() + 1, _MAX_WORKERS)


# The modules that take longest (minutes on 2 cores: Ray runtimes, whole reproduce targets, disk-full
# runs, embedded-model runs, training), measured with ``pytest --durations=0``. xdist hands out
# modules (``--dist loadscope``) and tests (``--dist worksteal``, the slow step) in collection order,
# so these go first: a long module started last keeps one worker busy while the other idles at the
# end (longest-first scheduling). The order changes no test's outcome.
_LONG_FIRST = (
    "tests/eval/test_ray_executor.py",
    "tests/cli/test_main_job_benchmark.py",
    "tests/cli/test_golden_runs.py",
    "tests/agent/test_agent_embedded.py",
    "tests/training/test_resume.py",
    "tests/study/test_study_synth_full.py",
    "tests/llm/test_llm_hostile_run.py",
    "tests/eval/test_ray_multinode.py",
    "tests/cli/test_reproduce.py",
    "tests/eval/test_reproduce_tables.py",
    "tests/cli/test_full_disk.py",
    "tests/training/test_rl_partner.py",
    "tests/domains/test_macrafter_play.py",
    "tests/domains/test_yokai_rl.py",
    "tests/llm/test_llm_embedded.py",
    "tests/cli/test_play_e2e.py",
    "tests/training/test_side_by_side.py",
    "tests/training/test_sweep.py",
    "tests/training/test_train_benchmark.py",
    "tests/eval/test_table_resume.py",
    "tests/cli/test_world_defaults.py",
    "tests/envs/test_macrafter_equivalence.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest modules first (`_LONG_FIRST`), the rest in their usual order."""
    rank = {path: i for i, path in enumerate(_LONG_FIRST)}

    def key(item: pytest.Item) -> int:
        return rank.get(item.nodeid.split("::", 1)[0], len(rank))

    items.sort(key=key)  # stable: within a module, and among the rest, the collection order stays


# A test that compares two different programs bit for bit (the population trainer against plain PPO)
# makes a claim about the programs the product compiles; the suite's lighter compilation may round
# them apart. Marked `product_compile`, it runs in a child process compiled as the product compiles
# (``PROAGENT_TEST_XLA_OPT=full``). Its fixtures are still built here, where other tests share them.
@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not _LIGHT_XLA or pyfuncitem.get_closest_marker("product_compile") is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["PROAGENT_TEST_XLA_OPT"] = "full"
    env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "0"
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-m", "product_compile"]
    done = subprocess.run(
        [*command, pyfuncitem.nodeid], check=False, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.fail(f"as the product compiles:\n{done.stdout[-4000:]}{done.stderr[-2000:]}", pytrace=False)
    return True
