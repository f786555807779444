"""`CachedModel`: an on-disk response cache that makes episodes replayable.

The key is the sha256 of the canonical JSON of everything that determines the
answer (model name, messages, schema, max_tokens, temperature, seed), so the
same request always maps to the same file and a re-run replays the recorded
answers exactly, for free.  One JSON file per key, in 256 shard directories,
written to a temporary file and ``os.replace``d into place: readers never see
a half-written entry and concurrent writers of one key just race to identical
or equally valid content.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from proagent.files import disk_problem, write_atomic
from proagent.llm.redaction import redact_values
from proagent.llm.types import Completion, Grounding, LLMRequestError, Message, Model, StructuredOutput

__all__ = ["CACHE_FORMAT_VERSION", "CacheEntry", "CachedModel", "cache_key", "canonical_request"]

CACHE_FORMAT_VERSION = 1
_LOG = logging.getLogger(__name__)


def canonical_request(
    model: str,
    messages: list[Message],
    structured: StructuredOutput | None,
    max_tokens: int,
    temperature: float,
    seed: int | None,
) -> dict[str, Any]:
    """The request as a plain dict: the exact content that is hashed and stored."""
    return {
        "v": CACHE_FORMAT_VERSION,
        "model": model,
        "messages": [m.model_dump() for m in messages],
        "structured": structured.model_dump() if structured is not None else None,
        "max_tokens": max_tokens,
        "temperature": float(temperature),
        "seed": seed,
    }


def cache_key(request: dict[str, Any]) -> str:
    """sha256 hex of canonical JSON (sorted keys, no whitespace, UTF-8)."""
    blob = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _key_or_error(request: dict[str, Any]) -> str:
    """`cache_key`, or `LLMRequestError` (permanent) for a prompt that is not valid UTF-8."""
    try:
        return cache_key(request)
    except UnicodeEncodeError as exc:
        problem = f"{exc.reason} at character {exc.start}"
    raise LLMRequestError(
        f"the request cannot be encoded as UTF-8 ({problem}); prompts must be built from sanitised text"
    )


class CacheEntry(BaseModel):
    """What one cache file holds: the request (for humans and audits) and the answer."""

    model_config = ConfigDict(extra="forbid")

    key: str
    request: dict[str, Any]
    completion: Completion


class CachedModel:
    """Wraps a `Model`; answers repeated requests from ``cache_dir`` instead of the model.

    A hit returns the stored `Completion` with ``cached=True``, the original
    token counts and cost, ``latency_s=0`` and the original latency in
    ``original_latency_s``; it sent no request, so ``retries`` is 0.  Unreadable
    entries are treated as misses and overwritten.  Errors are never cached, and an
    answer that cannot be stored (read-only folder, full disk) is returned uncached, with one
    warning per model, rather than ending the run.
    """

    def __init__(self, inner: Model, cache_dir: Path) -> None:
        self._inner = inner
        self._dir = Path(cache_dir)
        self.hits = 0
        self.misses = 0
        self._warned = False

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def inner(self) -> Model:
        return self._inner

    @property
    def cache_dir(self) -> Path:
        return self._dir

    def path_for(self, key: str) -> Path:
        return self._dir / key[:2] / f"{key}.json"

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
        request = canonical_request(self.name, messages, structured, max_tokens, temperature, seed)
        key = _key_or_error(request)
        path = self.path_for(key)
        hit = self._load(path, key)
        if hit is not None:
            self.hits += 1
            return hit.model_copy(
                update={
                    "cached": True,
                    "latency_s": 0.0,
                    "original_latency_s": hit.latency_s,
                    "retries": 0,
                    "retry_causes": (),
                }
            )
        self.misses += 1
        completion = await self._inner.generate(
            messages,
            structured=structured,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            grounding=grounding,
        )
        self._store(path, CacheEntry(key=key, request=request, completion=completion))
        return completion

    def _load(self, path: Path, key: str) -> Completion | None:
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:  # unreadable folder or entry: ask the model instead
            self._warn_once(f"cache entry {path} cannot be read ({exc.__class__.__name__}); asking the model")
            return None
        try:
            entry = CacheEntry.model_validate_json(raw)
        except ValidationError:
            _LOG.warning("ignoring unreadable cache entry %s", path)
            return None
        return entry.completion if entry.key == key else None

    def _warn_once(self, message: str) -> None:
        """One warning per model: a read-only cache folder would otherwise warn on every call."""
        if not self._warned:
            self._warned = True
            _LOG.warning("%s", message)

    def _store(self, path: Path, entry: CacheEntry) -> None:
        # The stored record is the fresh answer, so a hit can report the original latency.
        stored = entry.model_copy(update={"completion": entry.completion.model_copy(update={"cached": False})})
        try:
            blob = stored.model_dump_json(indent=1)
        except ValueError as exc:  # pydantic's serialisation error is a ValueError
            # Not expected (answers are sanitised, the request was encoded for its key); the answer is still good.
            _LOG.warning("not caching %s: %s", path.name, str(exc).splitlines()[0][:160])
            return
        # a server that echoes a key must not put it on disk; values are redacted, so the entry stays JSON
        try:
            write_atomic(path, json.dumps(redact_values(json.loads(blob)), indent=1))
        except OSError as exc:  # read-only or full disk: the answer is good, only the replay is lost
            self._warn_once(f"answers are not being cached: {disk_problem(exc)}")
