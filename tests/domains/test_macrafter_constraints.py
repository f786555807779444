"""EmCoop's cooperation constraints for MA-Crafter (`proagent.domains.macrafter.constraints`) on
hand-built view pairs (before, after) with exact counts, attributions and capability changes.

The world is a 9x9 grass field; coordinates are (x, y), y grows downwards. The env's record of
the step (``after.attempts``) is written by hand here, as the env writes it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from envs.macrafter.rules import Item, Material
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView
from proagent.domains.macrafter.constraints import (
    METRIC_NAMES,
    CrafterConstraintCollector,
    capability_change,
    evaluate_step,
    tier_resource,
)

ALL = ["spatial", "temporal", "participation", "dependency"]
SETTINGS = CrafterSettings(num_agents=3, width=9, height=9)


def bag(**items: int) -> dict[str, int]:
    return {i.name.lower(): items.get(i.name.lower(), 0) for i in Item}


def agent(seat: int, x: int, y: int, alive: bool = True, sleeping: bool = False, **items: int) -> AgentState:
    vitals = {"health": 9, "food": 9, "drink": 9, "energy": 9}
    return AgentState(seat, (x, y), (1, 0), alive, sleeping, bag(**items), vitals)


def view(agents: list[AgentState], cells: dict[tuple[int, int], Material], attempts: tuple[Attempt, ...] = (), step: int = 0,
         settings: CrafterSettings = SETTINGS) -> CrafterView:  # fmt: skip
    grid = tuple(tuple(int(cells.get((x, y), Material.GRASS)) for x in range(9)) for y in range(9))
    return CrafterView(step, 100, False, 0.0, 9, 9, grid, tuple(agents), attempts, settings=settings)


def bare_view(agents: list[AgentState], cells: dict[tuple[int, int], Material]) -> CrafterView:
    """A view built without its rules: it carries the default ones."""
    grid = tuple(tuple(int(cells.get((x, y), Material.GRASS)) for x in range(9)) for y in range(9))
    return CrafterView(0, 100, False, 0.0, 9, 9, grid, tuple(agents))


def after_of(
    before: CrafterView, agents: list[AgentState], attempts: tuple[Attempt, ...], cells: dict | None = None
) -> CrafterView:
    grid = before.grid if cells is None else view(agents, cells).grid
    return replace(before, step=before.step + 1, agents=tuple(agents), attempts=attempts, grid=grid)


IRON = {(4, 4): Material.IRON}


def test_iron_with_three_stone_pickaxes_around_it_satisfies_all_four() -> None:
    team = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 5, 4, stone_pickaxe=1), agent(2, 4, 3, stone_pickaxe=1)]
    before = view(team, IRON)
    attempt = Attempt("collect", "iron", (4, 4), (0, 1, 2), (0, 1, 2), 3, "stone_pickaxe", "ok")
    got = [replace(a, inventory={**a.inventory, "iron": 1}) for a in team]
    after = after_of(before, got, (attempt,), {(4, 4): Material.PATH})
    (task,) = [e for e in evaluate_step(before, [5, 5, 5], after) if e.outcome is not None]
    assert task.counts == {"spatial": 3, "temporal": 3, "participation": 3}
    assert list(task.satisfied) == ALL and task.violated == ()
    assert task.attributed is None and task.delta_z == 3
    assert task.to_record()["task"] == "collect iron at 4,4"


def test_iron_without_stone_pickaxes_is_a_dependency_failure() -> None:
    team = [agent(0, 3, 4, wood_pickaxe=1), agent(1, 5, 4, wood_pickaxe=1), agent(2, 4, 3, wood_pickaxe=1)]
    before = view(team, IRON)
    attempt = Attempt("collect", "iron", (4, 4), (0, 1, 2), (), 3, "stone_pickaxe", "no_tool")
    (task,) = evaluate_step(before, [5, 5, 5], after_of(before, team, (attempt,)))  # no coal: no tier task
    assert task.target == "iron" and task.attributed == "dependency"
    assert task.violated == ("participation", "dependency")  # nobody is equipped: 0 of 3
    assert task.counts["participation"] == 0 and task.delta_z == 0


def test_one_stone_pickaxe_is_a_participation_failure() -> None:
    team = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 5, 4, wood_pickaxe=1), agent(2, 4, 3, wood_pickaxe=1)]
    before = view(team, IRON)
    attempt = Attempt("collect", "iron", (4, 4), (0, 1, 2), (0,), 3, "stone_pickaxe", "no_tool")
    task = evaluate_step(before, [5, 5, 5], after_of(before, team, (attempt,)))[0]
    assert task.counts == {"spatial": 3, "temporal": 3, "participation": 1}
    assert task.violated == ("participation",) and task.attributed == "participation"


def test_a_capable_team_too_far_away_fails_on_space_then_time() -> None:
    far = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 0, 0, stone_pickaxe=1), agent(2, 8, 8, stone_pickaxe=1)]
    before = view(far, IRON)
    alone = Attempt("collect", "iron", (4, 4), (0,), (0,), 3, "stone_pickaxe", "too_few")
    task = evaluate_step(before, [5, 0, 0], after_of(before, far, (alone,)))[0]
    assert task.counts == {"spatial": 1, "temporal": 1, "participation": 3}
    assert task.violated == ("spatial", "temporal") and task.attributed == "spatial"
    near = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 5, 4, stone_pickaxe=1), agent(2, 4, 5, stone_pickaxe=1)]
    before = view(near, IRON)
    two = Attempt("collect", "iron", (4, 4), (0, 1), (0, 1), 3, "stone_pickaxe", "too_few")
    task = evaluate_step(before, [5, 5, 0], after_of(before, near, (two,)))[0]
    assert task.violated == ("temporal",) and task.attributed == "temporal"


def test_the_outcome_decides_when_the_counts_violate_nothing() -> None:
    """Three capable agents near and three acting, but the acting ones are not all capable: the
    per-agent conjunction failed, so the env's ``no_tool`` names participation."""
    team = [
        agent(0, 3, 4, stone_pickaxe=1),
        agent(1, 5, 4, stone_pickaxe=1),
        agent(2, 4, 3, stone_pickaxe=1),
        agent(3, 4, 5),
    ]
    before = view(team, IRON)
    mixed = Attempt("collect", "iron", (4, 4), (0, 1, 3), (0, 1), 3, "stone_pickaxe", "no_tool")
    task = evaluate_step(before, [5, 5, 0, 5], after_of(before, team, (mixed,)))[0]
    assert task.violated == () and task.attributed == "participation"


def test_a_sleeping_or_down_agent_does_not_count_as_a_participant() -> None:
    team = [
        agent(0, 3, 4, stone_pickaxe=1),
        agent(1, 5, 4, sleeping=True, stone_pickaxe=1),
        agent(2, 4, 3, alive=False, stone_pickaxe=1),
    ]
    before = view(team, IRON)
    attempt = Attempt("collect", "iron", (4, 4), (0,), (0,), 3, "stone_pickaxe", "too_few")
    task = evaluate_step(before, [5, 0, 0], after_of(before, team, (attempt,)))[0]
    assert task.counts == {"spatial": 2, "temporal": 1, "participation": 1}
    assert task.attributed == "participation"


def test_collect_distance_setting_widens_space() -> None:
    team = [agent(0, 2, 4, stone_pickaxe=1), agent(1, 6, 4, stone_pickaxe=1), agent(2, 4, 2, stone_pickaxe=1)]
    narrow = view(team, IRON)
    wide = view(team, IRON, settings=SETTINGS.model_copy(update={"collect_distance": 2}))
    for before, expected in ((narrow, 0), (wide, 3)):
        (tier,) = evaluate_step(before, [0, 0, 0], after_of(before, team, ()))
        assert tier.target == "iron" and tier.outcome is None and tier.counts["spatial"] == expected


def test_craft_needs_the_station_placed_and_the_leader_stocked() -> None:
    cells = {(4, 4): Material.TABLE}
    stocked = [agent(0, 3, 4, wood=1, stone=1), agent(1, 5, 4), agent(2, 0, 0)]
    before = view(stocked, cells)
    ok = Attempt("craft", "stone_pickaxe", (4, 4), (0, 1), (0, 1), 2, "none", "ok", leader=0)
    made = [
        replace(stocked[0], inventory=bag(stone_pickaxe=1)),
        replace(stocked[1], inventory=bag(stone_pickaxe=1)),
        stocked[2],
    ]
    task = next(e for e in evaluate_step(before, [12, 12, 0], after_of(before, made, (ok,))) if e.kind == "craft")
    assert task.counts == {"spatial": 2, "temporal": 2, "participation": 3}
    assert list(task.satisfied) == ALL and task.delta_z == 2
    bare = [agent(0, 3, 4, wood=1), agent(1, 5, 4), agent(2, 0, 0)]
    before = view(bare, cells)
    short = Attempt("craft", "stone_pickaxe", (4, 4), (0, 1), (0, 1), 2, "none", "missing_items")
    task = evaluate_step(before, [12, 12, 0], after_of(before, bare, (short,)))[0]
    assert task.violated == ("dependency",) and task.attributed == "dependency"
    nowhere = view(stocked, {})
    none = Attempt("craft", "stone_pickaxe", None, (0, 1), (0, 1), 2, "none", "no_station")
    task = evaluate_step(nowhere, [12, 12, 0], after_of(nowhere, stocked, (none,)))[0]
    assert task.counts["spatial"] == 0 and task.attributed == "dependency"
    assert task.to_record()["task"] == "craft stone_pickaxe"


def test_a_lone_crafter_of_a_two_agent_recipe_fails_on_time() -> None:
    cells = {(4, 4): Material.TABLE, (1, 1): Material.FURNACE}
    team = [agent(0, 3, 4, wood=1, stone=1), agent(1, 5, 4), agent(2, 0, 0)]
    before = view(team, cells)
    alone = Attempt("craft", "stone_pickaxe", (4, 4), (0,), (0,), 2, "none", "too_few")
    task = evaluate_step(before, [12, 0, 0], after_of(before, team, (alone,)))[0]
    assert task.violated == ("temporal",) and task.attributed == "temporal"
    iron = Attempt("craft", "iron_pickaxe", (4, 4), (0, 1), (0, 1), 2, "none", "missing_items")
    task = evaluate_step(before, [13, 13, 0], after_of(before, team, (iron,)))[0]
    assert task.counts["spatial"] == 0  # nobody is near both the table and the furnace
    assert task.attributed == "dependency"  # no coal nor iron in anyone's bag


def test_tier_task_follows_the_team_tools() -> None:
    bare = view([agent(0, 0, 0), agent(1, 1, 0)], {(2, 2): Material.TREE})
    assert tier_resource(bare, SETTINGS) == "tree"
    (task,) = evaluate_step(bare, [0, 0], after_of(bare, list(bare.agents), ()))
    assert task.cell == (2, 2) and task.tool == "none" and task.quorum == 1
    assert task.violated == ("spatial", "temporal") and task.attributed is None
    wood = view([agent(0, 0, 0, wood_pickaxe=1), agent(1, 1, 0)], {})
    assert tier_resource(wood, SETTINGS) == "coal"
    assert evaluate_step(wood, [0, 0], after_of(wood, list(wood.agents), ())) == []  # no coal on the map
    down = view([agent(0, 0, 0, alive=False, iron_pickaxe=1), agent(1, 1, 0, wood_pickaxe=1)], {})
    assert tier_resource(down, SETTINGS) == "coal"  # a down agent's tools do not count


def test_capability_change_counts_items_and_tools_gained_and_lost() -> None:
    before = view([agent(0, 3, 4, wood=2, stone=1), agent(1, 5, 4)], {(4, 4): Material.TABLE})
    after = after_of(before, [agent(0, 3, 4, wood=1, stone_pickaxe=1), agent(1, 5, 4, stone_pickaxe=1)], ())
    assert capability_change(before, after) == {
        0: {"stone": -1, "stone_pickaxe": 1, "wood": -1},
        1: {"stone_pickaxe": 1},
    }
    collector = CrafterConstraintCollector(before)
    records = collector.add(before, [12, 12], after)
    (cap,) = [r for r in records if r["kind"] == "capability"]
    assert cap["agents"] == {"0": {"stone": -1, "stone_pickaxe": 1, "wood": -1}, "1": {"stone_pickaxe": 1}}
    assert cap["dz_total"] == 4 and cap["delta_z"] == 0
    totals = collector.result()
    assert totals["dz_tools_gained"] == 2 and totals["dz_items_lost"] == 2
    assert totals["dz_items_gained"] == 0 and totals["dz_tools_lost"] == 0
    assert totals["capability_changes"] == 4


def test_collector_totals_cover_every_metric() -> None:
    team = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 5, 4, wood_pickaxe=1), agent(2, 4, 3, wood_pickaxe=1)]
    before = view(team, IRON)
    fail = Attempt("collect", "iron", (4, 4), (0, 1, 2), (0,), 3, "stone_pickaxe", "no_tool")
    collector = CrafterConstraintCollector(before)
    collector.add(before, [5, 5, 5], after_of(before, team, (fail,)))
    collector.add(before, [0, 0, 0], after_of(before, team, ()))
    totals = collector.result()
    assert set(totals) == set(METRIC_NAMES) and all(isinstance(v, float) for v in totals.values())
    assert totals["task_steps"] == 2 and totals["collect_attempts"] == 1 and totals["collect_ok"] == 0
    assert totals["failed_attempts"] == 1 and totals["failures_participation"] == 1
    assert totals["c_minus_temporal"] == 1  # the unattempted tier task of the second step
    assert totals["c_plus_spatial"] == 2 and totals["coop_satisfied"] == 0
    with pytest.raises(ValueError, match="different world"):
        collector.add(view(team[:2], IRON), [0, 0], view(team[:2], IRON))
    with pytest.raises(ValueError, match="2 actions for 3 agents"):
        evaluate_step(before, [0, 0], before)


def test_records_feed_the_replay_lanes_unchanged() -> None:
    from proagent.web.replay_lanes import episode_lanes

    team = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 5, 4, stone_pickaxe=1), agent(2, 4, 3, wood_pickaxe=1)]
    before = view(team, IRON)
    fail = Attempt("collect", "iron", (4, 4), (0, 1, 2), (0, 1), 3, "stone_pickaxe", "no_tool")
    records = CrafterConstraintCollector(before).add(before, [5, 5, 5], after_of(before, team, (fail,)))
    lanes = episode_lanes([{"step": 0, "actions": ["do", "do", "do"], "constraints": records}])
    assert lanes is not None
    (step,) = lanes["steps"]
    assert step["failures"] == {"participation": 1}
    assert step["tasks"][0]["task"] == "collect iron at 4,4" and step["tasks"][0]["attributed"] == "participation"


def test_a_view_without_settings_is_judged_by_the_default_rules() -> None:
    team = [agent(0, 3, 4, stone_pickaxe=1), agent(1, 5, 4, stone_pickaxe=1)]
    before = bare_view(team, IRON)
    (tier,) = evaluate_step(before, [0, 0], after_of(before, team, ()))
    assert tier.target == "iron" and tier.quorum == CrafterSettings().resources["iron"].quorum == 3
    assert "participation" in tier.violated  # two of three
