"""`ScriptedModel`: a deterministic in-process `Model` for tests and benchmarks.

Agent tests need to control exactly what the "LLM" says (including malformed answers and
failures) and to inspect the prompts the agent built. Answers come from a queue, or from a
function of the request (a `ScriptedCall`: the messages, the schema and the grounding the agent
sent beside them, which a world's responder answers from); every request is kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from pydantic import BaseModel, ConfigDict

from proagent.llm.types import Completion, Grounding, LLMError, Message, StructuredOutput

__all__ = ["Responder", "ScriptedCall", "ScriptedModel", "answering"]


class ScriptedCall(BaseModel):
    """One request received by a `ScriptedModel`."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    structured: StructuredOutput | None
    max_tokens: int
    temperature: float
    seed: int | None
    grounding: Grounding | None = None


Responder = Callable[[ScriptedCall], str]


def answering(world_responder: Callable[[Grounding | None], str]) -> Responder:
    """A `ScriptedModel` responder that plays a world's responder on each call's grounding."""
    return lambda call: world_responder(call.grounding)


def _count_tokens(text: str) -> int:
    """A crude whitespace token count, enough for accounting tests."""
    return len(text.split())


class ScriptedModel:
    """Answers from ``responses`` in order (an Exception item is raised instead), then from ``respond``.

    With neither left, a call raises `LLMError`, so a test notices an unexpected extra call.
    """

    def __init__(
        self,
        responses: Iterable[str | BaseException] = (),
        *,
        respond: Responder | None = None,
        name: str = "test-double",
    ) -> None:
        self._queue: deque[str | BaseException] = deque(responses)
        self._respond = respond
        self._name = name
        self.calls: list[ScriptedCall] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def push(self, *responses: str | BaseException) -> None:
        self._queue.extend(responses)

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
        call = ScriptedCall(
            messages=list(messages),
            structured=structured,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            grounding=grounding,
        )
        self.calls.append(call)
        if self._queue:
            item = self._queue.popleft()
            if isinstance(item, BaseException):
                raise item
            text = item
        elif self._respond is not None:
            text = self._respond(call)
        else:
            raise LLMError(f"ScriptedModel {self._name!r} has no scripted response left (call {len(self.calls)})")
        return Completion(
            text=text,
            model=self._name,
            prompt_tokens=sum(_count_tokens(m.content) for m in messages),
            completion_tokens=_count_tokens(text),
            latency_s=0.0,
            cost_usd=None,
            cached=False,
            finish_reason="stop",
        )
