"""Core records, the `Model` protocol and the error hierarchy of `proagent.llm`.

The agent only ever talks to a `Model`: one async ``generate`` call that takes
chat messages and returns a `Completion` record.  Keeping the interface this
small (smolagents-style) lets a hosted API, a local server, an in-process GGUF
model, an on-disk cache, a world's scripted planner and a test double all be
swapped freely. Beside the messages the agent sends a `Grounding`: what the
prompt was rendered from, for the scripted planner (``--llm scripted``) and the
test doubles only.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.llm.sanitize import sanitize_text

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

    ``text`` is cleaned on the way in (`sanitize_text`): every backend, the cache
    and the test doubles make Completions, so this is the one place where a
    model's text enters proagent.  ``anomalies`` names what was repaired there
    or by the backend (``lone_surrogates``, ``usage_clamped``, ...).
    ``retries`` counts the requests that failed and were retried before this
    answer; ``retry_causes`` has the short class name of each failure (both
    empty for a cache hit, which sent no request).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    model: str
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    reused_prompt_tokens: int = Field(
        0, ge=0, description="prompt tokens not evaluated again: a reused prefix (KV cache)"
    )
    latency_s: float = Field(ge=0.0)
    cost_usd: float | None = None
    cached: bool = False
    original_latency_s: float | None = None
    finish_reason: str | None = None
    retries: int = Field(0, ge=0, description="failed requests retried before this answer")
    retry_causes: tuple[str, ...] = Field((), description="class name of each retried failure, in order")
    anomalies: tuple[str, ...] = Field((), description="what was repaired in the answer (sanitising, usage)")

    @model_validator(mode="before")
    @classmethod
    def _sanitize(cls, data: Any) -> Any:
        """Clean ``text`` (idempotent, so a cache entry read back is unchanged) and note repairs."""
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return data
        text, notes = sanitize_text(data["text"])
        if not notes and text == data["text"]:
            return data
        return {**data, "text": text, "anomalies": (*data.get("anomalies", ()), *notes)}


Purpose = Literal["plan", "explain", "verify", "probe"]


class Grounding(BaseModel):
    """What one prompt was rendered from, sent beside it: for the scripted planner and test doubles only.

    A planner that answered from a prompt's wording would break whenever a template's sentence was
    reworded; one that answers from these typed values does not. They are exactly what the prompt
    of that seat was rendered from (observation honesty: the seat's grounded facts, never the
    engine state): the planner's facts, memory, feedback and conversation, or the explainer's
    skill and reasons; the skills and layout knowledge of the system prompt; the answer's format.

    Real backends never send it, the cache never keys on it, and nothing logs or records it, so
    cache keys and recorded prompts are the same with or without it. Frozen: the dicts inside are
    the agent's own and must not be changed by a reader.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    purpose: Purpose
    seat: int
    facts: dict[str, Any] = Field(description="the world's ground(...) facts for this seat")
    output_format: Literal["json", "text"] = Field(description="the answer format the prompt asks for")
    fields: tuple[str, ...] = Field((), description="the answer's fields (plan, analysis, intention, message)")
    teammates: tuple[int, ...] = ()
    skills: tuple[str, ...] = Field((), description="the skill signatures the system prompt lists")
    layout: dict[str, Any] = Field(default_factory=dict, description="the layout's knowledge: name, notes, role, ...")
    memory: tuple[dict[str, Any], ...] = Field((), description="the recent decisions the prompt shows")
    feedback: tuple[dict[str, Any], ...] = Field((), description="this decision's rejected attempts")
    talk: dict[str, Any] | None = Field(None, description="MAEIL: the conversation the prompt shows")
    skill: str | None = Field(None, description="explain: the rejected skill")
    reasons: tuple[str, ...] = Field((), description="explain: why the checks rejected it")
    verify_round: str | None = Field(
        None, description="verify: the llm3 Verificator's round (preconditions, double_check, conclusion)"
    )
    probe_items: tuple[str, ...] = Field((), description="probe: the items the seat is asked about")
    probe_values: tuple[str, ...] = Field((), description="probe: the values an answer may take (and 'unknown')")


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
        grounding: Grounding | None = None,
    ) -> Completion:
        """Answer ``messages``; see `Completion` for what comes back. ``grounding`` is for the scripted
        planner and test doubles: a language model's backend ignores it and a wrapper passes it on unchanged."""
        ...


class LLMError(Exception):
    """Base class of every error raised by `proagent.llm`."""


class LLMConfigError(LLMError):
    """The model cannot be used as configured (missing key, unknown model, missing backend).

    Retrying cannot help; the message says exactly what to set or install.
    """


class LLMRequestError(LLMError):
    """Our own request cannot be sent (e.g. a prompt that is not valid UTF-8).

    Permanent: the same request would fail the same way, so it is never retried.
    """


class LLMResponseError(LLMError):
    """The provider answered, but not with a usable chat completion (no choices, content that is
    not text, token counts that are not numbers, a body that is not JSON).

    ``excerpt`` is a short, redacted piece of the raw answer; ``attempts`` the requests made.
    """

    def __init__(self, message: str, *, excerpt: str = "", attempts: int = 1) -> None:
        super().__init__(message)
        self.excerpt = excerpt
        self.attempts = attempts


class LLMUnavailableError(LLMError):
    """The provider kept failing with transient errors until retries ran out.

    ``provider_message`` is the provider's last error text with secrets redacted.
    """

    def __init__(self, message: str, *, provider_message: str = "", attempts: int = 0) -> None:
        super().__init__(message)
        self.provider_message = provider_message
        self.attempts = attempts
