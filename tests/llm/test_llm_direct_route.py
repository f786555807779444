"""The direct route to a local server answers exactly as litellm does: same requests on the wire,
same Completions, same typed errors, same retries.

Each scenario runs twice against the fake server: on a fresh model (its first request goes
through litellm) and on a model whose first plain request let the route check litellm's request
(so the scenario's requests go direct). Everything but latency must agree.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from proagent.llm.direct import DirectRoute
from proagent.llm.litellm_backend import LiteLLMModel
from proagent.llm.types import Completion, LLMError, Message, StructuredOutput
from tests.support import fake_server
from tests.support.fake_server import FakeChatServer, fixed

MSGS = [Message(role="system", content="You are a chef. é ✓"), Message(role="user", content='Plan? "quoted"\n')]
SCHEMA = StructuredOutput(name="plan", json_schema={"type": "object", "properties": {"plan": {"type": "string"}}})


def _envelope(content: Any = "ok", finish: Any = "stop", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "served-name",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }
    body.update(overrides)
    return body


SCENARIOS: dict[str, list[Any]] = {
    "plain": [(200, _envelope("Plan: pickup(onion)"))],
    "length": [(200, _envelope("Plan: pick", finish="length"))],
    "unmapped-finish": [(200, _envelope("hi", finish="eos"))],
    "null-content": [(200, _envelope(None))],
    "think-tags": [(200, _envelope("<think>hmm</think>Plan: wait(1)"))],
    "negative-usage": [(200, _envelope(usage={"prompt_tokens": -5, "completion_tokens": 2, "total_tokens": -3}))],
    "float-usage": [(200, _envelope(usage={"prompt_tokens": 5.0, "completion_tokens": 2, "total_tokens": 7}))],
    "no-model": [(200, {k: v for k, v in _envelope().items() if k != "model"})],
    "tool-calls": [
        (
            200,
            _envelope(
                None,
                choices=[
                    {
                        "index": 0,
                        "finish_reason": "tool_calls",
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                            ],
                        },
                    }
                ],
            ),
        )
    ],
    "5xx-then-ok": [(503, {"error": {"message": "busy"}}), (200, _envelope())],
    "error-page": [fake_server.Reply(502, b"<html>bad gateway</html>")],
    "429-retry-after": [fake_server.Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})],
    "empty-choices": [(200, _envelope(choices=[]))] * 3,
    "not-json": [fake_server.Reply(200, b"<html>proxy</html>")] * 3,
    "int-content": [(200, _envelope(123))] * 3,
    "bad-request": [(400, {"error": {"message": "no such thing", "type": "invalid_request_error"}})],
    "auth": [(401, {"error": {"message": "bad key sk-secret-123456789012345"}})],
    "not-found": [(404, {"error": {"message": "no model"}})],
}


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(responder=fixed("Plan: wait(1)")) as srv:
        yield srv


def _model(srv: FakeChatServer, **kwargs: Any) -> LiteLLMModel:
    options: dict[str, Any] = dict(timeout_s=10, max_retries=2, backoff_initial_s=0.01, backoff_max_s=0.02)
    options.update(kwargs)
    return LiteLLMModel("openai/fake-local", api_base=srv.url, **options)


def _outcome(model: LiteLLMModel, structured: StructuredOutput | None) -> Completion | LLMError:
    try:
        return asyncio.run(model.generate(MSGS, structured=structured, max_tokens=64, seed=3))
    except LLMError as exc:
        return exc


def _run(
    srv: FakeChatServer, replies: list[Any], warm: bool, structured: StructuredOutput | None, timeout_s: float = 10
) -> tuple[Any, list[Any]]:
    """The scenario's outcome and the requests the server saw for it (after any warm-up)."""
    model = _model(srv, response_schema=structured is not None, timeout_s=timeout_s)
    if warm:
        assert isinstance(_outcome(model, structured), Completion)
    srv.requests.clear()
    srv.replies = list(replies)
    outcome = _outcome(model, structured)
    seen = [(r["path"], r["body"], r["authorization"]) for r in srv.requests]
    if isinstance(outcome, Completion):
        return outcome.model_dump(exclude={"latency_s"}), seen
    return (type(outcome), str(outcome), getattr(outcome, "attempts", None)), seen


@pytest.mark.parametrize("structured", [None, SCHEMA], ids=["text", "schema"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_direct_route_answers_as_litellm_does(
    server: FakeChatServer, name: str, structured: StructuredOutput | None
) -> None:
    cold = _run(server, SCENARIOS[name], warm=False, structured=structured)
    warm = _run(server, SCENARIOS[name], warm=True, structured=structured)
    assert warm == cold


def test_a_timeout_after_sending_is_litellms_timeout(server: FakeChatServer) -> None:
    replies = [fake_server.Reply(delay_s=1.0)]
    cold = _run(server, replies, warm=False, structured=None, timeout_s=0.5)
    warm = _run(server, replies, warm=True, structured=None, timeout_s=0.5)
    server.stop()  # the slow answers' threads end with the server
    assert cold[0]["retry_causes"] == warm[0]["retry_causes"] == ("Timeout",)
    assert len(cold[1]) == len(warm[1]) == 2


def test_a_stopped_server_fails_the_same_way(server: FakeChatServer) -> None:
    model = _model(server, max_retries=1)
    assert isinstance(_outcome(model, None), Completion)
    cold = _model(server, max_retries=1)
    server.stop()
    failures = [_outcome(m, None) for m in (cold, model)]
    assert [type(f) for f in failures] == [type(failures[0])] * 2 and isinstance(failures[0], LLMError)


def test_the_route_is_only_for_openai_models_at_a_plain_http_base() -> None:
    assert DirectRoute.for_model("openai/x", "http://127.0.0.1:8000/v1") is not None
    assert DirectRoute.for_model("openai/x", None) is None
    assert DirectRoute.for_model("openai/x", "https://example.org/v1") is None
    assert DirectRoute.for_model("hosted_vllm/x", "http://127.0.0.1:8000/v1") is None


def test_the_body_is_the_chat_parameters_with_the_served_name() -> None:
    route = DirectRoute("openai/served", "http://127.0.0.1:1/v1")
    kwargs = {
        "model": "openai/served",
        "messages": [],
        "max_tokens": 5,
        "temperature": 0.0,
        "timeout": 3.0,
        "drop_params": True,
    }
    assert route.body(kwargs) == {"messages": [], "model": "served", "max_tokens": 5, "temperature": 0.0}
    assert json.dumps(route.body(kwargs))  # plain JSON


def test_once_checked_a_request_shape_goes_direct(server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    model = _model(server)
    first = _outcome(model, None)

    async def refuse(**kwargs: Any) -> None:
        raise AssertionError("litellm was asked for a request the route had checked")

    monkeypatch.setattr(litellm, "acompletion", refuse)
    second = _outcome(model, None)
    assert isinstance(first, Completion) and isinstance(second, Completion)
    assert second.model_dump(exclude={"latency_s"}) == first.model_dump(exclude={"latency_s"})
    assert server.requests[0]["body"] == server.requests[1]["body"]
