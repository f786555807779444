"""Two embedded models loading at once (an eval with two adapters, concurrency 2) leave the
process's stdout and stderr as they were. llama-cpp-python silences both while a model loads by
swapping them; two overlapping swaps restore each other's silenced streams, and every later line
of the run vanished. Loads take turns (`one_llama_load`).

The double below stands for ``llama_cpp.Llama``: it silences the streams with llama-cpp-python's
own helper for as long as a real load takes, so the overlap is certain, not left to timing."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("llama_cpp")
from llama_cpp._utils import suppress_stdout_stderr

from proagent.llm import embedded


class SlowLoad:
    """A model whose load keeps the streams swapped for 0.3 s, as llama.cpp's does while it reads weights."""

    started = threading.Event()

    def __init__(self, **params: object) -> None:
        with suppress_stdout_stderr(disable=False):
            SlowLoad.started.set()
            time.sleep(0.3)

    def set_cache(self, cache: object) -> None:
        """The state cache is not under test."""


def test_two_models_loading_at_once_leave_the_streams_as_they_found_them(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(embedded, "import_llama_cpp", lambda: SimpleNamespace(Llama=SlowLoad))
    before = (sys.stdout, sys.stderr)
    models = [embedded.EmbeddedModel(tmp_path / f"m{i}.gguf", n_threads=1, state_cache_mb=0) for i in range(2)]
    first = threading.Thread(target=lambda: models[0].llama)
    first.start()
    assert SlowLoad.started.wait(5)  # the first load has silenced the streams: the second starts inside it
    second = threading.Thread(target=lambda: models[1].llama)
    second.start()
    first.join(10)
    second.join(10)
    assert (sys.stdout, sys.stderr) == before
