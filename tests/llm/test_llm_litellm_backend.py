"""LiteLLMModel against a monkeypatched litellm.acompletion: retries, errors, redaction, schema."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from proagent.llm import LiteLLMModel, LLMConfigError, LLMError, LLMUnavailableError, Message, StructuredOutput
from proagent.llm.litellm_backend import import_litellm, is_transient

litellm = import_litellm()
exc_mod = litellm.exceptions
MSGS = [Message(role="user", content="hi")]
SECRET = "sk-proj-THISISASECRETKEY1234567890"


def _response(text: str = "hello", model: str = "gpt-4o-mini") -> Any:
    return litellm.ModelResponse(
        model=model,
        choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        usage={"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
    )


class FakeACompletion:
    """Raises the queued exceptions in order, then answers."""

    def __init__(self, failures: list[BaseException], response: Any = None) -> None:
        self.failures = list(failures)
        self.response = response if response is not None else _response()
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if self.failures:
            raise self.failures.pop(0)
        return self.response


def _model(**kwargs: Any) -> LiteLLMModel:
    return LiteLLMModel("openai/gpt-4o-mini", backoff_initial_s=0.0, backoff_max_s=0.0, **kwargs)


def _install(monkeypatch: pytest.MonkeyPatch, fake: FakeACompletion) -> FakeACompletion:
    monkeypatch.setattr(litellm, "acompletion", fake)
    return fake


TRANSIENT: list[Callable[[], BaseException]] = [
    lambda: exc_mod.RateLimitError("slow down", "openai", "gpt-4o-mini"),
    lambda: exc_mod.Timeout("timed out", "gpt-4o-mini", "openai"),
    lambda: exc_mod.APIConnectionError("conn reset", "openai", "gpt-4o-mini"),
    lambda: exc_mod.InternalServerError("500", "openai", "gpt-4o-mini"),
    lambda: exc_mod.ServiceUnavailableError("503", "openai", "gpt-4o-mini"),
    lambda: TimeoutError(),
]


@pytest.mark.parametrize("make_exc", TRANSIENT)
def test_transient_errors_are_retried(monkeypatch: pytest.MonkeyPatch, make_exc: Callable[[], BaseException]) -> None:
    fake = _install(monkeypatch, FakeACompletion([make_exc(), make_exc()]))
    completion = asyncio.run(_model().generate(MSGS))
    assert completion.text == "hello" and len(fake.calls) == 3
    assert (completion.prompt_tokens, completion.completion_tokens) == (11, 4)
    assert completion.cost_usd is not None and completion.cost_usd > 0  # gpt-4o-mini is in litellm's price map


def test_gives_up_after_max_retries_with_redacted_message(monkeypatch: pytest.MonkeyPatch) -> None:
    failures = [exc_mod.RateLimitError(f"quota for key {SECRET}", "openai", "gpt-4o-mini") for _ in range(10)]
    fake = _install(monkeypatch, FakeACompletion(failures))
    with pytest.raises(LLMUnavailableError) as info:
        asyncio.run(_model(max_retries=2).generate(MSGS))
    assert len(fake.calls) == 3 and info.value.attempts == 3
    assert "quota for key" in info.value.provider_message
    _assert_no_secret(info.value)


@pytest.mark.parametrize(
    ("make_exc", "expected"),
    [
        (lambda: exc_mod.AuthenticationError(f"Incorrect API key provided: {SECRET}", "openai", "gpt-4o-mini"), LLMConfigError),
        (lambda: exc_mod.NotFoundError("model does not exist", "gpt-4o-mini", "openai"), LLMConfigError),
        (lambda: exc_mod.BadRequestError(f"bad param, Authorization: Bearer {SECRET}", "gpt-4o-mini", "openai"), LLMError),
        (lambda: exc_mod.ContextWindowExceededError("too long", "gpt-4o-mini", "openai"), LLMError),
    ],
)
def test_permanent_errors_fail_at_once(
    monkeypatch: pytest.MonkeyPatch, make_exc: Callable[[], BaseException], expected: type[Exception]
) -> None:
    fake = _install(monkeypatch, FakeACompletion([make_exc()]))
    with pytest.raises(expected) as info:
        asyncio.run(_model().generate(MSGS))
    assert len(fake.calls) == 1
    assert not isinstance(info.value, LLMUnavailableError)
    _assert_no_secret(info.value)


def test_auth_error_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    _install(monkeypatch, FakeACompletion([exc_mod.AuthenticationError(f"bad key {SECRET}", "openai", "m")]))
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY") as info:
        asyncio.run(_model().generate(MSGS))
    _assert_no_secret(info.value)


def test_explicit_api_key_is_redacted_everywhere(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    key = "plainlookingkey-0123456789"  # no known key shape: only the extra_secrets path catches it
    failures: list[BaseException] = [exc_mod.InternalServerError(f"upstream saw {key}", "openai", "m") for _ in range(3)]
    fake = _install(monkeypatch, FakeACompletion(failures))
    model = _model(api_key=key, max_retries=1)
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMUnavailableError) as info:
        asyncio.run(model.generate(MSGS))
    assert fake.calls[0]["api_key"] == key  # it is sent to the provider ...
    _assert_no_secret(info.value, key)  # ... and nowhere else
    assert key not in caplog.text and "retrying" in caplog.text
    assert key not in repr(model)


def test_is_transient_classification() -> None:
    assert is_transient(exc_mod.APIError(502, "bad gateway", "openai", "m"))
    assert not is_transient(exc_mod.APIError(400, "bad", "openai", "m"))
    assert not is_transient(ValueError("x"))
    assert is_transient(ConnectionResetError())


def test_request_shape_and_no_double_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _install(monkeypatch, FakeACompletion([]))
    asyncio.run(_model(timeout_s=7).generate(MSGS, max_tokens=12, temperature=0.3, seed=5))
    (call,) = fake.calls
    assert call["messages"] == [{"role": "user", "content": "hi"}]
    assert (call["max_tokens"], call["temperature"], call["seed"], call["timeout"]) == (12, 0.3, 5, 7)
    assert call["num_retries"] == 0 and call["max_retries"] == 0  # tenacity owns retries
    assert "api_key" not in call and "api_base" not in call and "response_format" not in call


def test_structured_uses_json_schema_when_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = StructuredOutput(name="plan", json_schema={"type": "object", "properties": {"plan": {"enum": ["a"]}}})
    fake = _install(monkeypatch, FakeACompletion([]))
    asyncio.run(_model().generate(MSGS, structured=schema))
    fmt = fake.calls[0]["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "plan", "schema": schema.json_schema}}


def test_structured_falls_back_to_text_for_unknown_models(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = StructuredOutput(name="plan", json_schema={"type": "object"})
    fake = _install(monkeypatch, FakeACompletion([], response=_response(model="my-local")))
    model = LiteLLMModel("openai/my-local", api_base="http://127.0.0.1:9/v1")
    completion = asyncio.run(model.generate(MSGS, structured=schema))
    assert "response_format" not in fake.calls[0]
    assert fake.calls[0]["api_key"] == "sk-no-key-required"  # local servers need no key
    assert completion.cost_usd is None  # custom api_base: public prices do not apply
    forced = LiteLLMModel("openai/my-local", api_base="http://127.0.0.1:9/v1", response_schema=True)
    asyncio.run(forced.generate(MSGS, structured=schema))
    assert "response_format" in fake.calls[1]


def _assert_no_secret(err: BaseException, secret: str = SECRET) -> None:
    rendered = "".join(traceback.format_exception(err))
    assert secret not in str(err) and secret not in repr(err) and secret not in rendered
    assert err.__cause__ is None and err.__context__ is None
    for value in vars(err).values():
        assert secret not in str(value)
