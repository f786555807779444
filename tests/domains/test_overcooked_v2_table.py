"""The OvercookedV2 table (proagent.tables.overcooked_v2): the shipped V2 partners' SP/XP next to
the paper's Table 2 (a few episodes), and ProAgent with each partner through the evaluation runner."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import proagent.tables.overcooked_v2 as table_module
from proagent.cli import main
from proagent.tables_out import without_resume


def load_script(_: str):
    return table_module


def test_seeds_count_as_one_method_and_both_seats_pool_episodes() -> None:
    table = load_script("overcooked_v2_table")
    assert table.method_of("sp_s1") == table.method_of("sp") == "sp" and table.method_of("state_aug") == "state_aug"
    scores = np.arange(2 * 2 * 2, dtype=float).reshape(2, 2, 2)  # (seat-0 partner, seat-1 partner, episodes)
    assert table.both_seats(scores, 0, [1]) == [2.0, 3.0, 4.0, 5.0]


@pytest.mark.slow  # cross-play of the shipped demo_cook_simple partners + 4 short ProAgent episodes (~1-2 min)
def test_the_table_has_our_numbers_next_to_the_papers(tmp_path: Path) -> None:
    out = tmp_path / "v2"
    argv = ["reproduce", "overcooked-v2-table2", "--layouts", "demo_cook_simple", "--set", "rl_episodes=2",
            "--episodes", "1", "--horizon", "30", "--out", str(out), "--runs-dir", str(tmp_path), "--progress", "off"]  # fmt: skip
    assert main([*argv, "--llm", "scripted"]) == 0
    text = out.with_suffix(".md").read_text()
    assert "scripted planner (not a language model)" in text
    assert "| demo_cook_simple | sp | " in text and "172 ± 19 (sd)" in text  # ours, then the paper's SP
    proagent_block = text.split("## ProAgent")[1]
    assert all(f"| demo_cook_simple | {name} | " in proagent_block for name in ("proagent", "sp", "recipe_greedy"))


def test_the_seed_table_counts_the_seeds_that_reach_the_papers_self_play() -> None:
    table = load_script("overcooked_v2_table")
    from proagent.eval.stats import mean_se

    paper = {"layouts": {"L": {"sp": [[100, 10], [-10, 50], [110, 20]]}}}
    row = lambda name, sp, kin: {"layout": "L", "name": name, "sp": mean_se(sp), "xp_same": mean_se(kin)}
    rows = [row("sp", [95.0, 95.0], [4.0, 6.0]), row("sp_s1", [89.0, 89.0], [0.0, 2.0]), row("op", [50.0], [])]
    lines = table.seed_table(rows, paper).splitlines()
    assert lines[2] == "| L | sp | 2 | 1 | 0.95x | 3.0 (n=2 seeds) | -10 ± 50 (sd) |"  # 95 >= 90 > 89
    assert lines[3] == "| L | op | 1 | - | - | - (one seed) | - |"  # no paper row for op here


def test_the_regenerate_command_names_no_run_folder_of_this_machine() -> None:
    argv = ["--llm", "embedded", "--resume", "runs/a", "--episodes", "1", "--resume=runs/b", "--out", "x"]
    assert without_resume(argv) == ["--llm", "embedded", "--episodes", "1", "--out", "x"]


def test_a_method_is_compared_with_the_paper_over_its_seeds_with_the_papers_seed_spread() -> None:
    from proagent.eval.stats import mean_se

    table = load_script("overcooked_v2_table")
    paper = {"layouts": {"lay": {"sp": [[150, 20], [50, 40], [100, 30]]}}}
    seed = lambda name, sp, xp: {"layout": "lay", "name": name, "sp": mean_se(sp), "xp_same": mean_se(xp)}
    rows = [seed("sp", [100.0, 110.0], [40.0, 60.0]), seed("sp_s1", [130.0, 140.0], [50.0, 70.0])]
    sp, xp = table.method_gaps(rows, paper)
    assert (sp.label, sp.ours.mean, sp.paper_mean) == ("lay sp SP", 120.0, 150.0)
    assert sp.ours.se == pytest.approx(20 / 2**0.5) and sp.paper_se == pytest.approx(20 / 10**0.5)
    assert sp.z == pytest.approx(-30.0 / (400 / 2 + 400 / 10) ** 0.5)
    assert (xp.label, xp.ours.mean, xp.paper_mean) == ("lay sp XP", 55.0, 50.0)
    one_seed = table.method_gaps(rows[:1], paper)
    assert [g.ours.n for g in one_seed] == [1, 1] and one_seed[0].ours.se == pytest.approx(20.0)
