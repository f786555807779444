"""A planner answer in the format its prompt asked for: one home for the JSON-or-lines choice.

Each world's responder decides what to do and hands an `Answer` here; the grounding's
``output_format`` (what the prompt set rendered) picks one JSON object or ``Analysis:/Intention:/
Plan:`` lines, so no responder carries its own copy of the choice or reads the prompt's wording.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from proagent.llm.types import Grounding

Intention = str | Mapping[str, str]  # one skill, or one per teammate: {"player 2": "push(1)"}


@dataclass(frozen=True)
class Answer:
    """What a responder decided: the plan, a short analysis, the teammates' expected skills and,
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
    """``answer`` in the format ``grounding``'s prompt asked for."""
    return render(answer, grounding.output_format)


class MissingGrounding(LookupError):
    """A world responder was asked without a grounding: the request did not come from a ProAgent
    through `LoopbackModel` or `ScriptedModel` (a responder never falls back to reading wording)."""


def require(grounding: Grounding | None) -> Grounding:
    """``grounding``, or `MissingGrounding` that says how to send one."""
    if grounding is None:
        raise MissingGrounding(
            "no grounding came with this request: run the agent's model through tests.support.loopback "
            "(--llm python:tests.support.loopback:loopback_model) or a ScriptedModel"
        )
    return grounding
