"""CUBE's scenario strings and files, and the talk settings a team plays under: a count or seed in
another script's digits or thousands of digits long, a second ``@``, a NaN step cost, a leader no
seat has or a message budget past any use is one line and exit 2 before any run folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.cube.scenario import ScenarioError, load_scenario
from proagent.cli import main

DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"
SCENARIO = 'agents = [[0, 1], [0, 2]]\n[[blocks]]\nx = 3\ny = 3\nweight = 1\n'


def _refused(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str) -> None:
    runs = tmp_path / "runs"
    try:
        code = main([*argv, "--runs-dir", str(runs)])
    except SystemExit as exc:  # argparse's one-line error
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and all(w in err for w in words), err
    assert not runs.exists()


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("easy_2a@³", "agents after @"),
        ("easy_2a@٣", "agents after @"),
        ("easy_2a@3@4", "one @<agents> at most"),
        ("random:medium:²", "the seed"),
        ("random:medium:" + "9" * 5000, "the seed"),
        ("random:medium:" + "9" * 5000 + "@3", "the seed"),
        ("easy_2a@" + "9" * 5000, "agents after @"),
    ],
)
def test_scenario_strings_with_odd_or_huge_numbers_are_one_short_line(spec: str, words: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario(spec)
    message = str(info.value)
    assert words in message and "\n" not in message and len(message) < 300


def test_scenario_strings_still_read_their_numbers() -> None:
    assert len(load_scenario("easy_2a@3").agents) == 3
    assert load_scenario("random:medium:7") == load_scenario("random:medium:7")


@pytest.mark.parametrize("layout", ["easy_2a@³", "random:medium:²", "random:easy:" + "9" * 5000, "easy_2a@3@4"])
def test_play_refuses_odd_scenario_strings_before_any_run_folder(layout: str, tmp_path: Path, capsys) -> None:
    _refused(["play", "--domain", "cube", "--layout", layout, "--partner", "pusher"], tmp_path, capsys)


@pytest.mark.parametrize(
    ("line", "words"),
    [("step_cost = nan", "step_cost"), ("step_cost = inf", "step_cost"), ("horizon = 99999999999", "horizon"),
     ("max_blocks = 10000000", "max_blocks"), ("grid_size = 99999999999999999999", "grid_size")],
)  # fmt: skip
def test_a_scenario_file_with_a_nan_cost_or_huge_numbers_is_refused(line: str, words: str, tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f"{line}\n{SCENARIO}", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_play_refuses_a_nan_step_cost_before_any_run_folder(tmp_path: Path, capsys) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f"step_cost = nan\n{SCENARIO}", encoding="utf-8")
    _refused(["play", "--domain", "cube", "--layout", str(path), "--partner", "pusher"], tmp_path, capsys, "step_cost")


def test_a_deep_cube_scenario_is_one_line_before_any_run_folder(tmp_path: Path, capsys) -> None:
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(DEEP, encoding="utf-8")
    argv = ["play", "--domain", "cube", "--layout", str(scenario), "--partner", "pusher"]
    _refused(argv, tmp_path, capsys, str(scenario), "nested")


def test_play_refuses_a_leader_no_seat_has(tmp_path: Path, capsys) -> None:
    argv = ["play", "--domain", "cube", "--layout", "easy_2a", "--partner", "pusher", "--topology", "centralized"]
    _refused([*argv, "--leader", "99"], tmp_path, capsys, "--leader 99", "seats 0..1")


@pytest.mark.parametrize("budget", ["1e12", "1000000000000", "٣"])
def test_play_refuses_a_message_budget_past_its_bound(budget: str, tmp_path: Path, capsys) -> None:
    argv = ["play", "--domain", "cube", "--layout", "easy_2a", "--partner", "pusher", "--topology", "decentralized"]
    _refused([*argv, "--message-budget", budget], tmp_path, capsys, "--message-budget")


@pytest.mark.parametrize(("line", "words"), [("leader = 99", "leader: seat 99"), ("message_budget = 1e12", "message_budget")])
def test_an_eval_config_refuses_a_leader_no_seat_has_and_a_huge_budget(line: str, words: str, tmp_path, capsys) -> None:
    config = tmp_path / "grid.toml"
    config.write_text(
        f'domain = "cube"\nagents = [{{kind = "proagent"}}]\npartners = ["pusher"]\nlayouts = ["easy_2a"]\n'
        f'topologies = ["centralized"]\n{line}\n',
        encoding="utf-8",
    )
    _refused(["eval", str(config)], tmp_path, capsys, words)
