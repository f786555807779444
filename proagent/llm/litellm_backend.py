"""`LiteLLMModel`: any hosted or OpenAI-compatible chat model through litellm.

litellm is imported lazily (it takes 2-3 s) and always with its bundled cost
map, so building a model never touches the network.  Retries are ours
(tenacity, exponential backoff with jitter) and only cover transient failures;
litellm's and the OpenAI SDK's own retries are switched off so that a request
is never retried twice over.  Every error text is passed through `redact`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from types import ModuleType
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from proagent.llm.redaction import redact
from proagent.llm.types import Completion, LLMConfigError, LLMError, LLMUnavailableError, Message, StructuredOutput

__all__ = ["LiteLLMModel", "import_litellm", "is_transient", "redact"]

_LOG = logging.getLogger(__name__)
_DUMMY_LOCAL_KEY = "sk-no-key-required"
_TRANSIENT_NAMES = frozenset(
    {
        "Timeout",
        "APITimeoutError",
        "APIConnectionError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
    }
)
_CONFIG_NAMES = frozenset({"AuthenticationError", "PermissionDeniedError", "NotFoundError"})


def import_litellm() -> ModuleType:
    """Import litellm with its local cost map (no network) and without stdout chatter."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - litellm is a hard dependency
        raise LLMConfigError("litellm is not installed: run `pip install litellm`") from exc
    litellm.suppress_debug_info = True
    return litellm


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def is_transient(exc: BaseException) -> bool:
    """True for failures that a later identical request may not hit: timeouts, 429, 5xx, connection drops."""
    names = _class_names(exc)
    if names & _CONFIG_NAMES or "BadRequestError" in names:
        return False
    if isinstance(exc, (TimeoutError, ConnectionError)) or names & _TRANSIENT_NAMES:
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 429) or status >= 500)


def credential_env_vars(litellm: ModuleType, model: str) -> list[str]:
    """Env vars holding credentials that litellm says ``model`` needs and that are unset."""
    try:
        missing = litellm.validate_environment(model=model).get("missing_keys", [])
    except Exception:  # noqa: BLE001 - an unknown provider simply has no known key
        return []
    markers = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS")
    return [name for name in missing if any(m in name.upper() for m in markers)]


class LiteLLMModel:
    """A `Model` backed by ``litellm.acompletion``.

    ``model`` is a litellm id such as ``openai/gpt-4o-mini`` or, with
    ``api_base="http://127.0.0.1:8000/v1"``, ``openai/<served-name>`` for a
    local OpenAI-compatible server (a dummy key is sent if none is set).
    ``response_schema`` forces JSON-schema output on or off; None asks litellm
    whether the model supports it.  ``latency_s`` covers retries and backoff.
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
    ) -> None:
        if max_retries < 0 or timeout_s <= 0:
            raise ValueError("max_retries must be >= 0 and timeout_s > 0")
        self._model = model
        self._api_base = api_base
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._response_schema = response_schema
        self._backoff = (backoff_initial_s, backoff_max_s)

    @property
    def name(self) -> str:
        return self._model

    def __repr__(self) -> str:  # never shows the key
        return f"LiteLLMModel(model={self._model!r}, api_base={self._api_base!r})"

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        litellm = import_litellm()
        kwargs = self._request(litellm, messages, structured, max_tokens, temperature, seed)
        start = time.perf_counter()
        response = await self._call_with_retries(litellm, kwargs)
        latency = time.perf_counter() - start
        return self._to_completion(litellm, response, latency)

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
        if self._response_schema is not None:
            return self._response_schema
        try:
            return bool(litellm.supports_response_schema(model=self._model))
        except Exception:  # noqa: BLE001 - unknown models: fall back to free text
            return False

    async def _call_with_retries(self, litellm: ModuleType, kwargs: dict[str, Any]) -> Any:
        initial, maximum = self._backoff
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._max_retries + 1),
            # Exponential backoff (initial, 2x, 4x ... capped) plus up to `initial` of jitter.
            wait=wait_exponential(multiplier=initial, max=maximum) + wait_random(0, initial),
            retry=retry_if_exception(is_transient),
            before_sleep=self._log_retry,
            reraise=True,
        )
        error: LLMError | None = None
        try:
            async for attempt in retrying:
                with attempt:
                    guard = self._timeout_s + 5.0
                    return await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=guard)
        except Exception as exc:  # noqa: BLE001 - translated below, outside the handler
            error = self._translate(exc, retrying.statistics.get("attempt_number", 1))
        # Raised outside the except block so the original (unredacted) exception
        # is neither chained nor kept as context in tracebacks.
        assert error is not None
        raise error

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        _LOG.warning(
            "%s: transient error on attempt %d (%s: %s); retrying in %.1fs",
            self._model,
            state.attempt_number,
            type(exc).__name__,
            self._redact(exc),
            wait,
        )

    def _redact(self, text: object) -> str:
        return redact(text, extra_secrets=(self._api_key,) if self._api_key else ())

    def _translate(self, exc: BaseException, attempts: int) -> LLMError:
        """Turn a provider exception into our error types, with secrets removed."""
        kind = type(exc).__name__
        detail = self._redact(exc)
        where = f"{self._model}" + (f" at {self._api_base}" if self._api_base else "")
        names = _class_names(exc)
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

    def _to_completion(self, litellm: ModuleType, response: Any, latency: float) -> Completion:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise LLMError(f"{self._model} returned no choices")
        choice = choices[0]
        usage = getattr(response, "usage", None)
        return Completion(
            text=choice.message.content or "",
            model=getattr(response, "model", None) or self._model,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            latency_s=latency,
            cost_usd=self._cost(litellm, response),
            cached=False,
            finish_reason=getattr(choice, "finish_reason", None),
        )

    def _cost(self, litellm: ModuleType, response: Any) -> float | None:
        """Price from litellm's bundled map; None when unknown or for a custom ``api_base``."""
        if self._api_base is not None:
            return None  # a local/self-hosted server: litellm's public price would be wrong
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # noqa: BLE001 - model not in the price map
            return None
        return float(cost) if cost is not None else None
