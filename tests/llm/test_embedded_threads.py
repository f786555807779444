"""The embedded model's llama.cpp threads: sized to the cores this process may use that other work
leaves free, shared with the other processes running an embedded model, and set with `--threads N`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from proagent.builder import LLMFlags, SetupError, prepare_llm
from proagent.cli import build_parser
from proagent.cli.requests import llm_flags
from proagent.domains import get_domain
from proagent.llm import embedded
from proagent.llm.embedded import EmbeddedModel, busy_elsewhere, embedded_neighbours, thread_budget, usable_cores
from proagent.llm.factory import make_model
from proagent.llm.types import LLMConfigError


def test_a_busy_machine_leaves_the_model_the_free_cores_and_never_none(monkeypatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    cores = usable_cores()
    machine = max(cores, os.cpu_count() or cores)
    assert thread_budget(load=0.0) == cores  # an idle machine: every core it may use
    assert thread_budget(load=float(machine)) == 1  # every core busy: one thread, not a spinning crowd
    assert thread_budget(load=0.0, neighbours=cores) == 1
    assert thread_budget(load=0.0, neighbours=2) == max(1, cores // 2)


def test_this_processes_own_work_is_not_counted_as_a_busy_machine(monkeypatch) -> None:
    """The cores busy elsewhere are the machine's busy time less this process's own over the window:
    a model loading in a process that was busy starting up (or right after an install that kept
    every core busy a minute ago, which the load average still shows) gets the free cores."""
    ticks = os.sysconf("SC_CLK_TCK")
    machine = iter([1000, 1000 + ticks // 2])  # half a core-second of busy time in the window...
    own = iter([300, 300 + ticks // 2])  # ...all of it this process's
    monkeypatch.setattr(embedded, "_busy_ticks", lambda: next(machine))
    monkeypatch.setattr(embedded, "_own_ticks", lambda: next(own))
    assert busy_elsewhere(window_s=0.5) == 0.0
    machine, own = iter([0, 2 * ticks]), iter([0, 0])  # two cores busy for a second, none of it ours
    assert busy_elsewhere(window_s=1.0) == pytest.approx(2.0)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(embedded, "busy_elsewhere", lambda: 0.0)
    monkeypatch.setattr(os, "getloadavg", lambda: (64.0, 64.0, 64.0))  # a minute-old crowd, gone now
    assert thread_budget() == usable_cores()


def test_busy_elsewhere_reads_this_machine() -> None:
    busy = busy_elsewhere()  # the tick counts are coarse (1/100 s): a loose bound over a short window
    assert busy is None or 0.0 <= busy <= 2 * (os.cpu_count() or 1)


def test_a_ray_workers_cpu_share_caps_the_threads(monkeypatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert thread_budget(load=0.0) == 1


def test_processes_running_an_embedded_model_count_each_other_and_forget_the_gone(tmp_path: Path) -> None:
    assert embedded_neighbours(tmp_path) == 1 and (tmp_path / str(os.getpid())).exists()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    (tmp_path / gone.stdout.strip()).touch()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / str(live.pid)).touch()
        assert embedded_neighbours(tmp_path) == 2 and not (tmp_path / gone.stdout.strip()).exists()
    finally:
        live.kill()
        live.wait()


def test_threads_flag_reaches_the_model_and_is_refused_for_other_models() -> None:
    args = build_parser().parse_args(["play", "--threads", "1"])
    assert args.threads == 1 and llm_flags(args).threads == 1
    model = make_model("embedded", threads=1)
    assert isinstance(model, EmbeddedModel) and model.threads == 1
    with pytest.raises(LLMConfigError, match="--threads applies to the embedded model"):
        make_model("python:tests.support.scripted:scripted_model", threads=2)
    domain = get_domain("cube")
    with pytest.raises(SetupError, match="--threads"):
        prepare_llm(LLMFlags(llm="openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1", threads=2), domain,
                    domain.make_env("easy_2a", 4), [0], 0)  # fmt: skip
