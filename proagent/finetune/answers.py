"""A teacher's answer in the student's answer format.

A teacher writes its answer however it writes (the Overcooked scripted planner: labelled lines;
the other worlds' planners and hosted models: JSON, with fields the request may not ask for). The
embedded model answers a request that carries a JSON schema under a GBNF grammar compiled from it
(`proagent.llm.embedded.grammar_text`): its properties in sorted order, each skill an ``enum`` of
the schema, free text bounded by ``maxLength``. Taught the teacher's own text, the student learns
tokens the grammar never lets it write, and its answers do not change. So each answer is read with
the agent's own reader (`proagent.agent.planner.answer_fields`; the plan as the agent read it
while playing, recorded with the attempt) and written as the JSON that request's grammar accepts.

An answer that cannot be written so (no plan, a skill the schema does not list, a free text over
its bound, a schema of a shape the agent never sends) raises `Unrendered` with a short reason, which
the set counts (`DataSelection.answers`). A request without a schema (``answer_format = "text"``)
asked for free text, which the student also writes without a grammar: the answer is kept as
written, if the agent's reader finds a plan in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from proagent.agent.planner import answer_fields, teammate_skill_texts
from proagent.bounded import small_whole
from proagent.llm.embedded import grammar_schema
from proagent.llm.types import StructuredOutput

__all__ = ["JSON_STYLE", "AnswerFormat", "Unrendered", "answer_format", "plan_value_bytes", "student_answer"]

AnswerFormat = Literal["json", "text"]
# How a JSON answer is written, within what the grammar allows (its whitespace rule is `" "?`):
# what `json.dumps` writes, on one line, non-ASCII characters as themselves (one grammar character each).
JSON_STYLE = (
    "one line; properties in the schema's sorted order, as the grammar emits them; ', ' and ': ' between "
    "items; non-ASCII characters unescaped"
)
_CALL = re.compile(r"[a-z_]+\s*\([^)]*\)")
_PLAN_KEY = '"plan": "'  # as `student_answer` writes it; never inside a JSON string (its quotes are escaped there)


class Unrendered(ValueError):
    """A teacher's answer the student's format cannot hold; ``reason`` is what the set counts."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def answer_format(structured: StructuredOutput | None) -> AnswerFormat:
    """The format the student answers a request in: JSON under a grammar where it carries a schema."""
    return "text" if structured is None else "json"


def student_answer(
    answer: str, structured: StructuredOutput | None, plan: str | None = None, analysis_max_chars: int | None = None
) -> str:
    """``answer`` as the student would write it to a request carrying ``structured``. ``plan``: the
    skill the agent read from the answer while playing (None: read here from the answer's plan field).
    ``analysis_max_chars``: the analysis bound of the student's own request, where it plays with
    another than the teacher's (the embedded model's default is shorter than a capable model's; None:
    the request's). Unrendered when the answer cannot be written in that format."""
    fields = answer_fields(answer)
    if not fields.get("plan") and plan is None:
        raise Unrendered("no plan the agent can read")
    if structured is None:
        return answer
    schema = json.loads(grammar_schema(structured))
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict) or not properties:
        raise Unrendered(f"schema {structured.name!r} is not an object of properties")
    required = set(schema.get("required", properties))
    out: dict[str, Any] = {}
    for key, prop in properties.items():
        text = plan if key == "plan" and plan is not None else fields.get(key)
        if text is None and key not in required:
            continue
        if key == "analysis" and analysis_max_chars is not None and "maxLength" in prop:
            prop = {**prop, "maxLength": analysis_max_chars}
        out[key] = _value(key, prop, text)
    return json.dumps(out, ensure_ascii=False).replace("\x7f", "\\u007f")  # the grammar refuses a raw DEL


def _value(key: str, prop: Mapping[str, Any], text: str | None) -> str | dict[str, str]:
    """One property's value from the answer's field ``text``."""
    if "enum" in prop:
        return _skill(key, text or "", prop["enum"])
    if prop.get("type") == "object" and isinstance(prop.get("properties"), dict):
        return _per_teammate(key, prop["properties"], text or "")
    if prop.get("type") == "string":
        value = text or ""  # a free text the answer left out: said nothing, as the agent reads it
        bound = prop.get("maxLength")
        if isinstance(bound, int) and len(value) > bound:
            raise Unrendered(f"{key} longer than the schema's {bound} characters")
        return value
    raise Unrendered(f"{key}: a property of a kind the agent never asks for")


def _per_teammate(key: str, properties: Mapping[str, Any], text: str) -> dict[str, str]:
    """``{"player 1": skill, ...}`` from an intention naming each teammate's skill (JSON or lines)."""
    named = teammate_skill_texts(text)
    out = {}
    for player, prop in properties.items():
        seat = small_whole(player.removeprefix("player ").strip())
        if seat is None or "enum" not in prop:
            raise Unrendered(f"{key}: a property of a kind the agent never asks for")
        out[player] = _skill(f"{key} of {player}", named.get(seat, ""), prop["enum"])
    return out


def _skill(key: str, text: str, allowed: list[str]) -> str:
    """The value of ``allowed`` that ``text`` names: itself, or the same call written with other case,
    spaces, quotes or dashes, or the first such call inside a sentence (as the skill books read it)."""
    if text in allowed:
        return text
    by_form = {_form(value): value for value in allowed}
    for candidate in (text, *_CALL.findall(text.lower())):
        if _form(candidate) in by_form:
            return by_form[_form(candidate)]
    raise Unrendered(f"{key} not a skill the schema allows")


def _form(text: str) -> str:
    return re.sub(r"[\s'\"]", "", text.lower()).replace("-", "_")


def plan_value_bytes(answer: str) -> tuple[int, int] | None:
    """The UTF-8 byte range of the plan's value (the skill, without its quotes) in a JSON answer as
    `student_answer` writes it; None for an answer without one (free text, a schema with no plan)."""
    at = answer.find(_PLAN_KEY)
    if at < 0:
        return None
    start = at + len(_PLAN_KEY)
    end = answer.find('"', start)
    if end <= start:
        return None
    return len(answer[:start].encode("utf-8")), len(answer[:end].encode("utf-8"))
