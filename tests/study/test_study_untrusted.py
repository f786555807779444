"""Study folders come from other labs: a malformed line is skipped with one warning (the good lines
still count), entries outside the format are skipped and noted, and a folder that cannot be
analysed at all is one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

import json
import logging
import os

import pytest

from proagent.cli import main
from proagent.study.read import read_study
from tests.study.study_helpers import HandRound, answers, write_round, write_study

CC = "counter_circuit"


def _study(root):
    people = {
        "P1": [
            HandRound(1, CC, "greedy", 20, 1, 2, [1, 1], [0, 1], answers(4)),
            HandRound(2, CC, "supplier", 40, 2, 2, [1, 1], [1, 1], answers(2)),
        ],
        "P2": [HandRound(1, CC, "greedy", 40, 2, 3, [2, 1], [1, 0], answers(5))],
    }
    return write_study(root / "study", people)


def test_malformed_answer_lines_are_skipped_with_one_warning(tmp_path, caplog):
    study_dir = _study(tmp_path)
    path = study_dir / "participants" / "P1" / "questionnaire.jsonl"
    good = path.read_text(encoding="utf-8")
    bad = [
        '{"round": 1, "answers": {"q1": 4',  # torn
        json.dumps({"round": 2, "answers": {**answers(3), "q1": 9}}),  # off the scale
        json.dumps({"round": 2, "answers": {"q1": "4"}}),  # a string is not a point
        json.dumps({"round": 2, "answers": answers(3), "skipped": True}),
        json.dumps({"round": 2, "answers": answers(3), "evil": "\x1b]0;pwned\x07"}),
        "[1, 2]",
    ]
    path.write_text(good + "\n".join(bad) + "\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        study = read_study(study_dir)
    warnings = [r for r in caplog.records if "questionnaire.jsonl" in r.getMessage()]
    assert len(warnings) == 1 and "skipped 6 unreadable lines" in warnings[0].getMessage()
    p1 = {r.k: r.answers for r in study.rounds if r.participant == "P1"}
    assert p1 == {1: answers(4), 2: answers(2)}  # the good lines, not the crafted ones after them


def test_a_resubmitted_round_counts_with_its_last_line(tmp_path):
    study_dir = _study(tmp_path)
    path = study_dir / "participants" / "P2" / "questionnaire.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"round": 1, "skipped": True}) + "\n")
    assert next(r for r in read_study(study_dir).rounds if r.participant == "P2").answers is None


def test_entries_outside_the_format_are_skipped_and_noted(tmp_path, caplog):
    study_dir = _study(tmp_path)
    participants = study_dir / "participants"
    (participants / "not an id!").mkdir()
    os.symlink(participants / "P1", participants / "P9")
    write_round(study_dir, "P2", HandRound(2, CC, "stranger", 10, 0, 0, [0, 0], [0, 0]))  # a partner outside study.toml
    unfinished = participants / "P2" / "rounds" / "3-counter_circuit-supplier"
    unfinished.mkdir()
    (unfinished / "config.json").write_text(json.dumps({"layout": CC, "agent": {"name": "supplier"}}), encoding="utf-8")
    listed = participants / "P1" / "rounds" / "3-counter_circuit-list"
    listed.mkdir()
    (listed / "config.json").write_text(json.dumps({"layout": CC, "agent": {"name": ["greedy"]}}), encoding="utf-8")
    (participants / "P2" / "rounds" / "4-x").mkdir()
    (participants / "P2" / "rounds" / "4-x" / "config.json").write_text('{"layout": 3}', encoding="utf-8")
    episodes = participants / "P1" / "rounds" / "1-counter_circuit-greedy" / "episodes.jsonl"
    episodes.write_text('{"score": NaN, "int_total": 1}\n' + episodes.read_text(encoding="utf-8"), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        study = read_study(study_dir)
    assert sorted((r.participant, r.k) for r in study.rounds) == [("P1", 1), ("P1", 2), ("P2", 1)]
    notes = "\n".join(study.notes)
    for fragment in ("not an id!", "P9", "'stranger'", "['greedy']", "no finished episode", "no readable config.json"):
        assert fragment in notes
    assert any("episodes.jsonl: skipped 1 unreadable line" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: None, "is not a folder"),
        (lambda d: d.mkdir(), "no study.toml"),
        (lambda d: (d.mkdir(), (d / "study.toml").write_text("name = [", encoding="utf-8")), "not valid TOML"),
        (
            lambda d: (d.mkdir(), (d / "study.toml").write_text('name = "x"\nrounds = "8"', encoding="utf-8")),
            "study.toml: ",
        ),
        (
            lambda d: (
                d.mkdir(),
                (d / "study.toml").write_text(
                    'name = "x"\nrounds = 2\nlayouts = [{name = "a", label = "A"}]\npartners = [{name = "b"}]\n[round_length]\nsteps = 5',
                    encoding="utf-8",
                ),
            ),
            "no participants/",
        ),
    ],
)
def test_a_bad_study_dir_is_one_line_and_exit_2(tmp_path, capsys, make, message):
    study_dir = tmp_path / "study"
    make(study_dir)
    assert main(["study", "report", str(study_dir), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and message in err
    assert not (tmp_path / "out").exists()


def test_a_study_with_no_finished_round_is_exit_2(tmp_path, capsys):
    study_dir = write_study(tmp_path / "study", {"P1": []})
    assert main(["study", "report", str(study_dir)]) == 2
    assert "no finished round" in capsys.readouterr().err


def test_synth_refuses_a_folder_that_holds_something(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["study", "synth", str(tmp_path / "full")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "not an empty folder" in err and "\n" not in err
    assert (tmp_path / "full" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_the_documented_study_toml_is_valid():
    import re
    import tomllib
    from pathlib import Path

    from proagent.study.format import StudyConfig

    text = (Path(__file__).parents[2] / "docs" / "human_study.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", text, re.DOTALL)
    assert example is not None
    config = StudyConfig.model_validate(tomllib.loads(example.group(1)))
    assert [x.label for x in config.layouts] == ["Non-RC", "RC"] and config.trial is not None
