"""Fixtures for the plugged-in domain tests: a hermetic environment and the lamps loopback server.

``lamps_world`` (this folder's package) is importable by name because pytest puts this folder on
``sys.path`` (rootdir-based "prepend" import mode: the folder holds no ``__init__.py``), which is
what lets ``--domain lamps_world:DOMAIN`` import it in-process; `test_lamps_contract.py` checks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.fake_server import FakeChatServer
from tests.support.responders.lamps import lamps_answer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm must not fetch its price list


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests must never see (or leak) a developer's real keys, nor reach a real provider."""
    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_API_BASE", "_TOKEN")):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def lamps_server() -> Iterator[FakeChatServer]:
    """An OpenAI-compatible server on 127.0.0.1 that plays the lamps world sensibly."""
    with FakeChatServer(delay_s=0.0, responder=lamps_answer) as server:
        yield server
