"""CUBE scenarios: named ones, TOML files, random ones from a seed, and one-line validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.cube import (
    DIFFICULTIES,
    SCENARIOS,
    BlockSpec,
    Scenario,
    ScenarioError,
    load_scenario,
    make,
    parse_scenario,
    random_scenario,
)
from envs.cube.scenario import RANDOM_MARGIN


def build(blocks=((3, 3, 1),), agents=((0, 0), (0, 1)), **kw) -> Scenario:
    return Scenario("t", tuple(BlockSpec(*b) for b in blocks), tuple(agents), **kw)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(blocks=((3, 3, 2), (4, 4, 1))), "block 1 at (4, 4) weight 1 overlaps block 0 at cell (4, 4)"),
        (dict(blocks=((13, 14, 2),)), "block 0 at (13, 14) weight 2 lies outside the 15x15 grid"),
        (dict(blocks=((-1, 3, 1),)), "lies outside the 15x15 grid"),
        (dict(blocks=((13, 3, 2),)), "block 0 at (13, 3) weight 2 touches the goal column 14 at the start"),
        (dict(blocks=((14, 3, 1),)), "touches the goal column 14"),
        (dict(agents=tuple((0, y) for y in range(9))), "9 agents, need 2 to 8"),
        (dict(agents=((0, 0),)), "1 agents, need 2 to 8"),
        (dict(blocks=((3, 3, 3),)), "block 0 weight 3 outside [1, 2]"),
        (dict(blocks=((3, 3, 0),)), "block 0 weight 0 outside"),
        (dict(agents=((0, 0), (3, 3))), "agent 1 at (3, 3) stands on block 0"),
        (dict(agents=((0, 0), (0, 0))), "agent 1 at (0, 0) shares its cell with agent 0"),
        (dict(agents=((0, 0), (0, 15))), "agent 1 at (0, 15) lies outside the 15x15 grid"),
        (dict(blocks=()), "no blocks"),
        (dict(horizon=0), "horizon 0 must be >= 1"),
        (dict(step_cost=-1.0), "step_cost -1.0 must be >= 0"),
        (dict(grid_size=3), "grid_size 3 outside [4, 64]"),
        (dict(max_agents=9), "max_agents 9 must lie in [2, 8]"),
        (dict(max_blocks=0), "max_blocks 0 < 1 blocks"),
    ],
)
def test_invalid_scenarios_fail_with_one_line(kwargs, message):
    with pytest.raises(ScenarioError) as info:
        build(**kwargs)
    text = str(info.value)
    assert message in text and "\n" not in text and text.startswith("scenario 't': ")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope", "unknown scenario 'nope'; one of ['coop2', 'easy_2a', 'hard_4a', 'hard_8a', 'medium_3a']"),
        ("random:extreme:3", "unknown difficulty 'extreme'"),
        ("random:hard", "bad random scenario spec 'random:hard'"),
        ("random:hard:x", "bad random scenario spec"),
        ("missing.toml", "scenario file 'missing.toml' not found"),
    ],
)
def test_bad_specs_fail_with_one_line(spec, message):
    with pytest.raises(ScenarioError, match=None) as info:
        load_scenario(spec)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_named_scenarios_load_and_grow_with_difficulty():
    assert sorted(SCENARIOS) == ["coop2", "easy_2a", "hard_4a", "hard_8a", "medium_3a"]
    easy, medium, hard = (load_scenario(n) for n in ("easy_2a", "medium_3a", "hard_4a"))
    assert [len(s.agents) for s in (easy, medium, hard)] == [2, 3, 4]
    assert len(easy.blocks) < len(medium.blocks) < len(hard.blocks)
    assert easy.total_weight < medium.total_weight < hard.total_weight
    assert len(load_scenario("hard_8a").agents) == 8
    assert make("medium_3a").name == "medium_3a" and make("medium_3a").num_agents == 3


def test_toml_file_round_trip(tmp_path: Path):
    path = tmp_path / "ramp.toml"
    path.write_text(
        "grid_size = 8\nhorizon = 30\nstep_cost = 0.5\nagents = [[0, 1], [0, 2]]\n"
        "[[blocks]]\nx = 3\ny = 1\nweight = 2\n[[blocks]]\nx = 2\ny = 5\nweight = 1\n"
    )
    sc = load_scenario(path)
    assert sc.name == "ramp" and sc.grid_size == 8 and sc.horizon == 30 and sc.step_cost == 0.5
    assert sc.blocks == (BlockSpec(3, 1, 2), BlockSpec(2, 5, 1)) and sc.agents == ((0, 1), (0, 2))
    assert load_scenario(str(path)) == sc


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"agents": [[0, 0], [0, 1]]}, "missing 'blocks'"),
        ({"agents": [[0, 0], [0, 1]], "blocks": [], "speed": 2}, "unknown keys ['speed']"),
        (
            {"agents": [[0, 0], [0, 1]], "blocks": [{"x": 3, "y": 3}]},
            "block 0 must be a table with exactly x, y, weight",
        ),
        ({"agents": [[0, 0], [0]], "blocks": [{"x": 3, "y": 3, "weight": 1}]}, "agent 1 must be [x, y]"),
        ({"agents": [[0, 0], [0, 1]], "blocks": [{"x": 3, "y": 3, "weight": 1}], "horizon": "long"}, "horizon must be"),
        (
            {"agents": [[0, 0], [0, 1]], "blocks": [{"x": 3, "y": 3, "weight": 1.5}]},
            "block 0 weight must be an integer",
        ),
    ],
)
def test_toml_shape_errors(data, message):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data, default_name="f")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_invalid_toml_is_one_line(tmp_path: Path):
    path = tmp_path / "bad.toml"
    path.write_text("agents = [[0, 0]\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert "not valid TOML" in str(info.value) and "\n" not in str(info.value)


def test_random_scenarios_are_deterministic_by_seed():
    assert random_scenario("hard", 7) == random_scenario("hard", 7) == load_scenario("random:hard:7")
    assert len({random_scenario("medium", s).blocks for s in range(10)}) == 10
    assert random_scenario("easy", 3).name == "random:easy:3"


@pytest.mark.parametrize("difficulty", sorted(DIFFICULTIES))
def test_random_scenarios_respect_margins_and_counts(difficulty):
    d = DIFFICULTIES[difficulty]
    for seed in range(30):
        sc = random_scenario(difficulty, seed)
        k = sc.grid_size
        assert len(sc.agents) == d.agents and len(sc.blocks) == d.blocks and sc.horizon == d.horizon
        assert all(x == 0 for x, _ in sc.agents)
        for b in sc.blocks:
            assert b.weight in d.weights and b.weight <= d.agents
            assert b.x >= RANDOM_MARGIN and b.y >= RANDOM_MARGIN and b.y + b.weight <= k - RANDOM_MARGIN
            assert b.x + b.weight - 1 <= k - 2 - RANDOM_MARGIN  # margin free columns before the goal


def test_state_for_needs_the_same_grid_and_capacities():
    env = make("random:hard:0")
    assert env.state_for(random_scenario("hard", 5)).block_weight.shape == (4,)
    with pytest.raises(ScenarioError, match="scenario 'random:medium:1': agent_capacity 3 differs from env"):
        env.state_for(random_scenario("medium", 1))
    padded = build(max_agents=4, max_blocks=4)
    state = make(padded).reset(None)
    assert state.agent_active.tolist() == [True, True, False, False] and state.block_weight.tolist() == [1, 0, 0, 0]
