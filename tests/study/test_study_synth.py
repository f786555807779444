"""A synthetic study is a study folder the report reads like a real one: real run folders (the
ordinary episode runner, scripted agents in both seats, short rounds), a participant.json with the
planned order, and durable questionnaire lines drawn from a seeded distribution."""

from __future__ import annotations

import json
import random

import pytest

from proagent.study import tables
from proagent.study.format import Participant, StudyConfig, schedule
from proagent.study.read import read_study
from proagent.study.synth import synthetic_answers, write_study
from proagent.web.questionnaire import load_questionnaire

LAYOUTS = (("forced_coordination", "RC"),)  # one layout: one compile, so the test stays fast


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth") / "study"
    config = write_study(
        out, participants=2, rounds=4, seed=3, horizon=20, partners=("greedy", "supplier"), layouts=LAYOUTS
    )
    return out, config


def test_the_folder_has_the_format(synthetic):
    out, config = synthetic
    assert isinstance(config, StudyConfig) and (out / "study.toml").is_file()
    for index, pid in enumerate(("P001", "P002")):
        person = Participant.model_validate(
            json.loads((out / "participants" / pid / "participant.json").read_text(encoding="utf-8"))
        )
        assert person.schedule == schedule(config, pid, index)
        folders = sorted(p.name for p in (out / "participants" / pid / "rounds").iterdir())
        assert folders == sorted(f"{r.round}-{r.layout}-{r.partner}" for r in person.schedule)
        round_dir = out / "participants" / pid / "rounds" / folders[0]
        assert {"config.json", "episodes.jsonl", "trace.jsonl", "summary.json"} <= {p.name for p in round_dir.iterdir()}
        round_config = json.loads((round_dir / "config.json").read_text(encoding="utf-8"))
        assert round_config["human"]["human_seat"] == 0
        assert round_config["command"] == (
            f"proagent study synth {out} --participants 2 --rounds 4 --seed 3 --horizon 20 --proxy greedy --partners greedy,supplier"
        )  # the command that made it, not the host program's argv
        lines = (out / "participants" / pid / "questionnaire.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(line)["round"] for line in lines] == [1, 2, 3, 4]


def test_the_report_reads_it(synthetic):
    out, _ = synthetic
    study = read_study(out)
    assert len(study.rounds) == 8 and study.notes == [] and all(r.answers for r in study.rounds)
    result = tables.compute(study)  # the files are tested on the hand-made study
    assert {(r.partner, r.reward.n) for r in result.table2} == {("greedy", 4), ("supplier", 4)}
    assert all(t.result.n == 2 for t in result.tests if t.test == "one-sample")


def test_a_latin_square_meets_every_pair_at_every_position():
    config = StudyConfig.model_validate(
        {
            "name": "x",
            "layouts": [{"name": "a", "label": "A"}, {"name": "b", "label": "B"}],
            "partners": [{"name": "p"}, {"name": "q"}],
            "rounds": 4,
            "round_length": {"steps": 5},
        }
    )
    orders = [[(r.layout, r.partner) for r in schedule(config, f"P{i}", i)] for i in range(4)]
    for position in range(4):
        assert len({order[position] for order in orders}) == 4


def test_answers_are_seeded_and_on_the_scale():
    questionnaire = load_questionnaire()
    first = [synthetic_answers(questionnaire, random.Random(7), 0.2, 0.1, c) for c in range(10)]
    again = [synthetic_answers(questionnaire, random.Random(7), 0.2, 0.1, c) for c in range(10)]
    assert first == again and all(1 <= v <= 5 for a in first for v in a.values())
