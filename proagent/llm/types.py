"""Core records, the `Model` protocol and the error hierarchy of `proagent.llm`.

The agent only ever talks to a `Model`: one async ``generate`` call that takes
chat messages and returns a `Completion` record.  Keeping the interface this
small (smolagents-style) lets a hosted API, a local server, an in-process GGUF
model, an on-disk cache and a scripted test double all be swapped freely.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant"]


class Message(BaseModel):
    """One chat turn.  Frozen so that a prompt cannot be mutated after it was hashed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str


class StructuredOutput(BaseModel):
    """A request for output constrained to a JSON schema.

    It is a *request*: backends that cannot enforce it fall back to free text,
    so the caller must still parse defensively.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    json_schema: dict[str, Any]


class Completion(BaseModel):
    """What one ``generate`` call produced, plus what it cost.

    ``latency_s`` is the wall time the caller waited (0 for a cache hit, whose
    original latency is kept in ``original_latency_s``).  ``cost_usd`` is None
    when the price of the model is not known (local servers, embedded models).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    model: str
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    reused_prompt_tokens: int = Field(0, ge=0, description="prompt tokens not evaluated again: a reused prefix (KV cache)")
    latency_s: float = Field(ge=0.0)
    cost_usd: float | None = None
    cached: bool = False
    original_latency_s: float | None = None
    finish_reason: str | None = None


@runtime_checkable
class Model(Protocol):
    """Anything that can answer a chat prompt asynchronously."""

    @property
    def name(self) -> str:
        """A stable identifier of the model; part of the cache key."""
        ...

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        """Answer ``messages``; see `Completion` for what comes back."""
        ...


class LLMError(Exception):
    """Base class of every error raised by `proagent.llm`."""


class LLMConfigError(LLMError):
    """The model cannot be used as configured (missing key, unknown model, missing backend).

    Retrying cannot help; the message says exactly what to set or install.
    """


class LLMUnavailableError(LLMError):
    """The provider kept failing with transient errors until retries ran out.

    ``provider_message`` is the provider's last error text with secrets redacted.
    """

    def __init__(self, message: str, *, provider_message: str = "", attempts: int = 0) -> None:
        super().__init__(message)
        self.provider_message = provider_message
        self.attempts = attempts
