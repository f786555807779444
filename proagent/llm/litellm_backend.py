"""`LiteLLMModel`: any hosted or OpenAI-compatible chat model through litellm.

litellm is imported lazily (it takes 2-3 s) and always with its bundled cost
map, so building a model never touches the network.  Retries are ours
(tenacity, exponential backoff with jitter, or the server's ``Retry-After``)
and only cover transient failures (`proagent.llm.faults`); litellm's and the
OpenAI SDK's own retries are switched off so that a request is never retried
twice over.  Every error text is passed through `redact`, every retry is one
log line and is counted in the `Completion` (``retries``, ``retry_causes``).

The answer's envelope is checked here: no choices or content that is not text
is an `LLMResponseError` (with a short excerpt of the answer), retried at most
``malformed_retries`` times (default 1).  Such an answer is usually what this
server says to this request, and at temperature 0 with a fixed seed it will
say it again, so retrying it like a 503 only wastes half a minute; but a proxy
glitch (an HTML error page with status 200) does go away, hence one retry.
Null content becomes empty text and broken token counts become 0 (noted in
``anomalies``): the answer itself is still usable.

For ``openai/<name>`` at a local ``api_base`` the request goes out through `DirectRoute` once
litellm was seen to send the very same request: litellm's per-call work is most of a decision's
CPU there, and a plain answer needs none of it; every other answer is still litellm's to read.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import os
import time
import warnings
from types import ModuleType
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from proagent.llm.direct import DirectRoute, plain_answer
from proagent.llm.faults import (
    answer_view,
    envelope_excerpt,
    is_encoding_error,
    is_transient,
    malformed_what,
    retry_after_s,
)
from proagent.llm.redaction import redact, redact_url
from proagent.llm.sanitize import clip, excerpt
from proagent.llm.types import (
    Completion,
    Grounding,
    LLMConfigError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
    Message,
    StructuredOutput,
)
from proagent.llm.wire import WireResponse

__all__ = ["LiteLLMModel", "check_api_base", "import_litellm", "is_transient", "redact"]

_LOG = logging.getLogger(__name__)
_DUMMY_LOCAL_KEY = "sk-no-key-required"
_DETAIL_CHARS = 300  # provider error text kept in an exception message
_LOG_DETAIL_CHARS = 160  # ... and in a retry log line


def import_litellm() -> ModuleType:
    """Import litellm with its local cost map (no network) and without stdout chatter."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - litellm is a hard dependency
        raise LLMConfigError("litellm is not installed: run `pip install litellm`") from exc
    litellm.suppress_debug_info = True
    # litellm dumps an answer with fields of the wrong type through pydantic, whose serializer
    # warnings print pieces of it (unredacted) to stderr; we report such answers ourselves.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    return litellm


def credential_env_vars(litellm: ModuleType, model: str) -> list[str]:
    """Env vars holding credentials that litellm says ``model`` needs and that are unset."""
    try:
        missing = litellm.validate_environment(model=model).get("missing_keys", [])
    except Exception:  # noqa: BLE001 - an unknown provider simply has no known key
        return []
    markers = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS")
    return [name for name in missing if any(m in name.upper() for m in markers)]


def check_api_base(api_base: str | None) -> None:
    """Raise `LLMConfigError` now unless ``api_base`` is an http(s) URL with a host.

    litellm reports a malformed base URL as a connection error, which would be retried for
    half a minute before the run fails.  The value is named without credentials or query.
    """
    if api_base is None:
        return
    try:
        parts = urlsplit(api_base)
        _ = parts.port  # raises ValueError for a port that is not a number in range
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a bad port or an unbalanced '[' in the host
        ok = False
    if not ok:
        raise LLMConfigError(
            f"api_base {redact_url(api_base)!r} is not an http(s) URL; expected e.g. http://127.0.0.1:8000/v1"
        )
    if parts.username or parts.password or parts.query:
        raise LLMConfigError(
            f"api_base {redact_url(api_base)!r} carries credentials or a query string, which would end up in "
            "run folders and logs; pass the key in the environment instead (e.g. OPENAI_API_KEY=...)"
        )


def _check_encodable(messages: list[Message]) -> None:
    """Raise `LLMRequestError` if a prompt cannot be sent as UTF-8 (permanent: retrying cannot help)."""
    for index, message in enumerate(messages):
        try:
            message.content.encode("utf-8")
        except UnicodeEncodeError as exc:
            problem = f"message {index} ({message.role}) has a lone surrogate at character {exc.start}"
            break
    else:
        return
    raise LLMRequestError(
        f"the request cannot be encoded as UTF-8: {problem}; prompts must be built from sanitised text"
    )


def _token_count(value: Any) -> tuple[int, str | None]:
    """A usage count as a non-negative int, and a note when the provider's value had to be repaired."""
    if value is None:
        return 0, None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0, "usage_invalid"
    if value < 0:
        return 0, "usage_clamped"
    return int(value), (None if value == int(value) else "usage_invalid")


def _raw_view(response: Any) -> str:
    """The answer as JSON-ish text for an excerpt, whatever shape it has."""
    try:
        return answer_view(response.model_dump())
    except Exception:  # noqa: BLE001 - any object: fall back to its repr
        return repr(response)


class _Answer(NamedTuple):
    """The usable part of one provider response, before latency and retries are known."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    cost_usd: float | None
    anomalies: tuple[str, ...]


class LiteLLMModel:
    """A `Model` backed by ``litellm.acompletion``.

    ``model`` is a litellm id such as ``openai/gpt-4o-mini`` or, with
    ``api_base="http://127.0.0.1:8000/v1"``, ``openai/<served-name>`` for a
    local OpenAI-compatible server (a dummy key is sent if none is set).
    ``response_schema`` forces JSON-schema output on or off; None asks litellm
    whether the model supports it.  ``latency_s`` covers retries and backoff.
    ``timeout_s`` bounds each request; a server's ``Retry-After`` is honoured up
    to ``retry_after_max_s``.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 5,
        *,
        api_key: str | None = None,
        response_schema: bool | None = None,
        backoff_initial_s: float = 1.0,
        backoff_max_s: float = 30.0,
        retry_after_max_s: float = 30.0,
        malformed_retries: int = 1,
    ) -> None:
        if max_retries < 0 or malformed_retries < 0 or not timeout_s > 0 or retry_after_max_s < 0:
            raise ValueError("max_retries and malformed_retries must be >= 0, timeout_s > 0, retry_after_max_s >= 0")
        check_api_base(api_base)
        self._model = model
        self._api_base = api_base
        self._api_key = api_key
        self._timeout_s = float(timeout_s)
        self._max_retries = max_retries
        self._malformed_retries = malformed_retries
        self._response_schema = response_schema
        self._backoff = wait_exponential(multiplier=backoff_initial_s, max=backoff_max_s) + wait_random(
            0, backoff_initial_s
        )
        self._retry_after_max_s = retry_after_max_s
        self._direct = DirectRoute.for_model(model, api_base)
        self._schema_support: bool | None = None  # litellm's answer for this model, asked once

    @property
    def name(self) -> str:
        return self._model

    @property
    def timeout_s(self) -> float:
        """Seconds one request may take before it counts as a (transient) timeout."""
        return self._timeout_s

    def __repr__(self) -> str:  # never shows the key
        base = redact_url(self._api_base) if self._api_base is not None else None
        return f"LiteLLMModel(model={self._model!r}, api_base={base!r})"

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        _check_encodable(messages)
        litellm = import_litellm()
        kwargs = self._request(litellm, messages, structured, max_tokens, temperature, seed)
        causes: list[str] = []
        start = time.perf_counter()
        answer = await self._call_with_retries(litellm, kwargs, causes)
        return Completion(
            **answer._asdict(),
            latency_s=time.perf_counter() - start,
            cached=False,
            retries=len(causes),
            retry_causes=tuple(causes),
        )

    def _request(
        self,
        litellm: ModuleType,
        messages: list[Message],
        structured: StructuredOutput | None,
        max_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
            "timeout": self._timeout_s,
            "num_retries": 0,
            "max_retries": 0,
            "drop_params": True,
        }
        if seed is not None:
            kwargs["seed"] = seed
        if self._api_base is not None:
            kwargs["api_base"] = self._api_base
        key = self._api_key
        if key is None and self._api_base is not None and credential_env_vars(litellm, self._model):
            key = _DUMMY_LOCAL_KEY  # read per call: the env may gain a real key later
        if key is not None:
            kwargs["api_key"] = key
        if structured is not None and self._wants_schema(litellm):
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": structured.name, "schema": structured.json_schema},
            }
        return kwargs

    def _wants_schema(self, litellm: ModuleType) -> bool:
        """The ``response_schema`` setting, else litellm's (static) model map, asked once per model."""
        if self._response_schema is not None:
            return self._response_schema
        if self._schema_support is None:
            try:
                self._schema_support = bool(litellm.supports_response_schema(model=self._model))
            except Exception:  # noqa: BLE001 - unknown models: fall back to free text
                self._schema_support = False
        return self._schema_support

    async def _call_with_retries(self, litellm: ModuleType, kwargs: dict[str, Any], causes: list[str]) -> _Answer:
        """One answer, retrying transient failures; ``causes`` gets the class name of each retried one."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(functools.partial(self._should_retry, causes)),
            before_sleep=functools.partial(self._on_retry, causes),
            reraise=True,
        )
        error: LLMError | None = None
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(litellm, kwargs)
        except Exception as exc:  # noqa: BLE001 - translated below, outside the handler
            error = self._translate(exc, retrying.statistics.get("attempt_number", 1))
        # Raised outside the except block so the original (unredacted) exception
        # is neither chained nor kept as context in tracebacks.
        assert error is not None
        raise error

    async def _attempt(self, litellm: ModuleType, kwargs: dict[str, Any]) -> _Answer:
        """One request; a malformed answer becomes `LLMResponseError` (raised outside the handler)."""
        malformed: LLMResponseError | None = None
        try:
            response = await self._send(litellm, kwargs)
        except Exception as exc:
            what = malformed_what(exc)
            if what is None or is_encoding_error(exc):
                raise
            malformed = self._malformed(what, envelope_excerpt(exc))
        if malformed is not None:
            raise malformed
        return response if isinstance(response, _Answer) else self._parse(litellm, response)

    async def _send(self, litellm: ModuleType, kwargs: dict[str, Any]) -> _Answer | Any:
        """litellm's response, or a plain answer read straight off the wire (`DirectRoute`: only
        where litellm was seen to send the same request; anything not plain is still litellm's)."""
        route, limit = self._direct, self._timeout_s + 5.0
        if route is None or not (route.ready(kwargs) or route.needs_check(kwargs)):
            return await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=limit)
        if route.needs_check(kwargs):  # litellm sends it, and the route compares its request with its own
            client, recording = route.recording_client(kwargs)
            try:
                response = await asyncio.wait_for(litellm.acompletion(**kwargs, client=client), timeout=limit)
            finally:
                await client.close()
            route.check(kwargs, recording)
            return response
        outcome = await route.send(kwargs)  # bounded by timeout_s for connecting and for each read of the answer
        plain = plain_answer(outcome) if isinstance(outcome, WireResponse) else None
        if plain is not None:
            return self._answer(*plain, cost=None)  # a local server's price is unknown (see `_cost`)
        if outcome is None:  # never sent: litellm sends it as it always did
            return await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=limit)
        client = route.replay_client(kwargs, outcome)  # litellm reads what came back; nothing is sent again
        try:
            return await asyncio.wait_for(litellm.acompletion(**kwargs, client=client), timeout=limit)
        finally:
            await client.close()

    def _should_retry(self, causes: list[str], exc: BaseException) -> bool:
        """Transient failures always (up to max_retries); malformed answers ``malformed_retries`` times."""
        if isinstance(exc, LLMResponseError):
            return causes.count(LLMResponseError.__name__) < self._malformed_retries
        return is_transient(exc)

    def _wait(self, state: RetryCallState) -> float:
        """The server's Retry-After (capped) when it sent one, else exponential backoff with jitter."""
        exc = state.outcome.exception() if state.outcome else None
        after = retry_after_s(exc) if exc is not None else None
        if after is not None:
            return min(after, self._retry_after_max_s)
        return float(self._backoff(state))

    def _on_retry(self, causes: list[str], state: RetryCallState) -> None:
        """Count the failure and log it as one short line (no traceback: litellm's texts hold some)."""
        exc = state.outcome.exception() if state.outcome else None
        cause = type(exc).__name__ if exc is not None else "unknown"
        causes.append(cause)
        wait = state.next_action.sleep if state.next_action else 0.0
        told = exc is not None and retry_after_s(exc) is not None
        _LOG.warning(
            "%s: attempt %d failed (%s: %s); retrying in %.1fs%s",
            self._model,
            state.attempt_number,
            cause,
            excerpt(self._redact(exc), _LOG_DETAIL_CHARS),
            wait,
            " as the server asked (Retry-After)" if told else "",
        )

    def _redact(self, text: object) -> str:
        return redact(text, extra_secrets=(self._api_key,) if self._api_key else ())

    def _where(self) -> str:
        return self._model + (f" at {redact_url(self._api_base)}" if self._api_base else "")

    def _malformed(self, what: str, raw_excerpt: str) -> LLMResponseError:
        raw_excerpt = excerpt(self._redact(raw_excerpt), 240)
        return LLMResponseError(f"{self._where()} sent a malformed answer ({what}): {raw_excerpt}", excerpt=raw_excerpt)

    def _translate(self, exc: BaseException, attempts: int) -> LLMError:
        """Turn a provider exception into our error types: one line, secrets removed."""
        kind = type(exc).__name__
        detail = excerpt(self._redact(exc), _DETAIL_CHARS)
        where = self._where()
        names = {cls.__name__ for cls in type(exc).__mro__}
        if isinstance(exc, LLMResponseError):
            return LLMResponseError(f"{exc} (after {attempts} attempt(s))", excerpt=exc.excerpt, attempts=attempts)
        if is_encoding_error(exc):
            return LLMRequestError(f"the request to {where} could not be encoded: {kind}: {detail}")
        if is_transient(exc):
            return LLMUnavailableError(
                f"{where} still failing after {attempts} attempt(s): {kind}: {detail}",
                provider_message=detail,
                attempts=attempts,
            )
        if names & {"AuthenticationError", "PermissionDeniedError"}:
            hint = self._key_hint()
            return LLMConfigError(f"authentication failed for {where}: {hint} ({kind}: {detail})")
        if "NotFoundError" in names:
            return LLMConfigError(f"model or endpoint not found for {where}: check the model id ({kind}: {detail})")
        return LLMError(f"request to {where} failed: {kind}: {detail}")

    def _key_hint(self) -> str:
        litellm = import_litellm()
        try:
            provider = litellm.get_llm_provider(self._model)[1]
        except Exception:  # noqa: BLE001
            provider = self._model.split("/", 1)[0]
        return f"set a valid API key for provider '{provider}' (usually {provider.upper()}_API_KEY)"

    def _parse(self, litellm: ModuleType, response: Any) -> _Answer:
        """The usable answer in ``response``, or `LLMResponseError` with an excerpt of it."""
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise self._malformed("no choices", _raw_view(response))
        choice = choices[0]
        content = getattr(getattr(choice, "message", None), "content", None)
        notes: list[str] = []
        if content is None:
            content, notes = "", ["null_content"]
        elif not isinstance(content, str):
            raise self._malformed(f"content is {type(content).__name__}, not text", _raw_view(response))
        usage = getattr(response, "usage", None)
        return self._answer(
            content,
            getattr(response, "model", None),
            getattr(usage, "prompt_tokens", None),
            getattr(usage, "completion_tokens", None),
            getattr(choice, "finish_reason", None),
            self._cost(litellm, response),
            notes,
        )

    def _answer(
        self,
        content: str,
        model: object,
        prompt: object,
        completion: object,
        finish: object,
        cost: float | None,
        notes: list[str] | None = None,
    ) -> _Answer:
        """The answer from the response's fields, token counts repaired (and noted) where broken."""
        notes = list(notes or [])
        prompt_tokens, prompt_note = _token_count(prompt)
        completion_tokens, completion_note = _token_count(completion)
        notes += sorted({n for n in (prompt_note, completion_note) if n})
        if notes:
            _LOG.warning("%s: answer repaired (%s)", self._model, ", ".join(notes))
        return _Answer(
            text=content,
            model=clip(model, 200) if isinstance(model, str) and model else self._model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            finish_reason=clip(finish, 64) if isinstance(finish, str) else None,
            cost_usd=cost,
            anomalies=tuple(notes),
        )

    def _cost(self, litellm: ModuleType, response: Any) -> float | None:
        """Price from litellm's bundled map; None when unknown, nonsensical or for a custom ``api_base``."""
        if self._api_base is not None:
            return None  # a local/self-hosted server: litellm's public price would be wrong
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # noqa: BLE001 - model not in the price map
            return None
        if cost is None or not math.isfinite(float(cost)) or float(cost) < 0:
            return None
        return float(cost)
