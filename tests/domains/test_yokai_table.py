"""Yōkai cross-play: `proagent eval --domain yokai` with ProAgent (the loopback double) and scripted
agents in both seats records the paper's metrics, and `proagent reproduce yokai-table2` writes the SP/XP page
(its numbers read back from the run's records), the CSV and the heatmaps, and refuses bad names."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.domains.yokai.metrics import METRIC_NAMES, WEE
from proagent.eval.records import read_records
from proagent.eval.stats import metric_stat


def test_eval_plays_proagent_and_scripted_agents_in_both_seats(tmp_path: Path) -> None:
    argv = ["eval", "--domain", "yokai", "--agents", "proagent,hint_reader", "--partners", "careful", "--layouts", "9c_2p",
            "--seats", "0,1", "--episodes", "1", "--progress", "off", "--runs-dir", str(tmp_path)]  # fmt: skip
    assert main([*argv, "--llm", "scripted"]) == 0
    (run,) = tmp_path.glob("*-eval")
    records = read_records(run / "episodes.jsonl")
    assert sorted((r.agent, r.seat) for r in records) == [("hint_reader", 0), ("hint_reader", 1), ("proagent", 0), ("proagent", 1)]
    for r in records:
        assert set(r.domain_metrics) | {WEE} == set(METRIC_NAMES) and r.score == r.domain_metrics["reward"]
        assert (WEE in r.domain_metrics) == (r.domain_metrics["early_end"] == 1)
    assert all(r.llm_calls > 0 for r in records if r.agent == "proagent")
    header = (run / "metrics.md").read_text().splitlines()
    assert any("early_win" in line and "win_if_early" in line and "length" in line for line in header)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--set", "agents=careful,greedy"], "'greedy'"),
        (["--set", "agents=careful,careful"], "twice"),
        (["--set", "layout=12c_2p"], "9c_2p"),
        (["--set", "agents=,"], "agents"),
        (["--set", "memory=perfect"], "memory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_any_run(tmp_path: Path, capsys: pytest.CaptureFixture, argv: list, said: str) -> None:
    assert main(["reproduce", "yokai-table2", *argv, "--runs-dir", str(tmp_path / "runs"), "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1 and not (tmp_path / "runs").exists() and not list(tmp_path.iterdir())


def test_the_page_reads_its_numbers_from_the_run(tmp_path: Path) -> None:
    out = tmp_path / "docs" / "yokai"
    argv = ["reproduce", "yokai-table2", "--set", "agents=careful,random", "--episodes", "2", "--out", str(out)]
    assert main([*argv, "--runs-dir", str(tmp_path), "--progress", "off"]) == 0
    text = out.with_suffix(".md").read_text()
    (run,) = tmp_path.glob("*-yokai-table2/*-yokai-table-9c_2p")  # the grid's run in the table's folder
    records = read_records(run / "episodes.jsonl")
    assert len(records) == 2 * 2 * 2 * 2 and f"run folder `{run.name}`" in text
    assert "proagent reproduce yokai-table2 --set agents=careful,random --episodes 2" in text
    rows: dict[str, list[str]] = {}  # the first table's rows (the second repeats each agent per setting)
    for line in text.splitlines():
        if line.startswith("| scripted |"):
            rows.setdefault(line.split(" | ")[1], line.strip("| ").split(" | "))
    careful, random = rows["careful"], rows["random"]
    xp = [r for r in records if r.agent == "careful" and r.partner == "random"]
    assert careful[7] == metric_stat(xp, "score").text(1) and careful[7].endswith("(n=4)")
    sp = [r for r in records if r.agent == "random" and r.partner == "random"]
    ee = metric_stat(sp, "early_end")
    assert random[4] == ee.model_copy(update={"mean": 100 * ee.mean, "se": 100 * (ee.se or 0)}).text(0)
    wee = metric_stat(sp, WEE)
    assert (random[5] == "–") == (wee.n == 0)  # WEE only over the games that ended early
    assert "| H | real | - | - | - | - | - | 5.7 ± 0.5 | 65 ± 11 | 65 ± 11 | 100 ± 0 | - |" in text
    assert "| OP | perfect | 6.6 ± 0.2 | 84 ± 2 | 90 ± 2 | 93 ± 1 | 25.2 ± 0.2 | 4.8 ± 0.1 |" in text
    assert "| OP colour only | perfect | 7.6 ± 0.1 | 97 ± 0 | 97 ± 1 | 100 ± 0 | 24.7 ± 0.1 | 2.1 ± 0.6 |" in text
    lines = list(csv.DictReader(out.with_suffix(".csv").open()))
    assert len(lines) == 2 * 2 * 10 and {"careful", "random"} == {line["agent"] for line in lines}
    for metric in ("score", "early_win"):
        png = out.with_name(f"yokai_xp_{metric}.png")
        assert png.read_bytes()[:4] == b"\x89PNG" and f"]({png.name})" in text


def test_every_agents_cross_play_meets_the_humans_and_a_trained_one_its_method() -> None:
    from proagent.tables.yokai import paper_gaps
    from tests.eval.eval_helpers import rec

    games = [rec(a, p, 0, i, score, layout="9c_2p") for i, (a, p, score) in enumerate([
        ("sp_s1", "sp_s1", 7.0), ("sp_s1", "sp_s1", 8.0), ("sp_s1", "careful", 1.0), ("sp_s1", "careful", 3.0),
        ("careful", "sp_s1", 2.0), ("careful", "careful", 4.0),
    ])]  # fmt: skip
    cells = {g.label: g for g in paper_gaps(games, ["sp_s1", "careful"], "9c_2p")}
    assert set(cells) == {"sp_s1 SP vs SP", "sp_s1 XP vs SP", "sp_s1 XP vs H", "careful XP vs H"}
    sp = cells["sp_s1 SP vs SP"]
    assert (sp.ours.mean, sp.paper_mean, sp.paper_se) == (7.5, 7.5, 0.3) and sp.z == 0.0
    humans = cells["careful XP vs H"]
    assert (humans.ours.mean, humans.ours.n, humans.paper_mean, humans.paper_se) == (2.0, 1, 5.7, 0.5)


def test_seeds_of_one_method_get_the_papers_inter_seed_cross_play() -> None:
    """``sp_pointer`` with ``sp_pointer_s1`` is the paper's XP (seeds of one method); their games with
    ``careful`` are not. An agent without a sibling seed has no such row."""
    from proagent.tables.yokai import SEED_XP, by_setting, paper_gaps, seeds_table
    from tests.eval.eval_helpers import rec

    names = ["sp_pointer", "sp_pointer_s1", "careful"]
    games = [rec(a, p, 0, i, score, layout="9c_2p") for i, (a, p, score) in enumerate([
        ("sp_pointer", "sp_pointer", 6.0), ("sp_pointer", "sp_pointer_s1", 2.0), ("sp_pointer", "sp_pointer_s1", 4.0),
        ("sp_pointer", "careful", -1.0), ("sp_pointer_s1", "sp_pointer", 1.0), ("careful", "careful", 4.0),
    ])]  # fmt: skip
    settings = by_setting(games, "sp_pointer", names)
    assert [r.score for r in settings[SEED_XP]] == [2.0, 4.0] and len(settings["XP"]) == 3
    assert SEED_XP not in by_setting(games, "careful", names)
    cells = {g.label: g for g in paper_gaps(games, names, "9c_2p")}
    seeds = cells[f"sp_pointer {SEED_XP} vs SP"]
    assert (seeds.ours.mean, seeds.ours.n, seeds.paper_mean) == (3.0, 2, 1.6)  # the paper's SP XP: 1.6 ± 0.2
    table = seeds_table(games, names, "9c_2p").splitlines()
    assert len(table) == 2 + 2 and table[2].split(" | ")[1:3] == ["sp_pointer", "sp_pointer_s1"]
    assert seeds_table(games, ["sp_pointer", "careful"], "9c_2p") == ""


def test_a_trained_partners_paper_row_comes_from_its_recipe_not_its_name() -> None:
    """The shipped partners map by what their manifests say they were trained with; a renamed
    checkpoint keeps its row, and Other-Play with a part of its group meets Table 4's row."""
    from proagent.paths import partner_dir
    from proagent.tables.yokai import paper_row, paper_row_of, paper_rows
    from proagent.training.checkpoint import load_manifest

    expected = {"sp": "SP", "sp_gru_s1": "SP", "sp_pointer_lr1e3": "SP", "sp_hi_ent": "HE", "op": "OP",
                "op_pointer": "OP", "careful": None}  # fmt: skip
    assert {name: paper_row_of(name, "9c_2p") for name in expected} == expected
    op = load_manifest(partner_dir("yokai", "9c_2p", "op_pointer"))
    rows = paper_rows()
    for group, row in (("colour", "OP colour only"), ("rotation", "OP rotation only"), ("colour_rotation", "OP")):
        trained = op.model_copy(update={"details": {"permuted": [0, 1, 2], "settings": {"group": group}}})
        assert paper_row(trained) == row and row in rows
    sp = load_manifest(partner_dir("yokai", "9c_2p", "sp_pointer"))
    config = {**sp.train_config, "ent_coef": 0.07, "gae_lambda": 0.85}
    assert paper_row(sp.model_copy(update={"train_config": config})) == "HE"
    assert paper_row(sp.model_copy(update={"train_config": {**config, "gae_lambda": 0.95}})) == "SP"
    assert paper_row(sp.model_copy(update={"algorithm": "bc"})) is None
    ippo = {"ppo": {"ent_coef": 0.07, "gae_lambda": 0.85}}  # ippo keeps its PPO overrides apart
    assert paper_row(sp.model_copy(update={"algorithm": "ippo", "train_config": ippo})) == "HE"
    assert paper_row(sp.model_copy(update={"algorithm": "ippo", "train_config": {"ppo": {}}})) == "SP"
