"""`--llm scripted`: a world's scripted planner behind the `Model` contract, in process.

A scripted planner is code, not a language model: it answers each prompt from the typed `Grounding`
the agent sends beside it (that seat's facts, memory, feedback and conversation: what the prompt
was rendered from, never the engine state) and never reads the prompt's wording, so a reworded
template leaves its answers unchanged. It is the pipeline's upper bound in ablations (how far the
prompt, parsing and checks let a competent planner go), a teacher whose traces a student can be
trained on, and the tests' double. It answers the same grounding the same way every time; the
run's sampling seed and temperature change nothing.

The planner is the world's (its `ScriptedPlanning` capability), handed in by whoever knows the
world (`proagent.builder`, the evaluation's world): this layer names no world.

Token counts are a declared estimate (`TOKEN_COUNT`), so usage accounting and token budgets work,
and the run's model record (`describe_model`) says the model is scripted and how it counts.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from proagent.files import file_sha256
from proagent.llm.types import Completion, Grounding, LLMRequestError, Message, StructuredOutput

__all__ = [
    "SCRIPTED_CAPTION",
    "SCRIPTED_SPEC",
    "TOKEN_COUNT",
    "Answer",
    "MissingGrounding",
    "ModelRecord",
    "ScriptedPlanner",
    "ScriptedPlannerModel",
    "count_tokens",
    "describe_model",
    "format_answer",
    "is_scripted",
    "render",
    "require",
]

SCRIPTED_SPEC = "scripted"  # --llm scripted
SCRIPTED_CAPTION = "scripted planner (not a language model)"  # what a table or page calls it
TOKEN_COUNT = (
    "pieces: runs of letters, runs of digits and runs of other marks (a declared estimate; "
    "a scripted planner has no tokenizer)"
)
LANGUAGE_MODEL_TOKENS = "as the backend reports them (the provider's usage, or the embedded model's tokenizer)"

# Words, numbers and runs of punctuation: close to what a BPE pre-tokenizer splits before merging.
_PIECES = re.compile(r"[^\W\d_]+|\d+|[^\w\s]+|_+")

ScriptedPlanner = Callable[[Grounding], str]  # a world's planner: the grounding -> the answer's text
Intention = str | Mapping[str, str]  # one skill, or one per teammate: {"player 2": "push(1)"}


def count_tokens(text: str) -> int:
    """The declared token estimate of ``text`` (`TOKEN_COUNT`): deterministic and proportional to
    the text's length, which is what usage tables and a token budget need."""
    return len(_PIECES.findall(text))


def is_scripted(spec: str | None) -> bool:
    """Whether ``--llm spec`` names the scripted planner (no language model)."""
    return (spec or "").strip() == SCRIPTED_SPEC


class ModelRecord(BaseModel):
    """What a run records of its model, so no reader mistakes a scripted planner for a language
    model: ``kind``/``is_language_model`` to test, ``caption`` for tables and pages."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str = Field(description="the --llm value")
    kind: Literal["language_model", "scripted"]
    is_language_model: bool
    caption: str = Field(description="how a table or page caption names the model")
    token_count: str = Field(description="how the records' prompt and completion tokens are counted")
    adapter: str | None = Field(None, description="the embedded model's LoRA adapter file (--adapter), as given")
    adapter_sha256: str | None = Field(None, description="sha256 of that file: what fixes the model's answers")


def describe_with_adapter(spec: str, adapter: Path | None) -> ModelRecord:
    """The model record of ``--llm spec`` with the embedded model's ``--adapter`` and its sha256."""
    record = describe_model(spec)
    if adapter is None:
        return record
    return record.model_copy(update={"adapter": str(adapter), "adapter_sha256": file_sha256(Path(adapter))})


def describe_model(spec: str) -> ModelRecord:
    """The model record of ``--llm spec``."""
    if is_scripted(spec):
        return ModelRecord(
            spec=SCRIPTED_SPEC,
            kind="scripted",
            is_language_model=False,
            caption=SCRIPTED_CAPTION,
            token_count=TOKEN_COUNT,
        )
    return ModelRecord(
        spec=spec, kind="language_model", is_language_model=True, caption=spec, token_count=LANGUAGE_MODEL_TOKENS
    )


class MissingGrounding(LLMRequestError, LookupError):
    """A scripted planner was asked without a grounding: the request did not come from a ProAgent
    (a scripted planner never falls back to reading the prompt's wording). Permanent: never retried."""


def require(grounding: Grounding | None) -> Grounding:
    """``grounding``, or `MissingGrounding` that says where one comes from."""
    if grounding is None:
        raise MissingGrounding(
            "no grounding came with this request: a scripted planner answers from the typed state a "
            "ProAgent sends beside each prompt (--llm scripted), never from the prompt's words"
        )
    return grounding


@dataclass(frozen=True)
class Answer:
    """What a planner decided: the plan, a short analysis, the teammates' expected skills and,
    where the conversation lets the agent speak, a message."""

    analysis: str
    intention: Intention
    plan: str
    message: str | None = field(default=None)


def render(answer: Answer, output_format: Literal["json", "text"]) -> str:
    """``answer`` as one JSON object or as labelled lines; per-teammate intentions become
    ``player 2: push(1); player 3: wait(1)`` in lines."""
    if output_format == "json":
        data: dict[str, object] = {
            "analysis": answer.analysis,
            "intention": dict(answer.intention) if isinstance(answer.intention, Mapping) else answer.intention,
            "plan": answer.plan,
        }
        if answer.message is not None:
            data["message"] = answer.message
        return json.dumps(data)
    intention = answer.intention
    if isinstance(intention, Mapping):
        intention = "; ".join(f"{k}: {v}" for k, v in intention.items())
    lines = f"Analysis: {answer.analysis}\nIntention: {intention}\nPlan: {answer.plan}"
    return lines if answer.message is None else f"{lines}\nMessage: {answer.message}"


def format_answer(grounding: Grounding, answer: Answer) -> str:
    """``answer`` in the format ``grounding``'s prompt asked for (its ``output_format``), so no
    planner carries its own copy of the choice or reads the prompt's wording."""
    return render(answer, grounding.output_format)


class ScriptedPlannerModel:
    """A world's scripted planner as a `Model`: named ``scripted`` (so the cache, the records and
    every table tell it apart from a language model), free, and answering from the grounding.

    Its answers are never cached: they are code's, cheap to recompute, and a cache keyed on the
    prompt alone could replay an answer to another grounding after the planner changed.
    """

    def __init__(self, planner: ScriptedPlanner) -> None:
        self._planner = planner

    @property
    def name(self) -> str:
        return SCRIPTED_SPEC

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
        """The planner's answer to ``grounding`` (`MissingGrounding` without one). The answer is
        the planner's whole text: ``max_tokens`` bounds a language model's sampling, and a planner
        that wrote past it would be a bug of the planner, which the agent's parser would show."""
        started = time.perf_counter()
        text = self._planner(require(grounding))
        return Completion(
            text=text,
            model=SCRIPTED_SPEC,
            prompt_tokens=sum(count_tokens(m.content) for m in messages),
            completion_tokens=count_tokens(text),
            latency_s=time.perf_counter() - started,
            cost_usd=0.0,
            finish_reason="stop",
        )
