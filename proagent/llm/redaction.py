"""Strip secrets from text before it reaches a log, an exception or a record.

Provider SDKs sometimes echo request headers or the (partially masked) key in
their error messages, and errors end up in run logs that get shared.  Every
message that leaves `proagent.llm` passes through `redact`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

REDACTED = "[REDACTED]"

# Shapes of well-known credentials.  Deliberately generous: a false positive
# only hides a few characters of an error message.
_SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]+"),
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-*]{8,}"),
    re.compile(r"\b(?:sk-ant|sk-proj|gsk|hf|xai|ghp|gho|github_pat|r8|pplx|nvapi)[_-][A-Za-z0-9_\-*]{8,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(
        r"(?i)((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|secret|password|authorization)"
        r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]+"
    ),
)

_SECRET_ENV_SUFFIXES: tuple[str, ...] = ("_API_KEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY")
_MIN_ENV_SECRET_LEN = 6


def _secret_env_values(environ: Mapping[str, str]) -> list[str]:
    """Values of env vars whose names say they hold a credential, longest first."""
    values = {
        value
        for name, value in environ.items()
        if name.upper().endswith(_SECRET_ENV_SUFFIXES) and len(value) >= _MIN_ENV_SECRET_LEN
    }
    return sorted(values, key=len, reverse=True)


def redact(text: object, *, extra_secrets: tuple[str, ...] = (), environ: Mapping[str, str] | None = None) -> str:
    """Return ``str(text)`` with API keys, bearer tokens and secret env values replaced.

    ``extra_secrets`` lets a backend hide a key it was handed directly (not via
    the environment).  The environment is read at call time so keys set after
    import are covered too.
    """
    out = str(text)
    env = os.environ if environ is None else environ
    for secret in (*sorted(extra_secrets, key=len, reverse=True), *_secret_env_values(env)):
        if secret and len(secret) >= _MIN_ENV_SECRET_LEN:
            out = out.replace(secret, REDACTED)
    for pattern in _SECRET_PATTERNS:
        if pattern.groups:
            out = pattern.sub(lambda m: m.group(1) + REDACTED, out)
        else:
            out = pattern.sub(REDACTED, out)
    return out


_SECRET_KEY = re.compile(r"(?i)^(?:x-)?(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|authorization)$")


def redact_values(data: object, *, extra_secrets: tuple[str, ...] = ()) -> object:
    """``data`` as JSON-able values with every string `redact`ed, and the whole value of a key that
    names a credential (``{"password": ...}``) replaced. Numbers, booleans and None stay; anything
    else becomes its redacted ``str`` (what ``json.dumps(default=str)`` would have written).

    Records and cache entries are redacted this way, *before* they are serialised: redacting the
    serialised text would let a pattern run across JSON syntax (eat the backslash of an escaped
    quote) and leave a line that is no longer JSON.
    """
    if data is None or isinstance(data, bool | int | float):
        return data
    if isinstance(data, Mapping):
        return {
            redact(k, extra_secrets=extra_secrets): (
                REDACTED
                if isinstance(v, str) and _SECRET_KEY.match(str(k))
                else redact_values(v, extra_secrets=extra_secrets)
            )
            for k, v in data.items()
        }
    if isinstance(data, list | tuple):
        return [redact_values(v, extra_secrets=extra_secrets) for v in data]
    return redact(data, extra_secrets=extra_secrets)


def redact_url(value: str) -> str:
    """``value`` with any user:password@ part, query string and fragment removed, then `redact`ed.

    For naming an ``api_base`` in errors and logs: credentials are sometimes passed in the URL.
    Text that is not a URL at all loses everything from a ``?`` or ``#`` on, and up to an ``@``.
    """
    try:
        parts = urlsplit(value)
    except ValueError:  # e.g. an unbalanced '[' in the host
        parts = None
    if parts is not None and parts.netloc:
        host = parts.netloc.rpartition("@")[2]
        shown = urlunsplit((parts.scheme, host, parts.path, "", ""))
    else:
        shown = re.split(r"[?#]", value, maxsplit=1)[0].rpartition("@")[2]
    return redact(shown)
