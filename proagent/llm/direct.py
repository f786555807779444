"""`DirectRoute`: the cheap path of a request to a local OpenAI-compatible server, checked against litellm.

litellm and the OpenAI SDK spend 5-7 ms of CPU on each request (see benchmarks/decision_cpu.py);
a local server answers in less. For an ``openai/<served name>`` model with an ``api_base`` the
backend sends the request itself (`proagent.llm.wire`) and reads a plain answer itself, while
litellm keeps the last word on everything that is not plain:

* the request: the first request of each shape (which of seed, response_format... it carries)
  goes through litellm as before, its HTTP request recorded; only when litellm sent exactly the
  body this route builds, to the same URL with the same key, does that shape go direct from then
  on. A model litellm rewrites requests for (an o-series model, a dropped parameter) stays with
  litellm for good.
* the answer: only a 200 whose body is a plain chat completion (text content, a finish reason
  litellm keeps as it is, whole token counts, a model name) is read here, into the same fields
  litellm's response gives. Any other response (an error status, a malformed body, reasoning
  tags, tool calls) is handed to litellm as received (`replay_client`), which raises or converts
  exactly as if it had fetched it: nothing is sent twice and every error keeps its type and text.
* transport failures: one that happened before the request was sent is left to litellm to send
  again (it fails or succeeds as it would have); a timeout or broken connection after it was sent
  is replayed as the same httpx error, which litellm reports as before.

The request's headers are the ones that mean something to a server (key, content type); the
SDK's telemetry headers (``User-Agent``, ``X-Stainless-*``) are not sent.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

import httpx

from proagent.llm.wire import WireError, WirePool, WireResponse

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["DirectRoute", "PlainAnswer"]

_PROVIDER = "openai/"
_BODY_KEYS = ("messages", "model", "max_tokens", "seed", "temperature", "response_format")
_KEPT_FINISH = frozenset({"stop", "length"})  # finish reasons litellm passes on unchanged
_REASONING_TAGS = ("<think", "</think")  # litellm moves such text out of the content
_CHAT_PATH = "/chat/completions"


class PlainAnswer(NamedTuple):
    """The fields of a plain chat completion, as litellm's response would give them."""

    content: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


class _Recording(httpx.AsyncBaseTransport):
    """Sends through ``inner`` and keeps the last request (to compare with the route's own)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.request: httpx.Request | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.request = request
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Replay(httpx.AsyncBaseTransport):
    """Answers the SDK's request with a response (or failure) that already came over the wire."""

    def __init__(self, outcome: WireResponse | httpx.TransportError) -> None:
        self.outcome = outcome

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if isinstance(self.outcome, httpx.TransportError):
            raise type(self.outcome)(str(self.outcome), request=request)
        return httpx.Response(self.outcome.status, headers=list(self.outcome.headers), content=self.outcome.body)


class DirectRoute:
    """The direct path of one model at one ``api_base``; None from `for_model` when it has none."""

    def __init__(self, model: str, api_base: str) -> None:
        self._served = model.removeprefix(_PROVIDER)
        self._api_base = api_base.rstrip("/")
        self._pool = WirePool(self._api_base)
        self._verified: set[tuple[str, ...]] = set()  # request shapes litellm sends unchanged
        self._refused: set[tuple[str, ...]] = set()  # ... and those it rewrites

    @classmethod
    def for_model(cls, model: str, api_base: str | None) -> DirectRoute | None:
        """A route for ``openai/<name>`` at a plain-http ``api_base`` (a local server), else None."""
        if api_base is None or not model.startswith(_PROVIDER) or not api_base.startswith("http://"):
            return None
        return cls(model, api_base)

    @staticmethod
    def shape(kwargs: dict[str, Any]) -> tuple[str, ...]:
        """What decides how litellm builds the request: which parameters it carries."""
        return tuple(sorted(kwargs))

    def ready(self, kwargs: dict[str, Any]) -> bool:
        """True when requests of this shape go direct (checked once against litellm)."""
        return "api_key" in kwargs and self.shape(kwargs) in self._verified

    def needs_check(self, kwargs: dict[str, Any]) -> bool:
        """True when this shape has not been compared with litellm's request yet."""
        shape = self.shape(kwargs)
        return "api_key" in kwargs and shape not in self._verified and shape not in self._refused

    def body(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The request body: the OpenAI chat parameters of ``kwargs``, the served model name."""
        body = {key: kwargs[key] for key in _BODY_KEYS if key in kwargs}
        body["model"] = self._served
        return body

    def recording_client(self, kwargs: dict[str, Any]) -> tuple[AsyncOpenAI, _Recording]:
        """A client for litellm that sends as usual and keeps the request, for `check`."""
        recording = _Recording(httpx.AsyncHTTPTransport())
        return self._client(kwargs, recording), recording

    def check(self, kwargs: dict[str, Any], recording: _Recording) -> None:
        """Requests of this shape go direct from now on if litellm sent exactly the route's request."""
        request = recording.request
        same = (
            request is not None
            and request.method == "POST"
            and str(request.url) == self._api_base + _CHAT_PATH
            and request.headers.get("authorization") == f"Bearer {kwargs['api_key']}"
            and json.loads(request.content) == self.body(kwargs)
        )
        (self._verified if same else self._refused).add(self.shape(kwargs))

    async def send(self, kwargs: dict[str, Any]) -> WireResponse | httpx.TransportError | None:
        """The server's response, a failure after sending (to replay), or None: not sent at all."""
        data = json.dumps(self.body(kwargs), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        headers = {
            "Authorization": f"Bearer {kwargs['api_key']}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        try:
            return await self._pool.post(_CHAT_PATH, data, headers, float(kwargs["timeout"]))
        except WireError as exc:
            if not exc.sent:
                return None
            return httpx.ReadTimeout(str(exc)) if exc.timeout else httpx.RemoteProtocolError(str(exc))

    def replay_client(self, kwargs: dict[str, Any], outcome: WireResponse | httpx.TransportError) -> AsyncOpenAI:
        """A client for litellm whose request gets ``outcome`` instead of going out again."""
        return self._client(kwargs, _Replay(outcome))

    def _client(self, kwargs: dict[str, Any], transport: httpx.AsyncBaseTransport) -> AsyncOpenAI:
        """The SDK client litellm would make for this server (no SDK retries: ours are the only ones)."""
        http = httpx.AsyncClient(transport=transport)
        from openai import AsyncOpenAI  # ~1 s to import: only a process that calls a server pays it

        return AsyncOpenAI(api_key=kwargs["api_key"], base_url=self._api_base, http_client=http, max_retries=0)


def plain_answer(response: WireResponse) -> PlainAnswer | None:
    """The answer in ``response`` when it is a plain chat completion litellm would not change, else None."""
    if response.status != 200 or any(name == "content-encoding" for name, _ in response.headers):
        return None
    try:
        data = json.loads(response.body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    choices, usage, model = data.get("choices"), data.get("usage"), data.get("model")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) or not isinstance(usage, dict):
        return None
    message, finish = choices[0].get("message"), choices[0].get("finish_reason")
    if not isinstance(message, dict) or not isinstance(model, str) or not model or finish not in _KEPT_FINISH:
        return None
    content = message.get("content")
    extras = {
        key: value for key, value in message.items() if key not in ("role", "content") and value not in (None, [], {})
    }
    if (
        message.get("role") != "assistant"
        or not isinstance(content, str)
        or extras
        or any(t in content for t in _REASONING_TAGS)
    ):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not all(type(count) is int and count >= 0 for count in (prompt, completion)):
        return None
    return PlainAnswer(content, model, prompt, completion, finish)
