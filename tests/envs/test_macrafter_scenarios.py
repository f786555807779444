"""MA-Crafter scenarios: named and seeded worlds, the reach guarantee, team sizes, settings
overrides (``--env KEY=VALUE``) and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from envs.macrafter import (
    DIFFICULTIES,
    SCENARIOS,
    CrafterSettings,
    Material,
    ScenarioError,
    load_scenario,
    make,
    random_scenario,
    with_agents,
    with_settings,
)
from envs.macrafter.scenario import Scenario, from_text, to_text
from envs.macrafter.worldgen import NEEDS, reachable, usable


def _guaranteed(sc: Scenario) -> dict[Material, tuple[int, int]]:
    """Per needed material: (usable cells, needed), quorum-many open sides counted."""
    quorum = {Material[r.upper()]: rule.quorum for r, rule in sc.settings.resources.items()}
    sides = {m: min(4, quorum.get(m, 1)) for m in NEEDS[sc.target]}
    grid = np.asarray(sc.grid)
    for x, y in sc.cows:  # cows are objects now; the guarantee counted them as cells
        grid[y, x] = Material.COW
    have = usable(grid, sc.agents, sc.width, sides)
    return {m: (have[m], need) for m, need in NEEDS[sc.target].items()}


def test_named_scenarios_grow_in_team_map_and_target():
    shape = {n: (s.num_agents, s.width, s.height, s.target, s.difficulty) for n, s in SCENARIOS.items()}
    assert shape == {
        "emcoop": (3, 64, 64, "diamond", "emcoop"),
        "easy_2a": (2, 16, 16, "coal", "easy"),
        "medium_3a": (3, 24, 24, "iron", "medium"),
        "hard_4a": (4, 32, 32, "diamond", "hard"),
    }
    assert load_scenario("medium_3a") is SCENARIOS["medium_3a"]


FIXED = [name for name, s in SCENARIOS.items() if not s.generated]


@pytest.mark.parametrize("spec", [*FIXED, *(f"random:{d}:{seed}" for d in DIFFICULTIES for seed in range(6))])
def test_every_world_holds_what_its_target_needs_within_reach(spec):
    sc = load_scenario(spec)
    short = {m.name.lower(): got for m, got in _guaranteed(sc).items() if got[0] < got[1]}
    assert not short, f"{spec}: too few usable cells {short}"
    grid = np.asarray(sc.grid)
    assert all(grid[y, x] == Material.GRASS for x, y in sc.agents) and len(set(sc.agents)) == sc.num_agents
    xs, ys = zip(*sc.agents, strict=True)
    assert max(xs) - min(xs) <= 2 and max(ys) - min(ys) <= 2  # the team starts together
    dist = reachable(grid, sc.agents)
    assert all(dist[y, x] == 0 for x, y in sc.agents)


def test_worlds_are_deterministic_in_the_seed_and_varied_across_seeds():
    a, b = random_scenario("hard", 5), random_scenario("hard", 5)
    assert a == b and a.grid == b.grid
    grids = {random_scenario("medium", s).grid for s in range(4)}
    assert len(grids) == 4
    materials = {m for row in SCENARIOS["hard_4a"].grid for m in row}
    assert {Material.GRASS, Material.WATER, Material.TREE, Material.STONE, Material.DIAMOND} <= materials
    assert SCENARIOS["hard_4a"].cows and Material.COW not in materials  # cows are objects, not cells


def test_team_size_by_suffix_keeps_the_world_and_target():
    five = load_scenario("medium_3a@5")
    assert (five.name, five.num_agents, five.settings.num_agents, five.target) == ("medium_3a@5", 5, 5, "iron")
    assert not {m.name for m, got in _guaranteed(five).items() if got[0] < got[1]}
    assert with_agents(SCENARIOS["easy_2a"], 2) is SCENARIOS["easy_2a"]
    assert load_scenario("random:easy:3@4").num_agents == 4
    with pytest.raises(ScenarioError, match="the agents after @: must be between 1 and 8"):
        load_scenario("easy_2a@9")


def test_settings_overrides_apply_and_are_recorded():
    sc = with_settings(SCENARIOS["medium_3a"], {"collect_distance": "2", "resources.coal.base_value": "30"})
    assert sc.settings.collect_distance == 2 and sc.settings.unit_value("coal") == 30 * 2 * 1.5
    assert sc.grid == SCENARIOS["medium_3a"].grid  # rules only: the same world
    quorum = with_settings(SCENARIOS["medium_3a"], {"resources.iron.quorum": "4", "recipes.stone_pickaxe.quorum": "3"})
    assert quorum.settings.resources["iron"].quorum == 4 and quorum.settings.recipes["stone_pickaxe"].quorum == 3
    iron = [got for m, got in _guaranteed(quorum).items() if m == Material.IRON]
    assert iron[0][0] >= iron[0][1]  # regenerated: iron with 4 open sides
    recipe = with_settings(
        SCENARIOS["easy_2a"], {"recipes.wood_pickaxe.needs.wood": "2", "recipes.wood_pickaxe.stations": "table,furnace"}
    )
    assert recipe.settings.recipes["wood_pickaxe"].needs == {"wood": 2}
    assert recipe.settings.recipes["wood_pickaxe"].stations == ("table", "furnace")
    bigger = with_settings(SCENARIOS["easy_2a"], {"width": "20", "num_agents": "3"})
    assert (bigger.width, bigger.num_agents, len(bigger.grid[0])) == (20, 3, 20)
    env = make("easy_2a", horizon=40)
    assert env.settings.horizon == 40 and env.settings.model_dump()["horizon"] == 40


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"nope": "1"}, "--env nope=1: unknown setting; one of the fields"),
        ({"collect_distance": "0"}, "--env collect_distance: must be between 1 and 8, got '0'"),
        ({"horizon": "soon"}, "--env horizon: must be a whole number between 1 and 10000"),
        ({"resources.iron.tool": "spoon"}, "resources.iron.tool: Input should be 'none', 'wood_pickaxe'"),
        ({"resources.gold.quorum": "1"}, "--env resources.gold.quorum=1: unknown setting"),
        ({"cow_food": "-1"}, "--env cow_food: must be between 0 and 99, got '-1'"),
        ({"cow_move_probability": "nan"}, "--env cow_move_probability: must be a number from 0 to 1, got 'nan'"),
        ({"creatures.max_zombies": "1"}, "--env creatures.max_zombies=1: unknown setting"),
        ({"view_width": "8"}, "both sides must be odd"),
        ({"num_agents": "x"}, "--env num_agents: must be a whole number between 1 and 8"),
        ({"num_agents": "12"}, "--env num_agents: must be between 1 and 8, got '12'"),
    ],
)
def test_bad_settings_fail_with_one_line(overrides, message):
    with pytest.raises(ScenarioError) as info:
        with_settings(SCENARIOS["easy_2a"], overrides)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "nope",
            "unknown scenario 'nope'; one of ['easy_2a', 'emcoop', 'hard_4a', 'medium_3a'], emcoop:<seed> or random:<easy|medium|hard>:<seed>",
        ),
        ("random:easy", "bad random scenario spec 'random:easy'"),
        ("random:easy:x", "bad random scenario spec"),
        ("random:extreme:1", "unknown difficulty 'extreme'; one of ['easy', 'hard', 'medium']"),
        ("easy_2a@x", "scenario 'easy_2a@x': the agents after @: must be a whole number"),
    ],
)
def test_unknown_specs_list_what_exists(spec, message):
    with pytest.raises(ScenarioError) as info:
        load_scenario(spec)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_hand_made_maps_validate_in_one_line():
    rows = ["0.T......", ".1~......"] + ["........."] * 7
    sc = from_text("tiny", rows)
    assert (sc.num_agents, sc.agents, sc.width, sc.height) == (2, ((0, 0), (1, 1)), 9, 9)
    assert to_text(sc.grid)[0] == "..T......"
    cases = [
        (lambda: from_text("t", ["0x" + "." * 7] + ["." * 9] * 8), "map cell (1, 0) is 'x'"),
        (lambda: from_text("t", ["0" + "." * 8, "1" + "." * 7] + ["." * 9] * 7), "the map must be 9 rows of 9 cells"),
        (lambda: from_text("t", ["00" + "." * 7] + ["." * 9] * 8), "agent 0 appears twice"),
        (lambda: from_text("t", ["02" + "." * 7] + ["." * 9] * 8), "seat digits must be 0 to n-1"),
        (lambda: from_text("t", ["0" + "." * 7] + ["." * 8] * 7), "Input should be greater than or equal to 9"),
        (lambda: from_text("t", rows, target="gold"), "target 'gold'"),
        (lambda: from_text("t", rows, max_agents=1), "max_agents 1 must lie in [2, 8]"),
        (
            lambda: Scenario(
                "t",
                None,
                CrafterSettings(num_agents=2, width=9, height=9),
                None,
                "iron",
                ((0, 0), (2, 0)),
                from_text("x", rows).grid,
            ),
            "agent 1 at (2, 0) starts on tree",
        ),
        (
            lambda: Scenario(
                "t",
                None,
                CrafterSettings(num_agents=3, width=9, height=9),
                None,
                "iron",
                ((0, 0), (1, 0)),
                from_text("x", rows).grid,
            ),
            "settings.num_agents 3 differs from the 2 agent starts",
        ),
        (lambda: with_agents(sc, 3), "a hand-made map has fixed starts"),
    ]
    for build, message in cases:
        with pytest.raises(ScenarioError) as info:
            build()
        assert message in str(info.value) and "\n" not in str(info.value), message


def test_emcoop_world_by_seed_is_one_world_whatever_the_reset_key():
    import jax

    env, six = make("emcoop:3"), make("emcoop:3@6")
    first, second = env.reset(jax.random.PRNGKey(0)), env.reset(jax.random.PRNGKey(9))
    assert np.array_equal(first.grid, second.grid) and np.array_equal(first.pos, second.pos)
    assert six.num_agents == 6 and six.name == "emcoop:3@6" and env.settings.width == 64
    other = make("emcoop:4").reset(jax.random.PRNGKey(0))
    assert not np.array_equal(first.grid, other.grid)
    with pytest.raises(ScenarioError, match="the world seed"):
        load_scenario("emcoop:x")
