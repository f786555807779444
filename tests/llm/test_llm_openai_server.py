"""LiteLLMModel over real HTTP to a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from proagent.llm import (
    CachedModel,
    LiteLLMModel,
    LLMConfigError,
    LLMUnavailableError,
    Message,
    MeteredModel,
    StructuredOutput,
)

if TYPE_CHECKING:  # the fixture's type; never imported at run time (conftest names can clash)
    from conftest import FakeOpenAIServer

MSGS = [Message(role="system", content="You are a chef."), Message(role="user", content="Plan?")]


def _model(server: FakeOpenAIServer, max_retries: int = 5) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/fake-local",
        api_base=server.url,
        timeout_s=10,
        max_retries=max_retries,
        backoff_initial_s=0.01,
        backoff_max_s=0.02,
    )


def test_round_trip_tokens_and_latency(fake_openai_server: FakeOpenAIServer) -> None:
    metered = MeteredModel(_model(fake_openai_server))
    completion = asyncio.run(metered.generate(MSGS, max_tokens=20, seed=4))
    assert completion.text == '{"plan": "fetch_onion"}'
    assert (completion.prompt_tokens, completion.completion_tokens) == (42, 7)
    assert completion.latency_s >= fake_openai_server.delay_s
    assert completion.cost_usd is None and not completion.cached
    (request,) = fake_openai_server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "fake-local"
    assert request["body"]["messages"][0] == {"role": "system", "content": "You are a chef."}
    assert request["body"]["max_tokens"] == 20 and request["body"]["seed"] == 4
    assert request["authorization"] == "Bearer sk-no-key-required"
    summary = metered.meter.summary()
    assert (summary.calls, summary.prompt_tokens, summary.completion_tokens) == (1, 42, 7)
    assert summary.total_latency_s == completion.latency_s and summary.calls_without_cost == 1


def test_5xx_then_success_is_retried_once_per_failure(fake_openai_server: FakeOpenAIServer) -> None:
    fake_openai_server.replies = [(503, {"error": {"message": "overloaded"}}), (500, {"error": {"message": "oops"}})]
    completion = asyncio.run(_model(fake_openai_server).generate(MSGS))
    assert completion.prompt_tokens == 42
    assert len(fake_openai_server.requests) == 3  # no hidden SDK retries on top of ours


def test_persistent_429_gives_unavailable(fake_openai_server: FakeOpenAIServer) -> None:
    fake_openai_server.replies = [(429, {"error": {"message": "rate limited"}})] * 3
    with pytest.raises(LLMUnavailableError) as info:
        asyncio.run(_model(fake_openai_server, max_retries=2).generate(MSGS))
    assert info.value.attempts == 3 and len(fake_openai_server.requests) == 3


def test_401_fails_at_once_without_leaking_key(fake_openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-SECRETSECRETSECRET0001"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    fake_openai_server.replies = [(401, {"error": {"message": f"Incorrect API key provided: {secret}", "code": "invalid_api_key"}})]
    with pytest.raises(LLMConfigError) as info:
        asyncio.run(_model(fake_openai_server).generate(MSGS))
    assert len(fake_openai_server.requests) == 1
    assert fake_openai_server.requests[0]["authorization"] == f"Bearer {secret}"  # env key is used when set
    rendered = "".join(traceback.format_exception(info.value))
    assert secret not in rendered and "OPENAI_API_KEY" in str(info.value)


def test_cached_replay_over_http(fake_openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    schema = StructuredOutput(name="plan", json_schema={"type": "object", "properties": {"plan": {"type": "string"}}})
    model = CachedModel(_model(fake_openai_server), tmp_path)
    first = asyncio.run(model.generate(MSGS, structured=schema))
    fake_openai_server.responder = lambda body: "something else"
    second = asyncio.run(model.generate(MSGS, structured=schema))
    assert second.text == first.text and second.cached and second.latency_s == 0.0
    assert len(fake_openai_server.requests) == 1
