"""The Planner adapter: format a prompt and parse the answer, two halves of one object.

The parser is tolerant of what real models do: JSON with or without a code fence, labelled lines
in any case, markdown bold, list markers, extra prose. What cannot be parsed raises
``PlanParseError`` carrying the raw answer, which the Verificator treats as a failed attempt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from proagent.agent.prompts import Knowledge, PromptSet
from proagent.bounded import NumberError, read_int
from proagent.llm.sanitize import clean_field
from proagent.llm.types import Grounding, Message, StructuredOutput
from proagent.world.types import Skill, SkillBook, SkillParseError

ANALYSIS_MAX_CHARS = 240  # default bound on the free-text analysis in structured output
MESSAGE_MAX_CHARS = 300  # bound on a message to teammates in structured output


class PlanParseError(ValueError):
    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True)
class PlannerOutput:
    plan: Skill
    analysis: str | None
    intention: Skill | None
    intention_text: str | None
    raw: str
    intentions: dict[int, Skill | None] = field(default_factory=dict)  # per teammate seat, with several teammates
    message: str | None = None  # what to tell teammates (MAEIL topologies that let the agent speak)


# Leading non-word characters and digits: markdown bold, "-"/"*" bullets and "1." numbered lists.
_LABEL = re.compile(r"^[\W\d]*(analysis|intention|teammate intention|plan|message)\W*[:：]\s*(.*)$", re.IGNORECASE)


_PLAYER_SKILL = re.compile(r"player\s*([0-9]+)\W*[:=]\s*\W*([a-z_]+\s*\([^)]*\))")
ONE_LINE_FIELDS = ("message", "intention")
MAX_SEAT = 1_000  # above any team size; a larger "player N" names no teammate


class Planner:
    def __init__(
        self,
        prompts: PromptSet,
        knowledge: Knowledge,
        book: SkillBook,
        seat: int,
        output_format: str,
        analysis_max_chars: int = ANALYSIS_MAX_CHARS,
        teammates: tuple[int, ...] = (),
    ) -> None:
        self.prompts = prompts
        self.teammates = teammates
        # With several teammates the answer predicts each one's next skill ("player k": skill).
        self.per_teammate = len(teammates) > 1
        self.analysis_max_chars = analysis_max_chars
        self.knowledge = knowledge
        self.book = book
        self.seat = seat
        self.output_format = output_format
        self.system_prompt = prompts.render("planner_system.j2", self._static_variables())

    def _static_variables(self) -> dict:
        return {
            "task": self.knowledge.task,
            "rules": self.knowledge.rules,
            "skills": [
                {"signature": s.signature, "description": self.knowledge.render(s.description)}
                for s in self.book.specs.values()
            ],
            "layout": self.knowledge.layout,
            "demos": self.knowledge.demos,
            "fields": list(self.prompts.fields),
            "output_format": self.output_format,
            "seat": self.seat,
            "teammates": list(self.teammates),
        }

    def fields(self, talk: dict | None = None) -> list[str]:
        """The answer's fields: the prompt set's, plus a message when the conversation lets the agent speak."""
        return [*self.prompts.fields, "message"] if talk and talk["may_send"] else list(self.prompts.fields)

    def messages(
        self, facts: dict, memory: list[dict], feedback: list[dict], talk: dict | None = None
    ) -> list[Message]:
        """The planner prompt; ``talk`` (MAEIL: role, unread messages, whether it may speak) is
        passed to the template only when there is a conversation, so prompts without one are unchanged."""
        variables = {
            "facts": facts,
            "memory": memory,
            "feedback": feedback,
            "fields": self.fields(talk),
            "output_format": self.output_format,
            "teammates": list(self.teammates),
        }
        if talk is not None:
            variables["talk"] = talk
        user = self.prompts.render("planner_user.j2", variables)
        return [Message(role="system", content=self.system_prompt), Message(role="user", content=user)]

    def explainer_messages(self, facts: dict, skill: Skill, reasons: list[str]) -> list[Message]:
        user = self.prompts.render("explainer.j2", {"facts": facts, "skill": str(skill), "reasons": reasons})
        return [Message(role="system", content=self.system_prompt), Message(role="user", content=user)]

    def verify_prompt(self, template: str, facts: dict, skill: Skill, reasons: list[str]) -> str:
        """One round's user message of the llm3 Verificator (`agent/verificator.py`): the state, the
        rejected skill with its description (its preconditions in words) and the checks' reasons."""
        spec = self.book.specs.get(skill.name)
        description = self.knowledge.render(spec.description) if spec is not None else ""
        variables = {"facts": facts, "skill": str(skill), "description": description, "reasons": reasons}
        return self.prompts.render(template, variables)

    def grounding(self, facts: dict, memory: list[dict], feedback: list[dict], talk: dict | None = None) -> Grounding:
        """What `messages` renders the planner prompt from, for a test double to answer from
        (the same arguments, so the two cannot disagree)."""
        return Grounding(
            purpose="plan",
            facts=facts,
            memory=tuple(memory),
            feedback=tuple(feedback),
            talk=talk,
            fields=tuple(self.fields(talk)),
            **self._grounding_common(),
        )

    def explainer_grounding(self, facts: dict, skill: Skill, reasons: list[str]) -> Grounding:
        """What `explainer_messages` renders the explainer prompt from (its answer is one sentence)."""
        common = self._grounding_common()
        return Grounding(purpose="explain", facts=facts, skill=str(skill), reasons=tuple(reasons), **common)

    def verify_grounding(self, round_name: str, facts: dict, skill: Skill, reasons: list[str]) -> Grounding:
        """What `verify_prompt` renders one llm3 round from, and which round it is."""
        common = self._grounding_common()
        return Grounding(
            purpose="verify", verify_round=round_name, facts=facts, skill=str(skill), reasons=tuple(reasons), **common
        )

    def _grounding_common(self) -> dict[str, Any]:
        """The system prompt's part of a grounding: seat, skills, layout knowledge, answer format."""
        return {
            "seat": self.seat,
            "output_format": self.output_format,
            "teammates": self.teammates,
            "skills": tuple(s.signature for s in self.book.specs.values()),
            "layout": self.knowledge.layout,
        }

    def structured_output(self, allowed: list[Skill], talk: dict | None = None) -> StructuredOutput:
        """JSON schema of the answer: bounded free text, skills restricted to ``allowed``."""
        skill_names = [str(s) for s in allowed]
        all_names = [str(s) for s in self.book.all_skills()]
        props: dict[str, dict] = {}
        if "analysis" in self.prompts.fields:
            props["analysis"] = {"type": "string", "maxLength": self.analysis_max_chars}
        if "intention" in self.prompts.fields:
            props["intention"] = {"type": "string", "enum": all_names}
            if self.per_teammate:
                keys = [f"player {seat}" for seat in self.teammates]
                props["intention"] = {
                    "type": "object",
                    "properties": {k: {"type": "string", "enum": all_names} for k in keys},
                    "required": keys,
                    "additionalProperties": False,
                }
        props["plan"] = {"type": "string", "enum": skill_names}
        if "message" in self.fields(talk):
            props["message"] = {"type": "string", "maxLength": MESSAGE_MAX_CHARS}
        schema = {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
        return StructuredOutput(name="proagent_plan", json_schema=schema)

    def parse(self, raw: str) -> PlannerOutput:
        fields = answer_fields(raw)
        plan_text = fields.get("plan")
        if not plan_text:
            raise PlanParseError("the answer has no plan (expected a 'plan' field or a 'Plan:' line)", raw)
        try:
            plan = self.book.parse(plan_text)
        except SkillParseError as exc:
            raise PlanParseError(f"the plan is not a valid skill: {exc}", raw) from exc
        intention_text = fields.get("intention")
        intention = None
        if intention_text:
            try:
                intention = self.book.parse(intention_text)
            except SkillParseError:
                intention = None
        intentions = self._per_teammate(intention_text) if self.per_teammate and intention_text else {}
        analysis = fields.get("analysis")
        message = (fields.get("message") or "").strip() or None
        return PlannerOutput(
            plan=plan,
            analysis=analysis,
            intention=intention,
            intention_text=intention_text,
            raw=raw,
            intentions=intentions,
            message=message,
        )

    def _per_teammate(self, text: str) -> dict[int, Skill | None]:
        """Each teammate's predicted skill from ``{"player 2": "press()", ...}`` or ``player 2: press(); ...``
        (a teammate the answer skips or names an unreadable skill for gets None: no prediction)."""
        out: dict[int, Skill | None] = {}
        for seat, skill_text in teammate_skill_texts(text).items():
            if seat in self.teammates:
                try:
                    out[seat] = self.book.parse(skill_text)
                except SkillParseError:
                    out[seat] = None
        return out


def answer_fields(raw: str) -> dict[str, str]:
    """The fields of an answer (analysis, intention, plan, message), read from JSON or labelled lines
    and cleaned: the one reading of what a model wrote, which the planner and the fine-tuner's
    rendering of a teacher's answer (`proagent.finetune.answers`) share, so the two cannot disagree."""
    fields = _json_fields(raw) or _labelled_fields(raw)
    # the one cleaning point of what the model wrote; what is carried into later prompts (a message
    # to teammates, the intention the agent's memory keeps) is one line
    return {name: clean_field(value, one_line=name in ONE_LINE_FIELDS) for name, value in fields.items()}


def teammate_skill_texts(text: str) -> dict[int, str]:
    """Each teammate's skill text in a per-teammate intention (``{"player 2": "press()", ...}`` or
    ``player 2: press(); ...``), by seat, the first one named for a seat; a seat beyond any team
    (``player 99999...``) is skipped."""
    out: dict[int, str] = {}
    for seat_text, skill_text in _PLAYER_SKILL.findall(text.lower()):
        try:
            seat = read_int(seat_text, "player", 0, MAX_SEAT)
        except NumberError:
            continue
        out.setdefault(seat, skill_text)
    return out


def _json_fields(raw: str) -> dict[str, str] | None:
    start, end = raw.find("{"), raw.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(raw[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    out = {}
    for key, value in data.items():
        norm = str(key).lower().replace("teammate_", "").replace("teammate ", "").strip()
        if norm in ("analysis", "intention", "plan", "message") and value is not None:
            out[norm] = value if isinstance(value, str) else json.dumps(value)
    return out


def _labelled_fields(raw: str) -> dict[str, str]:
    out: dict[str, str] = {}
    current = None
    own_text = []  # every line but the teammate intention's: the fallback must not take it as our plan
    for line in raw.splitlines():
        match = _LABEL.match(line.strip())
        owner = None
        if match:
            current = owner = match.group(1).lower().split()[-1]
            out[current] = match.group(2).strip().strip("*").strip()
        elif current and line.strip() and not out[current]:
            owner = current
            out[current] = line.strip().strip("*").strip()
        if owner not in ("intention", "message"):
            own_text.append(line)
    if "plan" not in out:
        calls = re.findall(r"[a-z_]+\([a-z0-9_'\"]*\)", "\n".join(own_text).lower())
        if calls:
            out["plan"] = calls[-1]
    return out
