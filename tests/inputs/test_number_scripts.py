"""Names and keys that may hold a number (a teammate addressed in a message, an episode id, a
seat key, an ingredient, a layout name, ``--until``, ``--seats``) are read with ASCII digits and a
bound: ``'²'`` (which ``str.isdigit()`` accepts and ``int()`` refuses) or thousands of digits never
raise."""

from __future__ import annotations

import pytest

from proagent.bounded import small_whole
from proagent.cli import main

NINES = "9" * 5000


@pytest.mark.parametrize(
    ("text", "value"), [("0", 0), ("12", 12), ("²", None), ("٣", None), (NINES, None), ("-1", None), ("", None)]
)
def test_small_whole_reads_ascii_digits_only_and_bounded(text: str, value: int | None) -> None:
    assert small_whole(text) == value


def test_a_message_addressed_to_a_huge_or_odd_player_number_reaches_no_one() -> None:
    from proagent.maeil.topology import Decentralized, TopologyConfig

    topology = Decentralized(TopologyConfig(name="decentralized"), (0, 1, 2))
    assert topology._addressed(0, f"to player {NINES}: go left") == ((), "go left")
    assert topology._addressed(0, "to player ٣: go left")[0] == (1, 2)  # not an address: every teammate
    assert topology._addressed(0, "to player 2: go left") == ((2,), "go left")


def test_records_with_odd_seat_keys_and_episode_ids_are_shown_not_refused() -> None:
    from proagent.interdependence.report import episode_name
    from proagent.web.replay_lanes import _lane_seats

    assert _lane_seats([{"actions": [0, 1], "stages": {"²": "plan", NINES: "plan"}}])[:2] == ["0", "1"]
    assert episode_name("greedy|stay|cramped_room|p0|²") == "greedy|stay|cramped_room|p0|²"
    assert episode_name("3") == "episode 4"


def test_odd_ingredients_layout_names_and_pot_marks_are_refusals_not_tracebacks() -> None:
    from envs.overcooked.layouts import LayoutError, ingredient_index
    from envs.yokai.scenario import named_config
    from proagent.domains.overcooked.web.ascii_kitchen import _pot

    with pytest.raises(LayoutError):
        ingredient_index("ingredient²")
    assert ingredient_index("ingredient1") == 1
    with pytest.raises(ValueError, match="unknown yokai layout"):
        named_config(NINES + "c_2p")
    assert _pot([0, 0], "²")["ingredients"] == [] and len(_pot([0, 0], "2")["ingredients"]) == 2


@pytest.mark.parametrize("argv", [["human", "--until", "soups=²"], ["human", "--until", f"soups={NINES}"]])
def test_until_with_odd_digits_is_one_line(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and len(err.splitlines()) == 1 and len(err) < 400 and "--until" in err


def test_eval_seats_with_odd_digits_is_one_line(tmp_path, capsys) -> None:
    argv = ["eval", "--agents", "greedy", "--partners", "stay", "--seats", "²", "--runs-dir", str(tmp_path / "runs")]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "seats" in err and not (tmp_path / "runs").exists()


def test_the_product_tells_digits_only_through_the_bounded_reader() -> None:
    """``str.isdigit()`` (true for '²', which int() refuses, and for 5,000 digits) appears nowhere
    in the product but in the bounded reader itself."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = sorted([*(root / "proagent").rglob("*.py"), *(root / "envs").rglob("*.py")])
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in files
        if str(path.relative_to(root)) != "proagent/bounded.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(f".{name}()" in line for name in ("isdigit", "isnumeric", "isdecimal"))
    ]
    assert found == []
