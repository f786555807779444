"""Where a participant is in the study, read from their folder alone.

The runner keeps no state of its own that matters: consent, demographics, each round's episode
record and each questionnaire line are on disk (the last two appended with fsync), so a server that
was stopped, or a participant who closed the tab, continues from exactly what was saved. A round
counts as played when its run folder holds an episode record; it counts as answered when
questionnaire.jsonl has a line for it. The trial round (round 0) has no questionnaire.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from proagent.study.format import (
    ANSWERS_FILE,
    PARTICIPANT_FILE,
    PARTICIPANT_ID,
    PARTICIPANTS_DIR,
    ROUNDS_DIR,
    TRIAL_ROUND,
    Participant,
    StudyConfig,
    round_folder_name,
)
from proagent.untrusted import loads_json

Phase = Literal["consent", "demographics", "round", "questionnaire", "done"]
MAX_PARTICIPANT_FILE = 1 << 20


class ParticipantError(ValueError):
    """An id that is malformed or names no participant of this study."""


@dataclass(frozen=True)
class Step:
    """What the participant does next: a phase and, for a round or its questionnaire, which round."""

    phase: Phase
    round: int | None = None
    layout: str | None = None
    partner: str | None = None
    done_rounds: int = 0  # rounds of the schedule already answered (the trial not counted)
    total: int = 0

    @property
    def folder_name(self) -> str:
        assert self.round is not None and self.layout is not None and self.partner is not None
        return round_folder_name(self.round, self.layout, self.partner)


def participant_dir(study_dir: Path, pid: str) -> Path:
    """The participant's folder; ParticipantError unless ``pid`` is an id (never a path)."""
    if not isinstance(pid, str) or not PARTICIPANT_ID.fullmatch(pid):
        raise ParticipantError("not a participant id (letters, digits, _ and -; at most 64)")
    return study_dir / PARTICIPANTS_DIR / pid


def load_participant(study_dir: Path, pid: str) -> Participant:
    path = participant_dir(study_dir, pid) / PARTICIPANT_FILE
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_PARTICIPANT_FILE:
        raise ParticipantError(f"no participant {pid}")
    try:
        return Participant.model_validate(loads_json(path.read_text(encoding="utf-8"), str(path)))
    except (ValueError, ValidationError) as exc:  # an UntrustedFileError (too deep, not JSON) is a ValueError
        raise ParticipantError(f"participant {pid}: unreadable participant.json") from exc


def played(folder: Path) -> bool:
    """A round's run folder holds its episode record (written with fsync at the episode's end)."""
    path = folder / "episodes.jsonl"
    return path.is_file() and not path.is_symlink() and path.stat().st_size > 0


def answered_rounds(study_dir: Path, pid: str) -> set[int]:
    """Rounds with a questionnaire line (a torn last line, from a crash mid-write, is not one)."""
    path = participant_dir(study_dir, pid) / ANSWERS_FILE
    if not path.is_file():
        return set()
    done: set[int] = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("round"), int):
            done.add(data["round"])
    return done


def next_step(study_dir: Path, config: StudyConfig, person: Participant) -> Step:
    """The first thing this participant has not done yet."""
    total = len(person.schedule)
    if not person.consented:
        return Step("consent", total=total)
    if not person.demographics_submitted:
        return Step("demographics", total=total)
    rounds = participant_dir(study_dir, person.id) / ROUNDS_DIR
    if config.trial is not None and not played(
        rounds / round_folder_name(TRIAL_ROUND, config.trial.layout, config.trial.partner)
    ):
        return Step("round", TRIAL_ROUND, config.trial.layout, config.trial.partner, 0, total)
    answered = answered_rounds(study_dir, person.id)
    for index, planned in enumerate(person.schedule):
        if planned.round in answered:
            continue
        phase: Phase = (
            "questionnaire"
            if played(rounds / round_folder_name(planned.round, planned.layout, planned.partner))
            else "round"
        )
        return Step(phase, planned.round, planned.layout, planned.partner, index, total)
    return Step("done", done_rounds=total, total=total)


def clean_text(text: str, limit: int) -> str:
    """Text a person typed, safe to store and to show as text: control and format characters
    (newlines, bidi overrides, zero-width) become spaces, runs of spaces one, at most ``limit``."""
    kept = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    return " ".join(kept.split())[:limit]
