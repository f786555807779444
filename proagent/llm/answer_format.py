"""The planner's answer in the format a request asks for, for the loopback test doubles.

Every domain's heuristic responder (behind `FakeChatServer`) reads a prompt, decides, and must then
answer as a model would: one JSON object when the request carries a schema (``response_format``) or
the prompt asks for one, else ``Analysis:/Intention:/Plan:`` lines. One home for that choice keeps
the responders from drifting apart on it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

JSON_REQUEST = "Answer with one JSON object"  # what the JSON prompt sets say


def wants_json(body: Mapping[str, Any], user: str) -> bool:
    """Whether the request asks for a JSON answer (a schema, or the prompt's own words)."""
    return "response_format" in body or JSON_REQUEST in user


def format_answer(
    body: Mapping[str, Any],
    user: str,
    analysis: str,
    intention: str | Mapping[str, str],
    plan: str,
    message: str | None = None,
) -> str:
    """``analysis``, ``intention`` (one skill, or one per teammate: ``{"player 2": "push(1)"}``),
    ``plan`` and an optional ``message`` as JSON or as labelled lines; per-teammate intentions
    become ``player 2: push(1); player 3: wait(1)`` in text."""
    if wants_json(body, user):
        answer: dict[str, Any] = {
            "analysis": analysis,
            "intention": dict(intention) if isinstance(intention, Mapping) else intention,
            "plan": plan,
        }
        if message is not None:
            answer["message"] = message
        return json.dumps(answer)
    if isinstance(intention, Mapping):
        intention = "; ".join(f"{k}: {v}" for k, v in intention.items())
    return f"Analysis: {analysis}\nIntention: {intention}\nPlan: {plan}" + (
        "" if message is None else f"\nMessage: {message}"
    )
