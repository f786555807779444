"""The optional post-game questionnaire: questions are data (knowledge/questionnaire.toml, the six
Likert statements of the interdependence paper's App. E.6), answers are validated and saved with
the run as questionnaire.json next to the episode they rate."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from proagent.paths import KNOWLEDGE_DIR
from proagent.untrusted import read_toml
from proagent.web.server import validation_message

QUESTIONNAIRE_FILE = KNOWLEDGE_DIR / "questionnaire.toml"


class Question(BaseModel):
    id: str
    group: str
    text: str


class Task(BaseModel):
    """A team's task as a statement names it: what they do, and what its success is."""

    model_config = ConfigDict(extra="forbid")
    task: str
    success: str


class Questionnaire(BaseModel):
    source: str
    instructions: str = ""
    scale: list[str] = Field(min_length=2)
    questions: list[Question] = Field(min_length=1)
    paper_task: Task | None = Field(None, description="the team's task in the paper's words (Overcooked's)")
    tasks: dict[str, Task] = Field(default_factory=dict, description="world -> its team's task")

    def for_world(self, world: str | None) -> Questionnaire:
        """The statements with ``{task}`` and ``{success}`` in the world's words (the paper's where
        the world has none of its own): each world asks about its own task."""
        task = self.tasks.get(world or "", self.paper_task)
        if task is None:
            return self
        said = lambda text: text.replace("{task}", task.task).replace("{success}", task.success)
        return self.model_copy(
            update={"questions": [q.model_copy(update={"text": said(q.text)}) for q in self.questions]}
        )

    @model_validator(mode="after")
    def _unique_ids(self) -> Questionnaire:
        ids = [q.id for q in self.questions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"question ids must be unique: {ids}")
        return self


class AnswerError(ValueError):
    """Answers that do not fit the questionnaire, with what is wrong."""


class Submission(BaseModel):
    """What the page sends: a scale point (1 = first label) per question id, or ``skipped``.

    Strict: an answer is a JSON integer (``true`` or ``4.0`` or ``"4"`` is refused, not read as a
    number), unknown fields are refused; the scale's range is checked by `answers_record`."""

    model_config = ConfigDict(strict=True, extra="forbid")
    answers: dict[str, int] = Field(default_factory=dict, max_length=100)
    comment: str = Field("", max_length=4000)
    skipped: bool = False

    @model_validator(mode="after")
    def _answers_or_skipped(self) -> Submission:
        if self.skipped and self.answers:
            raise ValueError("send either answers or skipped, not both")
        return self


def load_questionnaire(path: Path = QUESTIONNAIRE_FILE, world: str | None = None) -> Questionnaire:
    """The questionnaire, its statements about ``world``'s task (None: the paper's, Overcooked)."""
    return Questionnaire.model_validate(read_toml(Path(path), "questionnaire")).for_world(world)


def answers_record(questionnaire: Questionnaire, payload: dict) -> dict:
    """The questionnaire.json content for a submission; AnswerError if incomplete or out of range."""
    try:
        submission = Submission.model_validate(payload)
    except ValidationError as exc:
        raise AnswerError(validation_message(exc)) from exc
    record: dict = {
        "source": questionnaire.source,
        "scale": questionnaire.scale,
        "skipped": submission.skipped,
        "submitted": datetime.now(UTC).isoformat(),
        "answers": [],
        "comment": submission.comment,
    }
    if submission.skipped:
        return record
    known = {q.id for q in questionnaire.questions}
    missing = [q.id for q in questionnaire.questions if q.id not in submission.answers]
    unknown = sorted(set(submission.answers) - known)
    bad = [k for k, v in submission.answers.items() if not 1 <= v <= len(questionnaire.scale)]
    if missing or unknown or bad:
        raise AnswerError(
            f"answer every question with 1..{len(questionnaire.scale)} (missing {missing}, unknown {unknown}, out of "
            f"range {bad})"
        )
    for q in questionnaire.questions:
        value = submission.answers[q.id]
        record["answers"].append(
            {"id": q.id, "group": q.group, "text": q.text, "value": value, "label": questionnaire.scale[value - 1]}
        )
    return record
