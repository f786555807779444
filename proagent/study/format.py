"""The study folder: what a human study stores, as typed records (documented in docs/human_study.md).

A study folder is the one place a lab's study lives, so that the analysis (`proagent study report`)
needs nothing but that folder and can be re-run by anyone who gets a copy of it::

    study.toml                                   the protocol (`StudyConfig`)
    participants/<id>/participant.json           demographics, all optional (`Participant`)
    participants/<id>/questionnaire.jsonl        one line per answered round (`AnswerLine`), appended durably
    participants/<id>/rounds/<k>-<layout>-<partner>/   one normal run folder per round (what `proagent human` writes)

``<id>`` is an opaque token the experimenter chooses: no name is ever asked or stored. Round ``k``
counts from 1; a trial round is stored as round 0 and is never analysed. The writers here
(`round_folder`, `append_answers`, `write_participant`) are shared by whatever plays the rounds (the
study runner, the synthetic generator), so both leave the same files the report reads.
"""

from __future__ import annotations

import hashlib
import random
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.runner.run_folder import RunFolder

STUDY_FILE = "study.toml"
PARTICIPANTS_DIR = "participants"
PARTICIPANT_FILE = "participant.json"
ANSWERS_FILE = "questionnaire.jsonl"
ROUNDS_DIR = "rounds"
TRIAL_ROUND = 0
DEFAULT_QUESTIONNAIRE = "default"  # the six statements of knowledge/questionnaire.toml

MAX_ROUNDS = 500  # per participant
MAX_PARTNERS = 64
MAX_LAYOUTS = 16
SHORT = 64  # characters of an id, a label, a demographic answer
PARTICIPANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=,-]{0,79}")  # a layout or partner name, one path part
# pydantic's `pattern` searches; anchored, a field holds the whole name or nothing (no "../x")
ID_FIELD = f"^{PARTICIPANT_ID.pattern}$"
NAME_FIELD = f"^{NAME.pattern}$"


class _Record(BaseModel):
    """Read back from a folder that may come from anywhere: no unknown fields, no coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class StudyLayout(_Record):
    name: str = Field(pattern=NAME_FIELD, description="a layout the world knows (forced_coordination)")
    label: str = Field(max_length=SHORT, description="how the tables name it (the paper: RC, Non-RC)")


class StudyPartner(_Record):
    name: str = Field(pattern=NAME_FIELD, description="an agent from `proagent partners`, or 'proagent'")
    label: str | None = Field(None, max_length=SHORT, description="how the tables name it (default: the name)")

    @property
    def shown(self) -> str:
        return self.label or self.name


class RoundLength(_Record):
    """When a round ends: after ``steps``, after ``seconds`` of play, or after ``soups`` deliveries
    (whichever comes first; the runner turns seconds into steps at the study's tick rate)."""

    steps: int | None = Field(None, ge=1, le=100_000)
    seconds: float | None = Field(None, gt=0, le=3600)
    soups: int | None = Field(None, ge=1, le=1000)

    @model_validator(mode="after")
    def _some_end(self) -> RoundLength:
        if self.steps is None and self.seconds is None and self.soups is None:
            raise ValueError("a round needs an end: steps, seconds or soups")
        return self


class TrialRound(_Record):
    layout: str = Field(pattern=NAME_FIELD)
    partner: str = Field(pattern=NAME_FIELD, description="usually a scripted partner")


class StudyConfig(_Record):
    """study.toml: the protocol. ``ordering`` says in which order each participant meets the
    (layout, partner) pairs: ``fixed`` (as listed, layouts outer), ``random`` (shuffled per
    participant from ``seed`` and the participant's id) or ``latin_square`` (a cyclic Latin square:
    participant i starts at pair i, so every pair is met at every position equally often)."""

    name: str = Field(max_length=120)
    domain: str = Field("overcooked", max_length=SHORT)
    layouts: list[StudyLayout] = Field(min_length=1, max_length=MAX_LAYOUTS)
    partners: list[StudyPartner] = Field(min_length=1, max_length=MAX_PARTNERS)
    ordering: Literal["fixed", "random", "latin_square"] = "latin_square"
    seed: int = Field(0, ge=0, le=2**31 - 1)
    rounds: int = Field(ge=1, le=MAX_ROUNDS, description="rounds per participant, the trial round not counted")
    round_length: RoundLength
    mode: Literal["realtime", "turns"] = "realtime"
    fps: float = Field(5.0, gt=0, le=60)
    human_seat: int = Field(0, ge=0, le=1)
    trial: TrialRound | None = None
    questionnaire: str = Field(
        DEFAULT_QUESTIONNAIRE,
        max_length=200,
        description="'default' or a TOML file in the study folder (same format as knowledge/questionnaire.toml)",
    )
    neutral: int | None = Field(
        None, ge=1, le=11, description="the scale point the one-sample tests compare with (default: its middle)"
    )

    @model_validator(mode="after")
    def _unique(self) -> StudyConfig:
        for kind, names in (("layout", [x.name for x in self.layouts]), ("partner", [x.name for x in self.partners])):
            if len(set(names)) != len(names):
                raise ValueError(f"each {kind} once: {names}")
        return self

    def layout_label(self, name: str) -> str:
        return next(x.label for x in self.layouts if x.name == name)

    def partner_label(self, name: str) -> str:
        return next(x.shown for x in self.partners if x.name == name)


class Demographics(_Record):
    """All optional: a participant may leave any of them out."""

    age_range: str | None = Field(None, max_length=SHORT)
    gender: str | None = Field(None, max_length=SHORT)
    familiarity: str | None = Field(
        None, max_length=SHORT, description="with the game, in the participant's words or a choice"
    )


class PlannedRound(_Record):
    round: int = Field(ge=1, le=MAX_ROUNDS)
    layout: str = Field(pattern=NAME_FIELD)
    partner: str = Field(pattern=NAME_FIELD)


class Participant(_Record):
    """participant.json: the opaque id, the demographics and the rounds planned for them (so a
    participant who closes the tab resumes at the next round of the same order)."""

    id: str = Field(pattern=ID_FIELD)
    created: str = Field("", max_length=SHORT)
    consented: str = Field("", max_length=SHORT, description="when they agreed to the consent text (the runner)")
    demographics_submitted: str = Field("", max_length=SHORT, description="when they sent the demographics page")
    demographics: Demographics = Field(default_factory=Demographics)
    schedule: list[PlannedRound] = Field(default_factory=list, max_length=MAX_ROUNDS)


class AnswerLine(_Record):
    """One line of questionnaire.jsonl: the answers after round ``round`` (1..5 per item id on
    the paper's scale), or ``skipped``. A round answered twice counts with its last line."""

    round: int = Field(ge=0, le=MAX_ROUNDS)
    folder: str = Field("", max_length=200, description="the round's run folder name")
    answers: dict[str, int] = Field(default_factory=dict, max_length=100)
    skipped: bool = False
    comment: str = Field("", max_length=4000)
    submitted: str = Field("", max_length=SHORT)

    @model_validator(mode="after")
    def _answers_or_skipped(self) -> AnswerLine:
        if self.skipped == bool(self.answers):
            raise ValueError("a line holds either answers or skipped")
        return self


def round_folder_name(k: int, layout: str, partner: str) -> str:
    """``<k>-<layout>-<partner>``: sortable by eye, and a plain path part (names are `NAME`s)."""
    return f"{k}-{layout}-{partner}"


def round_folder(study_dir: Path, participant: str, k: int, layout: str, partner: str) -> RunFolder:
    """The run folder of round ``k`` (created). Its config.json and episodes.jsonl are the ones
    `proagent human` writes; the report reads the layout and partner from config.json."""
    return RunFolder(study_dir / PARTICIPANTS_DIR / participant / ROUNDS_DIR / round_folder_name(k, layout, partner))


def write_participant(study_dir: Path, participant: Participant) -> Path:
    folder = RunFolder(study_dir / PARTICIPANTS_DIR / participant.id)
    return folder.write_json(PARTICIPANT_FILE, participant)


def append_answers(study_dir: Path, participant: str, line: AnswerLine) -> None:
    """Append one round's answers and fsync: a participant's answers survive a stopped server."""
    RunFolder(study_dir / PARTICIPANTS_DIR / participant).append_jsonl(ANSWERS_FILE, line, durable=True)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def schedule(config: StudyConfig, participant: str, index: int) -> list[PlannedRound]:
    """The rounds of the ``index``-th participant (id ``participant``) under the study's ordering:
    the (layout, partner) pairs repeated to ``config.rounds``, in the study's order."""
    pairs = [(layout.name, partner.name) for layout in config.layouts for partner in config.partners]
    if config.ordering == "latin_square":
        start = index % len(pairs)
        pairs = pairs[start:] + pairs[:start]
    elif config.ordering == "random":
        digest = hashlib.sha256(f"{config.seed}:{participant}".encode()).digest()
        random.Random(int.from_bytes(digest[:8], "big")).shuffle(pairs)
    order = [pairs[i % len(pairs)] for i in range(config.rounds)]
    return [PlannedRound(round=k, layout=layout, partner=partner) for k, (layout, partner) in enumerate(order, start=1)]
