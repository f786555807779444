"""Hostile answers at the model boundary: each becomes a clean Completion or a typed,
one-line LLMError, quickly, and every retry is honoured, logged on one line and counted.

All traffic goes to the fake OpenAI-compatible server on 127.0.0.1. New names are reached through
their modules (``llm.X``) so that, run against the code before this change, each test fails on its
own behaviour rather than all of them on one import.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from proagent import llm
from proagent.llm.cache import CachedModel
from proagent.llm.litellm_backend import LiteLLMModel
from proagent.llm.types import Completion, LLMConfigError, LLMError, Message
from tests.support import fake_server
from tests.support.fake_server import FakeChatServer, fixed
from tests.support.scripted import ScriptedModel

MSGS = [Message(role="system", content="You are a chef."), Message(role="user", content="Plan?")]
LOGGER = "proagent.llm.litellm_backend"


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(responder=fixed("Plan: pickup(onion)")) as srv:
        yield srv


def _model(srv: FakeChatServer, **kwargs: Any) -> LiteLLMModel:
    options: dict[str, Any] = dict(timeout_s=10, max_retries=3, backoff_initial_s=0.01, backoff_max_s=0.02)
    options.update(kwargs)
    return LiteLLMModel("openai/fake-local", api_base=srv.url, **options)


def _envelope(content: Any = "ok", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "fake-local",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }
    body.update(overrides)
    return body


def _generate(model: Any, messages: list[Message] = MSGS) -> Completion:
    return asyncio.run(model.generate(messages))


def _assert_one_line(err: BaseException) -> None:
    text = str(err)
    assert "\n" not in text and "Traceback" not in text and len(text) < 800, text
    assert err.__cause__ is None and err.__context__ is None
    assert "Traceback" not in "".join(traceback.format_exception_only(err))


def _retry_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and "retrying" in r.getMessage()]


# ---- lone surrogates -----------------------------------------------------------------------------


def test_lone_surrogate_with_the_cache_is_stored_and_replays(server: FakeChatServer, tmp_path: Path) -> None:
    server.responder = lambda body: "Plan: pickup(onion) \ud83d"  # sent as the JSON escape \ud83d
    first = _generate(CachedModel(_model(server), tmp_path))
    assert first.text == "Plan: pickup(onion) \ufffd"
    assert "lone_surrogates" in first.anomalies
    (entry,) = tmp_path.rglob("*.json")
    assert json.loads(entry.read_text(encoding="utf-8"))["completion"]["text"] == first.text
    replayed = _generate(CachedModel(ScriptedModel([], name="openai/fake-local"), tmp_path))  # raises if asked
    assert replayed.text == first.text and replayed.cached and replayed.retries == 0
    assert len(server.requests) == 1


def test_lone_surrogate_without_cache_does_not_poison_the_next_prompt(server: FakeChatServer) -> None:
    server.responder = lambda body: "I dropped it \ud83d"
    model = _model(server, max_retries=2)
    first = _generate(model)
    started = time.perf_counter()
    follow_up = [*MSGS, Message(role="assistant", content=first.text), Message(role="user", content="And now?")]
    second = _generate(model, follow_up)
    assert time.perf_counter() - started < 5 and second.retries == 0
    assert len(server.requests) == 2  # no retries of a request that could never be encoded
    assert server.requests[1]["body"]["messages"][2]["content"] == "I dropped it \ufffd"


def test_a_prompt_that_cannot_be_encoded_fails_at_once_as_permanent(server: FakeChatServer, tmp_path: Path) -> None:
    bad = [Message(role="user", content="half an emoji \ud83d")]
    for model in (_model(server), CachedModel(_model(server), tmp_path)):
        with pytest.raises(LLMError) as info:
            _generate(model, bad)
        assert server.requests == []
        _assert_one_line(info.value)
        assert isinstance(info.value, llm.LLMRequestError) and not isinstance(info.value, llm.LLMUnavailableError)


def test_an_encoding_failure_inside_the_client_is_not_transient() -> None:
    from proagent.llm.litellm_backend import import_litellm, is_transient

    exc = import_litellm().exceptions.InternalServerError("'utf-8' codec can't encode", "openai", "m")
    exc.__cause__ = UnicodeEncodeError("utf-8", "\ud83d", 0, 1, "surrogates not allowed")
    assert not is_transient(exc)  # litellm reports it as a 500; resending the same bytes cannot help


def test_embedded_answers_are_cleaned_too() -> None:
    class FakeLlama:  # what llama.cpp hands back, without loading a model
        def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
            text = "Plan: wait(1)\x00\x07 \ud83d"
            return {"choices": [{"message": {"content": text}, "finish_reason": "length"}], "usage": {}}

    model = llm.EmbeddedModel(Path("fake.gguf"))
    model._llama = FakeLlama()
    completion = _generate(model)
    assert completion.text == "Plan: wait(1) \ufffd" and completion.model == "embedded/fake"
    assert set(completion.anomalies) == {"lone_surrogates", "control_chars"}


def test_sanitize_text_rules() -> None:
    clean, notes = llm.sanitize_text("a\x00b\x1bc\r\nd\re\tf\u0085g\ud83d\ude00h\udc00")
    assert clean == "abc\nd\ne\tfg\U0001f600h\ufffd"
    assert notes == ["lone_surrogates", "control_chars"]
    assert llm.sanitize_text(clean) == (clean, [])  # idempotent: a cache entry read back is unchanged
    long, notes = llm.sanitize_text("x" * 50, max_chars=10)
    assert long == "x" * 10 and notes == ["truncated:50"]
    huge = Completion(text="y" * 200_000, model="m", prompt_tokens=0, completion_tokens=0, latency_s=0.0)
    assert len(huge.text) <= 32_000 and huge.anomalies == ("truncated:200000",)


# ---- malformed envelopes -------------------------------------------------------------------------


def test_empty_choices_is_a_typed_error_retried_once(server: FakeChatServer, caplog: pytest.LogCaptureFixture) -> None:
    server.replies = [(200, _envelope(choices=[]))] * 5
    with caplog.at_level(logging.WARNING), pytest.raises(LLMError) as info:
        _generate(_model(server))
    assert len(server.requests) == 2 and len(_retry_lines(caplog)) == 1
    _assert_one_line(info.value)
    assert isinstance(info.value, llm.LLMResponseError) and info.value.attempts == 2
    assert '"choices": []' in info.value.excerpt and "no choices" in str(info.value)


def test_missing_choices_is_the_same_typed_error(server: FakeChatServer) -> None:
    body = _envelope()
    del body["choices"]
    server.replies = [(200, body)] * 5
    with pytest.raises(LLMError) as info:
        _generate(_model(server))
    assert len(server.requests) == 2  # was retried like a server failure
    _assert_one_line(info.value)
    assert isinstance(info.value, llm.LLMResponseError)


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (_envelope(content=123), '"content": 123'),
        (_envelope(content=[{"type": "text", "text": "hi"}]), '"content": [{"type": "text"'),
        (_envelope(usage={"prompt_tokens": "lots", "completion_tokens": 1.5}), '"prompt_tokens": "lots"'),
        (b"<html>502 from the proxy</html>", "not JSON): <html>502 from the proxy</html>"),
    ],
    ids=["int-content", "list-content", "text-usage", "not-json"],
)
def test_unreadable_answers_are_one_line_typed_errors(
    server: FakeChatServer, caplog: pytest.LogCaptureFixture, body: Any, shown: str
) -> None:
    server.replies = [fake_server.Reply(200, body)] * 5
    with caplog.at_level(logging.WARNING), pytest.raises(LLMError) as info:
        _generate(_model(server))
    assert len(server.requests) == 2  # retried once, not like a server failure
    _assert_one_line(info.value)
    (line,) = _retry_lines(caplog)  # litellm's text for these holds a whole traceback
    assert "\n" not in line and "Traceback" not in line and len(line) < 400
    assert isinstance(info.value, llm.LLMResponseError) and shown in str(info.value)


def test_a_5xx_error_page_that_is_not_json_stays_transient(server: FakeChatServer) -> None:
    server.replies = [fake_server.Reply(502, b"<html>bad gateway</html>")] * 2
    completion = _generate(_model(server))
    assert completion.retries == 2 and len(server.requests) == 3


def test_negative_usage_is_clamped_and_noted(server: FakeChatServer) -> None:
    server.replies = [(200, _envelope(usage={"prompt_tokens": -5, "completion_tokens": -1, "total_tokens": -6}))]
    completion = _generate(_model(server))
    assert completion.text == "ok" and (completion.prompt_tokens, completion.completion_tokens) == (0, 0)
    assert "usage_clamped" in completion.anomalies


def test_null_content_is_empty_text_and_noted(server: FakeChatServer) -> None:
    server.replies = [(200, _envelope(content=None))]
    completion = _generate(_model(server))
    assert completion.text == "" and completion.anomalies == ("null_content",)
    assert len(server.requests) == 1


def test_a_secret_in_a_malformed_answer_is_redacted(server: FakeChatServer) -> None:
    secret = "sk-proj-LEAKEDLEAKEDLEAKED0123456789"
    server.replies = [(200, _envelope(content={"echo": f"Authorization: Bearer {secret}"}))] * 3
    with pytest.raises(LLMError) as info:
        _generate(_model(server))
    assert secret not in str(info.value) and secret not in info.value.excerpt


# ---- retries: Retry-After, timeouts, counting ----------------------------------------------------


def test_429_with_retry_after_is_waited_for_and_counted(server: FakeChatServer, caplog: pytest.LogCaptureFixture) -> None:
    server.replies = [fake_server.Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})]
    metered = llm.MeteredModel(_model(server))
    with caplog.at_level(logging.WARNING):
        completion = _generate(metered)
    first, second = server.requests
    assert 0.95 <= second["time"] - first["time"] < 3.0  # backoff alone would have waited ~0.01 s
    assert completion.retries == 1 and completion.retry_causes == ("RateLimitError",)
    assert metered.meter.summary().retries == 1
    (line,) = _retry_lines(caplog)
    assert "RateLimitError" in line and "Retry-After" in line and "\n" not in line


def test_retry_after_is_capped(server: FakeChatServer) -> None:
    server.replies = [fake_server.Reply(503, {"error": {"message": "busy"}}, headers={"Retry-After": "3600"})]
    started = time.perf_counter()
    completion = _generate(_model(server, retry_after_max_s=0.2))
    assert time.perf_counter() - started < 5 and completion.retries == 1


def test_parse_retry_after_seconds_and_http_date() -> None:
    from proagent.llm.faults import parse_retry_after

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(format_datetime(now.replace(second=30), usegmt=True), now=now.timestamp()) == 30.0
    assert parse_retry_after(format_datetime(now.replace(hour=11), usegmt=True), now=now.timestamp()) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after("nan") is None


def test_timeout_is_configurable_retried_and_counted(server: FakeChatServer) -> None:
    server.replies = [fake_server.Reply(delay_s=1.5)]  # the normal answer, too late for timeout_s=0.5
    started = time.perf_counter()
    completion = _generate(_model(server, timeout_s=0.5))
    assert time.perf_counter() - started < 1.4  # it did not wait for the slow answer
    assert completion.text == "Plan: pickup(onion)" and len(server.requests) == 2
    assert completion.retries == 1 and completion.retry_causes == ("Timeout",)


def test_make_model_passes_the_timeout(server: FakeChatServer) -> None:
    model = llm.make_model("openai/fake-local", api_base=server.url, timeout_s=0.5)
    assert isinstance(model, LiteLLMModel) and model.timeout_s == 0.5
    assert llm.make_model("openai/fake-local", api_base=server.url).timeout_s == 60.0
    with pytest.raises(LLMConfigError, match="timeout"):
        llm.make_model("openai/fake-local", api_base=server.url, timeout_s=0)


def test_cache_hits_report_no_retries(server: FakeChatServer, tmp_path: Path) -> None:
    server.replies = [(503, {"error": {"message": "busy"}})]
    model = CachedModel(_model(server), tmp_path)
    assert _generate(model).retries == 1
    assert _generate(model).retries == 0 and len(server.requests) == 2


# ---- configuration -------------------------------------------------------------------------------


@pytest.mark.parametrize("base", ["not-a-url", "127.0.0.1:8000/v1", "ftp://user:hunter22@host/v1?token=abc123", "http://"])
def test_an_api_base_that_is_not_an_http_url_fails_at_once(base: str) -> None:
    started = time.perf_counter()
    with pytest.raises(LLMConfigError, match="not an http") as info:
        llm.make_model("openai/fake-local", api_base=base)
    assert time.perf_counter() - started < 2
    message = str(info.value)
    assert "hunter22" not in message and "abc123" not in message
    if base == "not-a-url":
        assert "'not-a-url'" in message
