"""The one cleaning step every model answer goes through, and bounds for text derived from it.

A model's text flows on into caches (JSON files), later prompts (HTTP requests) and run records,
so text that one of those cannot encode ends a run far from its cause: a lone UTF-16 surrogate
(a model cut off mid-emoji; a JSON ``"\\ud83d"`` decodes to one) makes the cache's JSON dump and
the next request's UTF-8 encoding fail. `sanitize_text` is applied where a `Completion` is made
(`proagent.llm.types`), so no backend, cache entry or test double can hand on such text.
"""

from __future__ import annotations

import re

from proagent.llm.redaction import redact

__all__ = ["ELLIPSIS", "MAX_TEXT_CHARS", "clean_field", "clip", "excerpt", "sanitize_text"]

# Far above what any max_tokens the agent asks for yields (160 tokens are ~1 kB), far below what
# hurts when the text is stored in every trace line and cache file.
MAX_TEXT_CHARS = 32_000
ELLIPSIS = "…"

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls except \t and \n (\r is normalised to \n before), DEL and the C1 block.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The bidirectional formatting characters (embeddings, overrides, isolates, marks): text carried
# into later prompts, records and pages must read in the order it is stored ("Trojan Source").
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NEWLINES = re.compile("\r\n?")
_WHITESPACE = re.compile(r"\s+")


def _fix_surrogates(text: str) -> str:
    """Join valid surrogate pairs into their character and replace lone halves with U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def sanitize_text(text: str, max_chars: int = MAX_TEXT_CHARS) -> tuple[str, list[str]]:
    """Return ``text`` safe to store and re-send, and short notes on what had to change.

    Lone surrogates become U+FFFD, CR/CRLF become LF, other control characters (but tab and
    newline) and the bidirectional formatting characters are dropped and the result is cut to
    ``max_chars``. Clean text comes back as is,
    so applying it twice changes nothing.
    """
    notes: list[str] = []
    if _SURROGATE.search(text):
        text = _fix_surrogates(text)
        notes.append("lone_surrogates")
    if "\r" in text:
        text = _NEWLINES.sub("\n", text)
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text)
        notes.append("control_chars")
    if _BIDI.search(text):
        text = _BIDI.sub("", text)
        notes.append("bidi_controls")
    if len(text) > max_chars:
        notes.append(f"truncated:{len(text)}")
        text = text[:max_chars]
    return text, notes


def clean_field(text: str, *, one_line: bool = False) -> str:
    """A field decoded from an answer (JSON or labelled lines), cleaned like a raw answer.

    JSON escapes (``\\ud83d``, ``\\u001b``) are plain ASCII in the raw text that `sanitize_text`
    cleaned, and only become a lone surrogate or a control character when the JSON is decoded; so
    every decoded field passes here, after parsing. ``one_line`` (a message to teammates, a
    predicted intention) also folds every run of whitespace, newlines included, into one space: a
    message is one line in the recipients' prompts and cannot forge another sender's line there,
    nor an intention a line of the agent's own memory in its later prompts.
    """
    text, _ = sanitize_text(text)
    return _WHITESPACE.sub(" ", text).strip() if one_line else text


def clip(text: str | None, max_chars: int) -> str | None:
    """``text`` cut to at most ``max_chars`` characters, the last one an ellipsis when cut.

    For free text the agent carries into memory and later prompts: a hostile answer must not grow
    every prompt after it.
    """
    if text is None or len(text) <= max_chars:
        return text
    return text[: max(max_chars - 1, 0)] + ELLIPSIS if max_chars > 0 else ""


def excerpt(raw: object, max_chars: int = 160) -> str:
    """A short one-line, redacted, printable view of ``raw`` for error messages and logs."""
    text, _ = sanitize_text(redact(raw), max_chars=4 * max_chars)
    return clip(_WHITESPACE.sub(" ", text).strip(), max_chars) or ""
