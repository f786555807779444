"""A study folder written by hand (no game is played): the numbers in it are the tests' own, so
every value the report prints can be checked against arithmetic done in the test."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from proagent.study.format import AnswerLine, Participant, append_answers, round_folder, write_participant

STUDY_TOML = """
name = "hand-made study"
layouts = [{ name = "counter_circuit", label = "Non-RC" }, { name = "forced_coordination", label = "RC" }]
partners = [{ name = "greedy", label = "GREEDY" }, { name = "supplier" }]
ordering = "fixed"
rounds = 4
human_seat = 1

[round_length]
steps = 60
"""


@dataclass
class HandRound:
    """One round: its layout, partner, reward and interdependence (per seat: [seat 0, seat 1])."""

    k: int
    layout: str
    partner: str
    score: float
    constructive: int
    total: int
    initiated: list[int]
    accepted: list[int]
    answers: dict[str, int] | None = field(default=None)


def answers(value: int, **overrides: int) -> dict[str, int]:
    """Every item of the six-item questionnaire at ``value``, some items overridden."""
    return {f"q{i}": overrides.get(f"q{i}", value) for i in range(1, 7)}


def write_round(study: Path, pid: str, r: HandRound, human_seat: int = 1) -> Path:
    folder = round_folder(study, pid, r.k, r.layout, r.partner)
    config = {
        "command": "test",
        "layout": r.layout,
        "partner": "human",
        "seat": 1 - human_seat,
        "agent": {"name": r.partner},
        "human": {"human_seat": human_seat},
    }
    folder.write_json("config.json", config)
    record = {
        "episode": 0, "seed": 0, "layout": r.layout, "partner": "human", "seat": 1 - human_seat, "score": r.score, "steps": 60,
        "int_total": r.total, "int_constructive": r.constructive, "int_non_constructive": r.total - r.constructive,
        "int_initiated": r.initiated, "int_accepted": r.accepted,
    }  # fmt: skip
    folder.append_jsonl("episodes.jsonl", record)
    if r.answers is not None:
        append_answers(study, pid, AnswerLine(round=r.k, folder=folder.path.name, answers=r.answers))
    return folder.path


def write_study(root: Path, people: dict[str, list[HandRound]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "study.toml").write_text(STUDY_TOML, encoding="utf-8")
    for pid, rounds in people.items():
        write_participant(root, Participant(id=pid))
        for r in rounds:
            write_round(root, pid, r)
    return root


def read_csv(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def dump(path: Path, data: object) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")
