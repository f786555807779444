"""Asking the agent what it believes (a world's `BeliefProbes`), and scoring the answer.

Once per turn of its seat, when asked to (``AgentConfig.belief_probe``), the agent makes one extra
model call: the probe template (``prompts/<world>/probes/<name>.j2``) renders the seat's grounded
facts (the same honest facts its planner sees) and asks for a value per item. The answer is
untrusted text: it is cut to a bound, read item by item, and anything that names no item or no
allowed value is dropped (counted as ``invalid``) and the item left "unknown". Only then is it
compared with the truth, which the world reads from the full state outside any prompt.

Why per turn and split into seen/unseen: the YLE paper's probes ask exactly this, per card, over
the game; a seat that forgets what it saw fails the seen half, one that reads no signal from its
teammates stays at chance on the unseen half.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping
from pathlib import Path

import jinja2
from pydantic import BaseModel, Field

from proagent.agent.prompts import PromptSetError
from proagent.llm.sanitize import clip
from proagent.llm.types import Grounding, Message, StructuredOutput
from proagent.world.interface import Domain
from proagent.world.probes import UNKNOWN, BeliefProbes, ProbeQuestion
from proagent.world.types import DomainEnv, State

PROBES_FOLDER = "probes"  # prompts/<world>/probes/<template>.j2
# One "item": "value" pair of an answer, JSON or not ("3: red", "3=red"); names are short words.
PAIR = re.compile(r"\"?\b([A-Za-z0-9_]{1,24})\"?\s*[:=]\s*\"?([A-Za-z_]{1,24})\b")


class ProbeTurn(BaseModel):
    """One probed turn: the question's size, the cleaned answer and its score against the truth."""

    step: int
    turn: int
    answers: dict[str, str] = Field(description="item -> the value the seat believes (cleaned; 'unknown' if none)")
    invalid: int = Field(0, ge=0, description="answer entries dropped: no such item, no such value, or repeated")
    seen_correct: int = Field(ge=0)
    seen_total: int = Field(ge=0)
    unseen_correct: int = Field(ge=0)
    unseen_total: int = Field(ge=0)
    seen_accuracy: float | None = Field(description="correct / total over the items the seat has seen; None if none")
    unseen_accuracy: float | None = Field(description="correct / total over the items it never saw; None if none")
    messages: list[dict] = Field(default_factory=list, description="the probe prompt as sent")
    response: str = Field("", description="the model's answer, cut to the probe's bound")
    error: str | None = Field(None, description="why the answer could not be read at all")


def parse_beliefs(text: str, question: ProbeQuestion, forced: bool = False) -> tuple[dict[str, str], int]:
    """Item -> value from an untrusted answer (already bounded): the first value given for an item
    wins (a model may not hedge by naming two), and every item left out is "unknown". With
    ``forced`` an "unknown" answer is invalid too (it was not among the choices)."""
    allowed = {*question.values} if forced else {*question.values, UNKNOWN}
    answers = dict.fromkeys(question.items, UNKNOWN)
    given: set[str] = set()
    invalid = 0
    for item, raw in PAIR.findall(text):
        value = raw.lower()
        if item not in answers or item in given or value not in allowed:
            invalid += 1
            continue
        answers[item] = value
        given.add(item)
    return answers, invalid


def _accuracy(correct: int, total: int) -> float | None:
    return correct / total if total else None


def score_beliefs(
    step: int, question: ProbeQuestion, answers: dict[str, str], invalid: int, truth: Mapping[str, str]
) -> ProbeTurn:
    """The answer against the truth, split into the items the seat has seen and the others;
    "unknown" is never correct (so an agent that answers nothing scores 0, not chance)."""
    hits = {item: answers[item] != UNKNOWN and answers[item] == truth.get(item) for item in question.items}
    seen = [item for item in question.items if item in question.seen]
    unseen = [item for item in question.items if item not in question.seen]
    seen_correct, unseen_correct = sum(hits[i] for i in seen), sum(hits[i] for i in unseen)
    return ProbeTurn(
        step=step,
        turn=question.turn,
        answers=answers,
        invalid=invalid,
        seen_correct=seen_correct,
        seen_total=len(seen),
        unseen_correct=unseen_correct,
        unseen_total=len(unseen),
        seen_accuracy=_accuracy(seen_correct, len(seen)),
        unseen_accuracy=_accuracy(unseen_correct, len(unseen)),
    )


def probe_schema(question: ProbeQuestion, forced: bool = False) -> StructuredOutput:
    """A JSON object with one allowed value per item ("unknown" among them unless ``forced``):
    backends with grammars (the embedded model) can only write a well-formed answer; the others
    are still parsed defensively."""
    value = {"type": "string", "enum": [*question.values] if forced else [*question.values, UNKNOWN]}
    return StructuredOutput(
        name="beliefs",
        json_schema={
            "type": "object",
            "properties": {item: value for item in question.items},
            "required": list(question.items),
            "additionalProperties": False,
        },
    )


def probe_summary(turns: list[ProbeTurn]) -> dict:
    """The episode record's probe fields: the count, the per-game means (over turns that had items
    of that kind) and the per-turn series the belief plots read."""
    seen = [t.seen_accuracy for t in turns if t.seen_accuracy is not None]
    unseen = [t.unseen_accuracy for t in turns if t.unseen_accuracy is not None]
    keep = ("turn", "step", "seen_accuracy", "unseen_accuracy", "seen_total", "unseen_total", "invalid")
    return {
        "belief_probes": len(turns),
        "belief_seen_accuracy": statistics.fmean(seen) if seen else None,
        "belief_unseen_accuracy": statistics.fmean(unseen) if unseen else None,
        "belief_by_turn": [t.model_dump(include=set(keep)) for t in turns],
    }


class BeliefProber:
    """One seat's probes over an episode: when one is due, its prompt, and the scored turns."""

    def __init__(
        self,
        probes: BeliefProbes,
        env: DomainEnv,
        prompts_root: Path,
        template: str,
        seat: int,
        max_chars: int,
        forced: bool = False,
    ) -> None:
        path = prompts_root / PROBES_FOLDER / f"{template}.j2"
        if not path.is_file():
            raise PromptSetError(f"no belief probe template {template!r} (looked for {path.name} in {path.parent})")
        jinja = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(prompts_root)), undefined=jinja2.StrictUndefined, autoescape=False
        )
        self.template = jinja.get_template(f"{PROBES_FOLDER}/{template}.j2")
        self.probes, self.env, self.seat, self.max_chars, self.forced = probes, env, seat, max_chars, forced
        self.turns: list[ProbeTurn] = []

    def due(self, believed: State) -> ProbeQuestion | None:
        """The question for this seat now, if one is due and its turn was not probed yet."""
        question = self.probes.question(self.env, believed, self.seat)
        if question is None or any(t.turn == question.turn for t in self.turns):
            return None
        return question

    def messages(self, facts: dict, question: ProbeQuestion) -> list[Message]:
        """The probe prompt: the seat's own grounded facts, the items and the allowed values."""
        try:
            unknown = None if self.forced else UNKNOWN  # the template asks for a guess where there is no "unknown"
            text = self.template.render(
                facts=facts, items=list(question.items), values=list(question.values), unknown=unknown
            )
        except jinja2.TemplateError as exc:
            raise PromptSetError(f"belief probe template {self.template.name}: {exc}") from exc
        return [Message(role="user", content=text.strip())]

    def grounding(self, facts: dict, question: ProbeQuestion) -> Grounding:
        return Grounding(
            purpose="probe",
            seat=self.seat,
            facts=facts,
            output_format="json",
            probe_items=question.items,
            probe_values=question.values,
        )

    def record(self, step: int, question: ProbeQuestion, text: str, truth: Mapping[str, str], messages: list[Message],
               error: str | None = None) -> ProbeTurn:
        """Clean and score one answer and keep it; ``error`` says why there was no readable answer."""
        response = clip(text, self.max_chars) or ""
        answers, invalid = parse_beliefs(response, question, self.forced)
        turn = score_beliefs(step, question, answers, invalid, truth)
        turn = turn.model_copy(
            update={"messages": [m.model_dump() for m in messages], "response": response, "error": error}
        )
        self.turns.append(turn)
        return turn


def check_probe(domain: Domain, env: DomainEnv, template: str, state: State, seat: int) -> None:
    """Raise `PromptSetError` before anything is paid for or written: the world offers no belief
    probes, or the template is missing or fails to render on ``state`` (when a probe is due there)."""
    probes = domain.capabilities.belief_probes
    if probes is None:
        raise PromptSetError(f"--belief-probe: the {domain.name} world offers no belief probes")
    prober = BeliefProber(probes, env, domain.prompts_root, template, seat, 0)
    question = probes.question(env, state, seat)
    if question is not None:
        prober.messages(domain.ground(state, seat, domain.skill_book(state), [], 0.0), question)


__all__ = [
    "BeliefProber",
    "ProbeTurn",
    "check_probe",
    "parse_beliefs",
    "probe_schema",
    "probe_summary",
    "score_beliefs",
]
