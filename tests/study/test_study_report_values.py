"""The report on a hand-made study reproduces numbers computed here by hand: Table 2 means, the
best team (with its tie-break), %H-sub from the episodes' trigger counts, the one-sample and paired
t-tests (Student's formulas written out; with 3 participants df = 2, where the t distribution's
two-sided p has the closed form 1 - |t| / sqrt(t^2 + 2)), and the Pearson correlation."""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.study import tables
from proagent.study.read import read_study
from tests.study.study_helpers import HandRound, answers, read_csv, write_study

CC, FC = "counter_circuit", "forced_coordination"

# participant -> rounds; the human sits in seat 1, so initiated/accepted are [agent, human].
PEOPLE = {
    "P1": [
        HandRound(1, CC, "greedy", 20, 1, 2, [1, 1], [0, 1], answers(3)),
        HandRound(2, CC, "supplier", 0, 0, 0, [0, 0], [0, 0], answers(5)),
        HandRound(3, FC, "greedy", 80, 5, 6, [2, 2], [1, 1], answers(5)),
        HandRound(4, FC, "supplier", 20, 1, 1, [1, 3], [2, 1], answers(5)),
    ],
    "P2": [
        HandRound(1, CC, "greedy", 40, 2, 2, [1, 1], [1, 1], answers(5)),
        HandRound(2, CC, "supplier", 0, 0, 0, [0, 0], [0, 0], answers(5)),
        HandRound(3, FC, "greedy", 80, 9, 9, [3, 3], [2, 2], answers(5)),
        HandRound(4, FC, "supplier", 40, 2, 4, [4, 2], [1, 0], answers(5)),
    ],
    "P3": [
        HandRound(1, CC, "greedy", 60, 6, 8, [2, 2], [1, 1], answers(3)),
        HandRound(2, CC, "supplier", 0, 0, 0, [0, 0], [0, 0], answers(3)),
        HandRound(3, FC, "greedy", 40, 3, 3, [1, 1], [0, 0], answers(4)),
        HandRound(4, FC, "supplier", 0, 0, 0, [0, 0], [0, 0], answers(4)),
    ],
}


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory) -> Path:
    return write_study(tmp_path_factory.mktemp("hand") / "study", PEOPLE)


def _p_df2(t: float) -> float:
    """Two-sided p of Student's t with 2 degrees of freedom: the CDF is 1/2 + t / (2 sqrt(2 + t^2))."""
    return 1 - abs(t) / math.sqrt(2 + t * t)


def test_table2_means_and_best_team(study_dir):
    study = read_study(study_dir)
    assert len(study.rounds) == 12 and study.notes == []
    row = next(r for r in tables.table2(study) if (r.partner, r.layout) == ("greedy", CC))
    assert row.reward.mean == pytest.approx(40) and row.reward.n == 3
    assert row.reward.se == pytest.approx(20 / math.sqrt(3))  # sd of 20, 40, 60 is 20
    assert row.constructive.mean == pytest.approx(3) and row.non_constructive.mean == pytest.approx((1 + 0 + 2) / 3)
    best = {(r.partner, r.layout): r for r in tables.table3(study)}
    assert best[("greedy", CC)].participant == "P3" and best[("greedy", CC)].reward.mean == 60
    assert best[("greedy", FC)].participant == "P2"  # 80 ties with P1; more constructive (9 > 5) wins


def test_h_sub_pools_the_human_seats_counts(study_dir):
    """supplier on RC: the human (seat 1) initiated 3 + 2 + 0 = 5, the agent 1 + 4 + 0 = 5 -> 50 %;
    accepted: human 1 + 0 + 0 = 1, agent 2 + 1 + 0 = 3 -> 25 %."""
    every, best = tables.table4(read_study(study_dir))
    row = next(r for r in every if (r.partner, r.layout) == ("supplier", FC))
    assert (row.h_sub_initiated, row.h_sub_accepted, row.rounds) == (50.0, 25.0, 3)
    assert row.human_initiated.mean == pytest.approx(5 / 3) and row.agent_accepted.mean == pytest.approx(1)
    none = next(r for r in every if (r.partner, r.layout) == ("supplier", CC))
    assert none.h_sub_initiated is None and none.h_sub_accepted is None  # nobody initiated: undefined, not 0
    top = next(r for r in best if (r.partner, r.layout) == ("supplier", FC))
    assert (
        top.scope == "best team P2" and top.h_sub_initiated == pytest.approx(100 * 2 / 6) and top.h_sub_accepted == 0.0
    )


def test_one_sample_and_paired_t_tests_by_hand(study_dir):
    """Per participant (the unit), q4 on Non-RC: P1 (3 + 5) / 2 = 4, P2 5, P3 3; on RC: 5, 5, 4."""
    rows = {(r.scale, r.test, r.layout): r.result for r in tables.tests(read_study(study_dir))}
    cc = [4, 5, 3]
    mean, sd, n = statistics.fmean(cc), statistics.stdev(cc), len(cc)
    t = (mean - 3) / (sd / math.sqrt(n))  # = sqrt(3)
    one = rows[("q4", "one-sample", CC)]
    assert (one.n, one.df) == (3, 2)
    assert one.t == pytest.approx(math.sqrt(3)) == pytest.approx(t)
    assert one.p == pytest.approx(_p_df2(t)) == pytest.approx(1 - math.sqrt(3 / 5))
    assert one.d == pytest.approx((mean - 3) / sd) == pytest.approx(1.0)
    diffs = [5 - 4, 5 - 5, 4 - 3]
    t_paired = statistics.fmean(diffs) / (statistics.stdev(diffs) / math.sqrt(3))  # = 2
    pair = rows[("q4", "paired", f"{FC} - {CC}")]
    assert pair.n == 3 and pair.mean == pytest.approx(2 / 3)
    assert pair.t == pytest.approx(t_paired) == pytest.approx(2.0)
    assert pair.p == pytest.approx(_p_df2(2.0)) == pytest.approx(1 - 2 / math.sqrt(6))
    assert pair.d == pytest.approx(statistics.fmean(diffs) / statistics.stdev(diffs))
    category = rows[("Was your partner working with you?", "one-sample", CC)]  # q5 and q6 answered alike
    assert category.t == pytest.approx(math.sqrt(3))


def test_pearson_by_hand(study_dir):
    study = read_study(study_dir)
    rows = {(r.scale, r.metric, r.layout): r.result for r in tables.correlations(study)}
    pairs = [(r.answers["q1"], r.constructive) for r in study.rounds]
    xs, ys = zip(*pairs, strict=True)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    r = sum((x - mx) * (y - my) for x, y in pairs) / math.sqrt(
        sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys)
    )
    got = rows[("q1", "constructive", "all")]
    assert got.n == 12 and got.pearson_r == pytest.approx(r)
    assert got.spearman_rho is not None and -1 <= got.spearman_rho <= 1


def test_the_command_writes_its_files_and_rewrites_them(study_dir, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["study", "report", str(study_dir), "--out", str(out)]) == 0
    first = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix in (".md", ".csv")}
    assert {
        "report.md",
        "table2.csv",
        "table3.csv",
        "table4.csv",
        "tests.csv",
        "correlations.csv",
        "rounds.csv",
        "ratings.csv",
    } <= set(first)
    tests_csv = {(r["scale"], r["test"], r["layout"]): r for r in read_csv(out / "tests.csv")}
    assert float(tests_csv[("q4", "one-sample", CC)]["t"]) == pytest.approx(math.sqrt(3))
    share = next(
        r
        for r in read_csv(out / "table4.csv")
        if (r["partner"], r["layout"], r["scope"]) == ("supplier", FC, "all rounds")
    )
    assert float(share["h_sub_initiated_pct"]) == 50.0 and float(share["h_sub_accepted_pct"]) == 25.0
    text = first["report.md"].decode()
    assert "| GREEDY | 40.00 ± 11.55 (n=3) |" in text  # the partner's label; mean ± se with n
    assert "50.00% (n=3)" in text and "25.00% (n=3)" in text
    before = sorted(p.name for p in study_dir.rglob("*"))
    assert main(["study", "report", str(study_dir), "--out", str(out)]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.suffix == ".csv"} == {
        k: v for k, v in first.items() if k.endswith(".csv")
    }
    assert sorted(p.name for p in study_dir.rglob("*")) == before  # the study folder is only read


def test_plots_are_drawn_or_skipped_with_a_note(study_dir, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    assert main(["study", "report", str(study_dir), "--out", str(tmp_path / "with")]) == 0
    assert (tmp_path / "with" / "table2.png").stat().st_size > 0 and (tmp_path / "with" / "ratings.png").is_file()
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # as if matplotlib were not installed
    assert main(["study", "report", str(study_dir), "--out", str(tmp_path / "without")]) == 0
    assert not list((tmp_path / "without").glob("*.png"))
    assert "matplotlib is not installed" in (tmp_path / "without" / "report.md").read_text(encoding="utf-8")
