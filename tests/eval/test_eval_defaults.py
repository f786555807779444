"""`proagent eval` without --partners plays each layout's default teammate (the best shipped seed
where trained partners ship), and without --layouts the world's own first layout: the defaults of
`play`, so an evaluation of a V2 kitchen or a CUBE scenario runs as it is written."""

from __future__ import annotations

import json
from pathlib import Path

from eval_helpers import lines

from proagent.cli import main
from proagent.cli.eval_run import default_layout
from proagent.domains import get_domain
from proagent.numbers import format_interval, format_mean


def _run(tmp_path: Path, *args: str) -> tuple[dict, list[dict]]:
    argv = ["eval", *args, "--episodes", "1", "--horizon", "4", "--seats", "0", "--runs-dir", str(tmp_path), "--progress", "off"]
    assert main(argv) == 0
    (run,) = tmp_path.iterdir()
    return json.loads((run / "config.json").read_text()), lines(run / "episodes.jsonl")


def test_each_layout_plays_its_own_default_partner_and_records_its_name(tmp_path: Path) -> None:
    config, episodes = _run(tmp_path, "--agents", "recipe_greedy", "--layouts", "grounded_coord_simple,cramped_room")
    assert config["config"]["partners"] == ["default"]
    domain = get_domain("overcooked")
    expected = {
        layout: domain.default_partner(domain.make_env(layout, 4)) for layout in ("grounded_coord_simple", "cramped_room")
    }
    assert expected["grounded_coord_simple"] != expected["cramped_room"]  # a trained seed there, a scripted cook here
    assert {e["layout"]: e["partner"] for e in episodes} == expected


def test_another_world_plays_its_first_layout_with_its_default_teammate(tmp_path: Path) -> None:
    config, episodes = _run(tmp_path, "--domain", "cube", "--agents", "pusher")
    cube = get_domain("cube")
    assert config["config"]["layouts"] == [cube.layout_names()[0]] == [default_layout("cube")]
    (episode,) = episodes
    assert episode["partner"] == cube.default_partner(cube.make_env(episode["layout"], 4))
    assert default_layout(None) == default_layout("overcooked") == "counter_circuit"


def test_a_mean_that_rounds_to_zero_is_never_written_negative() -> None:
    assert format_mean(-0.01, 0.0, 2) == "0.0 ± 0.0 (n=2)"
    assert format_mean(-0.04, 0.0, 1) == "0.0 (n=1)"
    assert format_interval(-0.04, 0.5) == "[0.0, 0.5]"
    assert format_mean(-0.06, 0.01, 2) == "-0.1 ± 0.0 (n=2)"


def test_yokai_lists_the_papers_main_setting_first() -> None:
    assert default_layout("yokai") == "9c_2p"  # what `eval --domain yokai` and `human --domain yokai` play
