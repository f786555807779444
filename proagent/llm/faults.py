"""What a failed provider call means: retry it or not, how long to wait, what to show of it.

Kept apart from the litellm backend so the rules can be read (and tested) in one place:

* transient (retried with backoff): timeouts, dropped connections, 408, 429, 5xx;
* a malformed envelope (an HTTP success whose body is not a usable chat completion) is an
  `LLMResponseError`, retried at most a few times by the backend (see `LiteLLMModel`);
* permanent (never retried): bad requests, auth, unknown models, and any failure to encode our
  own request: resending the same bytes cannot succeed.

litellm reports malformed envelopes as a 500 ``InternalServerError`` whose text holds a Python
traceback; `is_malformed_envelope` recognises them by the sentences litellm (pinned in
constraints.txt) writes, so they are not mistaken for a server failure.
"""

from __future__ import annotations

import ast
import email.utils
import json
import math
import time
from collections.abc import Iterator, Mapping
from typing import Any

from proagent.llm.sanitize import excerpt
from proagent.llm.types import LLMRequestError, LLMResponseError

__all__ = [
    "answer_view",
    "envelope_excerpt",
    "is_encoding_error",
    "is_malformed_envelope",
    "is_transient",
    "malformed_what",
    "parse_retry_after",
    "retry_after_s",
]

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
_PERMANENT_NAMES = frozenset({"AuthenticationError", "PermissionDeniedError", "NotFoundError", "BadRequestError"})
# Sentences litellm writes when a provider's 2xx body is not a chat completion it can convert,
# and what each means in a few words.
_MALFORMED_MARKERS = {
    "Invalid response object": "a field of the wrong type",
    "Error in response object format": "an unexpected format",
    "Error in response creating model response object": "an unexpected format",
    "provider returned a response with no 'choices'": "no choices",
    "provider returned 'choices' that is not a list": "no list of choices",
    "Empty or invalid response from LLM endpoint": "a body that is not a JSON chat completion",
}
# Where the raw answer starts in those messages, most specific first.
_RAW_MARKERS = ("'response_object': ", "received_args=", "Received: ", "Raw keys: ")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or while handling (cycle-safe)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def is_encoding_error(exc: BaseException) -> bool:
    """True when our own request could not be encoded (a lone surrogate in a prompt)."""
    return any(isinstance(e, (UnicodeError, LLMRequestError)) for e in _chain(exc))


def is_malformed_envelope(exc: BaseException) -> bool:
    """True for litellm's report of a 2xx answer that is not a usable chat completion."""
    if isinstance(exc, LLMResponseError):
        return True
    return malformed_what(exc) is not None


def _json_error(exc: BaseException) -> json.JSONDecodeError | None:
    """The JSON decoding failure behind ``exc``: the SDK could not parse a success body."""
    return next((e for e in _chain(exc) if isinstance(e, json.JSONDecodeError)), None)


def malformed_what(exc: BaseException) -> str | None:
    """What is wrong with the answer, in a few words, if ``exc`` reports a malformed envelope."""
    if _json_error(exc) is not None:
        return "a body that is not JSON"
    text = str(exc)
    return next((what for marker, what in _MALFORMED_MARKERS.items() if marker in text), None)


def envelope_excerpt(exc: BaseException, max_chars: int = 240) -> str:
    """A short, redacted piece of the raw answer quoted in litellm's malformed-envelope message."""
    decode_error = _json_error(exc)
    if decode_error is not None:
        return excerpt(decode_error.doc or "(empty body)", max_chars)
    text = str(exc)
    for marker in _RAW_MARKERS:
        if marker in text:
            return excerpt(_compact_literal(text.rsplit(marker, 1)[1]), max_chars)
    return excerpt(text.splitlines()[0] if text else type(exc).__name__, max_chars)


def answer_view(value: Any) -> str:
    """A provider answer as compact JSON: choices and usage first (what breaks), no null fields."""
    if isinstance(value, dict):
        first = {k: value[k] for k in ("choices", "usage") if k in value}
        value = {**first, **{k: v for k, v in value.items() if k not in first}}
    return json.dumps(_drop_none(value), ensure_ascii=False, default=str)


def _compact_literal(text: str) -> str:
    """The Python dict repr that ``text`` starts with as JSON without null fields, else ``text``.

    litellm quotes the answer as the repr of the dict it failed to convert, padded with a dozen
    None fields; dropping them keeps the part that broke (the content, the usage) in an excerpt.
    """
    end = _balanced_end(text)
    if end is None:
        return text
    try:
        value = ast.literal_eval(text[:end])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    return answer_view(value)


def _balanced_end(text: str) -> int | None:
    """Index after the ``{...}`` that ``text`` starts with (quotes respected), or None."""
    if not text.startswith("{"):
        return None
    depth, quote, escaped = 0, "", False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def is_transient(exc: BaseException) -> bool:
    """True for failures that a later identical request may not hit: timeouts, 429, 5xx, connection drops.

    Not for malformed answers (the backend retries those on a budget of their own) nor for
    failures to encode our own request, which litellm also reports as a 500.
    """
    if is_encoding_error(exc) or is_malformed_envelope(exc):
        return False
    names = _class_names(exc)
    if names & _PERMANENT_NAMES:
        return False
    if isinstance(exc, (TimeoutError, ConnectionError)) or names & _TRANSIENT_NAMES:
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 429) or status >= 500)


def _headers(exc: BaseException) -> Mapping[str, Any]:
    """The HTTP response headers an exception carries (litellm keeps the real ones apart)."""
    for candidate in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if isinstance(candidate, Mapping) and candidate:
            return candidate
    return {}


def parse_retry_after(value: str, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta-seconds or an HTTP-date; None if unreadable."""
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a server asked for with ``retry-after-ms`` or ``Retry-After``, if any (uncapped)."""
    headers = {str(k).lower(): str(v) for k, v in _headers(exc).items()}
    if "retry-after-ms" in headers:
        ms = parse_retry_after(headers["retry-after-ms"])
        if ms is not None:
            return ms / 1000.0
    if "retry-after" in headers:
        return parse_retry_after(headers["retry-after"])
    return None
