"""Reading a study folder back, as untrusted input: study folders are copied between labs.

Everything is bounded and validated before it is used. The protocol (study.toml) and its
questionnaire must be right, or the whole read fails with one line (`StudyError`): nothing can be
analysed without them. Below that, what is wrong is skipped, never guessed at, and every skip is
one logged warning (and a note in the report): a participant folder whose name is not an opaque id,
a symbolic link, a round whose run folder is unfinished or names a layout or partner outside the
protocol, a malformed line of questionnaire.jsonl (`proagent.jsonl.read_jsonl`: one warning per
file) or of episodes.jsonl.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.jsonl import read_jsonl
from proagent.run_lines import MAX_SEATS, check_plain, typed
from proagent.study.format import (
    ANSWERS_FILE,
    DEFAULT_QUESTIONNAIRE,
    MAX_ROUNDS,
    PARTICIPANT_FILE,
    PARTICIPANT_ID,
    PARTICIPANTS_DIR,
    ROUNDS_DIR,
    STUDY_FILE,
    TRIAL_ROUND,
    AnswerLine,
    Participant,
    StudyConfig,
)
from proagent.untrusted import UntrustedFileError, loads_json, loads_toml, read_text
from proagent.web.questionnaire import Questionnaire, load_questionnaire

_LOG = logging.getLogger(__name__)
MAX_FILE = 1_000_000  # bytes of study.toml, a questionnaire, a config.json or participant.json
MAX_PARTICIPANTS = 10_000
MAX_LINES_FILE = 20_000_000  # bytes of a questionnaire.jsonl or a round's episodes.jsonl (a round has one record)
ROUND_DIR = re.compile(r"([0-9]{1,4})-.+")


class StudyError(ValueError):
    """The folder cannot be analysed at all; the message is one line saying why and what to do."""


class _RoundConfig(BaseModel):
    """The fields of a round's config.json the report reads (a `HumanRunConfig`)."""

    model_config = ConfigDict(strict=True, extra="allow")
    layout: str = Field(max_length=200)
    agent: dict[str, Any]
    human: dict[str, Any] = Field(default_factory=dict)


class _RoundEpisode(BaseModel):
    """The fields of the round's episode record the tables use: reward and interdependence."""

    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)
    score: float
    int_total: int = Field(ge=0)
    int_constructive: int = Field(ge=0)
    int_non_constructive: int | None = Field(None, ge=0)
    int_initiated: list[int] = Field(min_length=2, max_length=MAX_SEATS)
    int_accepted: list[int] = Field(min_length=2, max_length=MAX_SEATS)


@dataclass(frozen=True)
class Round:
    """One analysed round: a participant with one partner on one layout."""

    participant: str
    k: int
    layout: str
    partner: str
    folder: str
    score: float
    constructive: int
    non_constructive: int
    human_initiated: int
    agent_initiated: int
    human_accepted: int
    agent_accepted: int
    answers: dict[str, int] | None = None  # item id -> scale point; None: not answered or skipped


@dataclass
class Study:
    config: StudyConfig
    questionnaire: Questionnaire
    participants: dict[str, Participant] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was skipped, one line each

    @property
    def neutral(self) -> int:
        return self.config.neutral or (len(self.questionnaire.scale) + 1) // 2

    def skip(self, text: str) -> None:
        self.notes.append(text)
        _LOG.warning("%s", text)


def _small_text(path: Path) -> str:
    if path.is_symlink() or not path.is_file():
        raise StudyError(f"{path} is missing (or not a plain file)")
    try:
        return read_text(path, "study file", MAX_FILE)
    except UntrustedFileError as exc:
        raise StudyError(str(exc)) from None


def _toml(path: Path) -> dict[str, Any]:
    """A study folder's TOML file, within the size and nesting bounds; `StudyError` in one line."""
    try:
        return loads_toml(_small_text(path), str(path))
    except UntrustedFileError as exc:
        raise StudyError(str(exc)) from None


def _validation_line(path: Path, exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"]) or "the file"
    return f"{path}: {where}: {error['msg']}"


def load_config(study_dir: Path) -> StudyConfig:
    """study.toml, validated; `StudyError` in one line otherwise."""
    if not study_dir.is_dir():
        raise StudyError(f"{study_dir} is not a folder (expected a study folder with {STUDY_FILE})")
    path = study_dir / STUDY_FILE
    if not path.is_file():
        raise StudyError(f"{study_dir} is not a study folder: no {STUDY_FILE}")
    try:
        return StudyConfig.model_validate(_toml(path))
    except ValidationError as exc:
        raise StudyError(_validation_line(path, exc)) from exc


def study_questionnaire(study_dir: Path, config: StudyConfig) -> Questionnaire:
    """The questionnaire the study asks (the runner shows it, the report checks answers against it)."""
    if config.questionnaire == DEFAULT_QUESTIONNAIRE:
        return load_questionnaire()
    path = study_dir / config.questionnaire
    if path.resolve().parent != study_dir.resolve():
        raise StudyError(f"questionnaire {config.questionnaire!r}: name a file directly inside the study folder")
    try:
        return Questionnaire.model_validate(_toml(path))
    except ValidationError as exc:
        raise StudyError(_validation_line(path, exc)) from exc


def read_study(study_dir: Path) -> Study:
    """Every participant's analysable rounds with their answers; `StudyError` when the protocol is
    unreadable or no round at all can be analysed."""
    study_dir = Path(study_dir)
    config = load_config(study_dir)
    study = Study(config, study_questionnaire(study_dir, config))
    root = study_dir / PARTICIPANTS_DIR
    if not root.is_dir() or root.is_symlink():
        raise StudyError(f"{study_dir} has no {PARTICIPANTS_DIR}/ folder: no participant has played yet")
    entries = sorted(root.iterdir())[: MAX_PARTICIPANTS + 1]
    if len(entries) > MAX_PARTICIPANTS:
        study.skip(f"{root}: more than {MAX_PARTICIPANTS} entries; only the first {MAX_PARTICIPANTS} are read")
    for entry in entries[:MAX_PARTICIPANTS]:
        if entry.is_symlink() or not entry.is_dir() or not PARTICIPANT_ID.fullmatch(entry.name):
            study.skip(f"{entry}: not a participant folder (a folder named by an opaque id), skipped")
            continue
        _read_participant(study, entry)
    if not study.rounds:
        skipped = f" ({len(study.notes)} entries skipped: see the warnings above)" if study.notes else ""
        raise StudyError(f"{study_dir} has no finished round to analyse yet{skipped}")
    return study


def _read_participant(study: Study, folder: Path) -> None:
    pid = folder.name
    if (folder / PARTICIPANT_FILE).exists():
        try:
            path = folder / PARTICIPANT_FILE
            study.participants[pid] = Participant.model_validate(loads_json(_small_text(path), str(path)))
        except (StudyError, UntrustedFileError, ValidationError) as exc:
            study.skip(f"{folder / PARTICIPANT_FILE}: unreadable ({_one_line(exc)}); the rounds are still read")
    answers = _answers(study, folder / ANSWERS_FILE)
    rounds_dir = folder / ROUNDS_DIR
    if not rounds_dir.is_dir() or rounds_dir.is_symlink():
        return
    seen: set[int] = set()
    for entry in sorted(rounds_dir.iterdir())[: 2 * MAX_ROUNDS]:
        match = ROUND_DIR.fullmatch(entry.name)
        if entry.is_symlink() or not entry.is_dir() or match is None:
            study.skip(f"{entry}: not a round folder (<k>-<layout>-<partner>), skipped")
            continue
        k = int(match.group(1))
        if k == TRIAL_ROUND:
            continue
        if k in seen:
            study.skip(f"{entry}: a second folder for round {k}, skipped")
            continue
        made = _read_round(study, pid, k, entry, answers.get(k))
        if made is not None:
            seen.add(k)
            study.rounds.append(made)


def _answers(study: Study, path: Path) -> dict[int, dict[str, int] | None]:
    """Round -> its answers (None: skipped); the last valid line of a round counts."""
    out: dict[int, dict[str, int] | None] = {}
    if _too_big(study, path):
        return out
    for line in read_jsonl(path, parse=lambda data: _answer_line(study.questionnaire, data)).records:
        out[line.round] = None if line.skipped else line.answers
    return out


def _answer_line(questionnaire: Questionnaire, data: dict) -> AnswerLine:
    check_plain(data)
    line = typed(AnswerLine, data)
    points = len(questionnaire.scale)
    known = [q.id for q in questionnaire.questions]
    if not line.skipped:
        if sorted(line.answers) != sorted(known):
            raise ValueError(f"answers for {sorted(line.answers)[:10]}, the questionnaire asks {known}")
        bad = [k for k, v in line.answers.items() if not 1 <= v <= points]
        if bad:
            raise ValueError(f"answers outside 1..{points}: {bad}")
    return line


def _read_round(study: Study, pid: str, k: int, folder: Path, answers: dict[str, int] | None) -> Round | None:
    try:
        config = typed(_RoundConfig, _checked_json(folder / "config.json"))
    except (StudyError, ValueError) as exc:
        study.skip(f"{folder}: no readable config.json ({_one_line(exc)}), skipped")
        return None
    partner = config.agent.get("name")
    layouts = {x.name for x in study.config.layouts}
    partners = {x.name for x in study.config.partners}
    if not isinstance(partner, str) or config.layout not in layouts or partner not in partners:
        study.skip(
            f"{folder}: layout {config.layout!r} / partner {str(partner)[:80]!r} are not in {STUDY_FILE}, skipped"
        )
        return None
    episodes = (
        []
        if _too_big(study, folder / "episodes.jsonl")
        else read_jsonl(folder / "episodes.jsonl", parse=_episode).records
    )
    if not episodes:
        study.skip(f"{folder}: no finished episode (the round was not played to the end), skipped")
        return None
    episode: _RoundEpisode = episodes[-1]
    human = config.human.get("human_seat", study.config.human_seat)
    if not isinstance(human, int) or isinstance(human, bool) or not 0 <= human < len(episode.int_initiated):
        study.skip(f"{folder}: config.json human.human_seat {human!r} is not a seat of the episode, skipped")
        return None
    agent = 1 - human if len(episode.int_initiated) == 2 else None
    if agent is None:
        study.skip(f"{folder}: a study round is a two-player game, skipped")
        return None
    non_constructive = (
        episode.int_non_constructive
        if episode.int_non_constructive is not None
        else episode.int_total - episode.int_constructive
    )
    return Round(
        pid, k, config.layout, partner, folder.name, episode.score, episode.int_constructive, non_constructive,
        episode.int_initiated[human], episode.int_initiated[agent], episode.int_accepted[human],
        episode.int_accepted[agent], answers,
    )  # fmt: skip


def _too_big(study: Study, path: Path) -> bool:
    """True (and noted) for a symbolic link or a file no writer of a study makes this large."""
    if path.is_symlink() or (path.exists() and path.stat().st_size > MAX_LINES_FILE):
        study.skip(f"{path}: a symbolic link or larger than {MAX_LINES_FILE} bytes, not read")
        return True
    return False


def _checked_json(path: Path) -> dict:
    data = loads_json(_small_text(path), str(path))  # an UntrustedFileError is a ValueError: the round is skipped
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")  # noqa: TRY004 - the caller skips the round on ValueError
    check_plain(data)
    return data


def _episode(data: dict) -> _RoundEpisode:
    check_plain(data)
    return typed(_RoundEpisode, data)


def _one_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:160]
