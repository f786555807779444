"""MA-Crafter's scenario strings, hand-made maps and ``--env`` values read their numbers with the
bounded reader: a team size or seed in another script's digits or thousands of digits long, a
second ``@``, ``1_0`` or ``nan`` for a rule, a ``'²'`` in a map is one short line (a ScenarioError,
or exit 2 before any run folder), never a traceback or an error echoing the whole value."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.macrafter.scenario import SCENARIOS, ScenarioError, from_text, load_scenario, with_settings
from proagent.cli import main
from proagent.domains import get_domain

NINES = "9" * 5000
NO_LLM = ["--llm", "openai/test", "--api-base", "http://127.0.0.1:9", "--live", "off"]


def _one_short_line(exc: pytest.ExceptionInfo[ScenarioError], *words: str) -> None:
    message = str(exc.value)
    assert "\n" not in message and len(message) < 300 and all(w in message for w in words), message


def _refused(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str) -> None:
    runs = tmp_path / "runs"
    try:
        code = main([*argv, *NO_LLM, "--runs-dir", str(runs)])
    except SystemExit as exc:  # argparse's one-line error
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and len(err) < 400 and all(w in err for w in words), err
    assert not runs.exists()


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("easy_2a@³", "agents after @"),
        ("easy_2a@٣", "agents after @"),
        ("easy_2a@3@4", "one @<agents> at most"),
        ("easy_2a@" + NINES, "agents after @"),
        ("random:medium:²", "the seed"),
        ("random:medium:" + NINES, "the seed"),
        ("random:medium:" + NINES + "@3", "the seed"),
        ("random:medium:2147483648", "the seed"),
        ("random:" + NINES + ":3", "unknown difficulty"),
        (NINES, "unknown scenario"),
    ],
)
def test_scenario_strings_with_odd_or_huge_numbers_are_one_short_line(spec: str, words: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario(spec)
    _one_short_line(info, words)


def test_scenario_strings_still_read_their_numbers() -> None:
    assert load_scenario("easy_2a@3").num_agents == 3
    assert load_scenario("random:easy:2147483647").seed == 2**31 - 1


def test_a_map_digit_in_another_script_is_no_seat() -> None:
    rows = ["0........", "1.²......"] + ["........."] * 7
    with pytest.raises(ScenarioError) as info:
        from_text("odd", rows)
    _one_short_line(info, "map cell (2, 1) is '²'")
    assert from_text("even", [rows[0], "1........", *rows[2:]]).agents == ((0, 0), (0, 1))


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("collect_distance", "1_0", "between 1 and 8"),
        ("collect_distance", "²", "between 1 and 8"),
        ("horizon", NINES, "between 1 and 10000"),
        ("tool_tier_bonus", "nan", "of at least 0"),
        ("cow_move_probability", "inf", "from 0 to 1"),
        ("resources.iron.quorum", "٣", "between 1 and 8"),
        ("resources.coal.base_value", NINES, "of at least 0"),
        ("recipes.wood_pickaxe.needs.wood", "1_0", "between 0 and 999"),
        ("recipes.stone_pickaxe.quorum", "99", "between 1 and 8"),
        ("num_agents", "²", "between 1 and 8"),
        ("num_agents", NINES, "between 1 and 8"),
    ],
)
def test_env_values_are_read_by_type_within_their_range(key: str, value: str, words: str) -> None:
    with pytest.raises(ScenarioError) as info:
        with_settings(SCENARIOS["easy_2a"], {key: value})
    _one_short_line(info, f"--env {key}:", words)


def test_env_values_still_read_their_numbers() -> None:
    overrides = {
        "collect_distance": "2",
        "tool_tier_bonus": "0.25",
        "recipes.wood_pickaxe.needs.wood": "3",
        "resources.iron.quorum": " 2 ",
        "num_agents": "3",
    }
    settings = with_settings(SCENARIOS["easy_2a"], overrides).settings
    assert (settings.collect_distance, settings.tool_tier_bonus, settings.num_agents) == (2, 0.25, 3)
    assert settings.recipes["wood_pickaxe"].needs == {"wood": 3} and settings.resources["iron"].quorum == 2


def test_an_unknown_env_key_with_a_huge_value_is_not_echoed_whole() -> None:
    with pytest.raises(ScenarioError) as info:
        with_settings(SCENARIOS["easy_2a"], {"nope": NINES})
    assert "unknown setting" in str(info.value) and "(5,000 characters)" in str(info.value)
    assert NINES not in str(info.value)


@pytest.mark.parametrize("spec", ["easy_2a@3", "easy_2a@²", "easy_2a@" + NINES, "random:easy:٣", "nope@²"])
def test_owns_reads_the_team_suffix_without_raising(spec: str) -> None:
    assert get_domain("macrafter").owns(spec) == (spec in ("easy_2a@3", "random:easy:٣"))


@pytest.mark.parametrize(
    ("layout", "words"),
    [
        ("easy_2a@³", "agents after @"),
        ("easy_2a@3@4", "one @<agents> at most"),
        ("random:easy:²", "the seed"),
        ("random:easy:" + NINES, "the seed"),
    ],
)
def test_play_refuses_odd_scenario_strings_before_any_run_folder(
    layout: str, words: str, tmp_path: Path, capsys
) -> None:
    argv = ["play", "--domain", "macrafter", "--layout", layout, "--partner", "helper"]
    _refused(argv, tmp_path, capsys, words)


@pytest.mark.parametrize(
    ("setting", "words"),
    [("collect_distance=1_0", "--env collect_distance"), ("num_agents=²", "--env num_agents"),
     (f"horizon={NINES}", "--env horizon"), ("resources.iron.base_value=nan", "--env resources.iron.base_value")],
)  # fmt: skip
def test_play_refuses_odd_env_values_before_any_run_folder(setting: str, words: str, tmp_path: Path, capsys) -> None:
    argv = ["play", "--domain", "macrafter", "--layout", "easy_2a", "--partner", "helper", "--env", setting]
    _refused(argv, tmp_path, capsys, words)
