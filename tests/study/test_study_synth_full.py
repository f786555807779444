"""The acceptance check of the study report, slow (marked; a CI step runs slow tests): a synthetic study of 12
participants x 8 rounds, and the report's numbers recomputed here from the raw files (json, not the
study reader): a Table 2 mean, a %H-sub, and the one-sample and paired t-tests by Student's formulas
(p from the t distribution's survival function)."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from scipy.stats import t as student_t

from proagent.cli import main
from proagent.study.synth import write_study
from tests.study.study_helpers import read_csv

CC, FC = "counter_circuit", "forced_coordination"


def _raw_rounds(study: Path) -> list[dict]:
    """Every round: layout, partner, the episode record, the human seat and the answers."""
    out = []
    for person in sorted((study / "participants").iterdir()):
        answers = {}
        for line in (person / "questionnaire.jsonl").read_text(encoding="utf-8").splitlines():
            data = json.loads(line)
            answers[data["round"]] = data["answers"]
        for folder in sorted((person / "rounds").iterdir()):
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            record = json.loads((folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines()[-1])
            k = int(folder.name.split("-")[0])
            out.append(
                {
                    "who": person.name,
                    "layout": config["layout"],
                    "partner": config["agent"]["name"],
                    "human": config["human"]["human_seat"],
                    "record": record,
                    "answers": answers[k],
                }
            )
    return out


def _two_sided(t: float, df: int) -> float:
    return 2 * student_t.sf(abs(t), df)


@pytest.mark.slow
def test_a_12_by_8_synthetic_study_reproduces_hand_computed_values(tmp_path):
    study = tmp_path / "study"
    write_study(study, participants=12, rounds=8, seed=1, horizon=50)
    assert main(["study", "report", str(study)]) == 0
    raw = _raw_rounds(study)
    assert len(raw) == 96
    cell = [r for r in raw if (r["partner"], r["layout"]) == ("supplier", FC)]
    table2 = next(
        r for r in read_csv(study / "report" / "table2.csv") if (r["partner"], r["layout"]) == ("supplier", FC)
    )
    assert float(table2["constructive_mean"]) == pytest.approx(
        statistics.fmean(r["record"]["int_constructive"] for r in cell)
    )
    assert int(table2["reward_n"]) == len(cell)
    human = sum(r["record"]["int_initiated"][r["human"]] for r in cell)
    agent = sum(r["record"]["int_initiated"][1 - r["human"]] for r in cell)
    table4 = next(
        r
        for r in read_csv(study / "report" / "table4.csv")
        if (r["partner"], r["layout"], r["scope"]) == ("supplier", FC, "all rounds")
    )
    assert float(table4["h_sub_initiated_pct"]) == pytest.approx(100 * human / (human + agent))
    per_person: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for r in raw:
        per_person[r["who"]][r["layout"]].append(r["answers"]["q4"])
    cc = [statistics.fmean(v[CC]) for v in per_person.values()]
    fc = [statistics.fmean(v[FC]) for v in per_person.values()]
    tests = {(r["scale"], r["test"], r["layout"]): r for r in read_csv(study / "report" / "tests.csv")}
    t = (statistics.fmean(cc) - 3) / (statistics.stdev(cc) / math.sqrt(len(cc)))
    one = tests[("q4", "one-sample", CC)]
    assert (int(one["n"]), float(one["t"]), float(one["p"])) == (12, pytest.approx(t), pytest.approx(_two_sided(t, 11)))
    diffs = [b - a for a, b in zip(cc, fc, strict=True)]
    t_pair = statistics.fmean(diffs) / (statistics.stdev(diffs) / math.sqrt(len(diffs)))
    pair = tests[("q4", "paired", f"{FC} - {CC}")]
    assert (float(pair["t"]), float(pair["p"]), float(pair["d"])) == (
        pytest.approx(t_pair), pytest.approx(_two_sided(t_pair, 11)), pytest.approx(statistics.fmean(diffs) / statistics.stdev(diffs))
    )  # fmt: skip
