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
from proagent.llm.embedded import EmbeddedModel, embedded_neighbours, thread_budget, usable_cores
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
