"""OvercookedV2 dynamics on the command line: the paper's settings by default on
its coordination layouts, `--env KEY=VALUE` over them, one clear line for a bad setting, and the
settings recorded with every run."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import pytest

from proagent.cli import main
from proagent.domains import get_domain
from proagent.world.types import DomainInputError

DOMAIN = get_domain("overcooked")
V2 = ("grounded_coord_simple", "grounded_coord_ring", "test_time_simple", "test_time_wide", "demo_cook_simple", "demo_cook_wide")


@pytest.mark.parametrize("layout", V2)
def test_coordination_layouts_default_to_the_papers_settings(layout: str) -> None:
    d = DOMAIN.make_env(layout, 50).dynamics
    assert (d.agent_view_size, d.random_agent_positions, d.wrong_soup_penalty, d.new_recipe_on_delivery) == (2, True, True, True)
    assert d.indicate_successful_delivery == layout.startswith("test_time")


def test_classic_layouts_keep_the_classic_rules() -> None:
    d = DOMAIN.make_env("cramped_room", 50).dynamics
    assert (d.agent_view_size, d.random_agent_positions, d.wrong_soup_penalty, d.new_recipe_on_delivery) == (None, False, False, False)


def test_settings_override_the_layouts_own_and_parse_their_types() -> None:
    d = DOMAIN.make_env_with("grounded_coord_simple", 30, {"agent_view_size": "none", "wrong_soup_penalty": "false", "cook_time": "5"}).dynamics
    assert (d.agent_view_size, d.wrong_soup_penalty, d.cook_time, d.random_agent_positions, d.horizon) == (None, False, 5, True, 30)


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"view": "2"}, "unknown --env setting 'view'; overcooked settings: cook_time"), ({"agent_view_size": "far"}, "--env agent_view_size: .*got 'far'")],
)
def test_a_bad_setting_is_one_line(settings: dict, message: str) -> None:
    with pytest.raises(DomainInputError, match=message) as info:
        DOMAIN.make_env_with("cramped_room", 10, settings)
    assert "\n" not in str(info.value)


def test_random_starts_differ_between_seeds_and_fixed_starts_do_not() -> None:
    random_env = DOMAIN.make_env("grounded_coord_simple", 10)
    fixed_env = DOMAIN.make_env_with("grounded_coord_simple", 10, {"random_agent_positions": "false"})

    def starts(env) -> set:
        return {tuple(p.position for p in env.symbolic(env.reset(jax.random.PRNGKey(seed))).players) for seed in range(6)}

    assert len(starts(random_env)) > 1 and len(starts(fixed_env)) == 1


def test_play_and_eval_record_the_settings(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    play = ["play", "--layout", "grounded_coord_simple", "--partner", "stay", "--horizon", "3", "--env", "agent_view_size=3"]
    llm = ["--llm", "scripted"]  # the settings, not a model, are under test
    assert main([*play, *llm, "--runs-dir", str(tmp_path / "play"), "--no-gif", "--live", "off"]) == 0
    (config,) = (tmp_path / "play").glob("*/config.json")
    settings = json.loads(config.read_text())["env_settings"]
    assert settings["agent_view_size"] == 3 and settings["wrong_soup_penalty"] is True and settings["horizon"] == 3
    evaluate = ["eval", "--layouts", "cramped_room,demo_cook_simple", "--agents", "random", "--partners", "stay", "--seats", "0"]
    assert main([*evaluate, "--episodes", "1", "--horizon", "3", "--env", "cook_time=7", "--runs-dir", str(tmp_path / "eval"), "--progress", "off"]) == 0
    (manifest,) = (tmp_path / "eval").glob("*/config.json")
    recorded = json.loads(manifest.read_text())["env_settings"]
    assert recorded["cramped_room"]["cook_time"] == 7 and recorded["cramped_room"]["agent_view_size"] is None
    assert recorded["demo_cook_simple"]["cook_time"] == 7 and recorded["demo_cook_simple"]["agent_view_size"] == 2
    assert main(["play", "--domain", "cube", "--layout", "easy_2a", "--env", "x=1", "--live", "off"]) == 2
    assert "cube domain takes no environment settings" in capsys.readouterr().err
