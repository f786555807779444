"""Shared fixtures for the LLM-layer tests: hermetic env and a fake OpenAI-compatible server."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.fake_server import FakeChatServer, fixed

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests must never see (or leak) a developer's real keys, nor reach a real provider."""
    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_API_BASE", "_TOKEN")):
            monkeypatch.delenv(name, raising=False)


FakeOpenAIServer = FakeChatServer  # the shared loopback server, answering one fixed text
PLAN_REPLY = '{"plan": "fetch_onion"}'


@pytest.fixture
def fake_openai_server() -> Iterator[FakeChatServer]:
    with FakeChatServer(delay_s=0.05, responder=fixed(PLAN_REPLY)) as server:
        yield server
