"""MA-Crafter's cooperation process as EmCoop computes it (`proagent.domains.macrafter.constraints`),
on hand-built view pairs (before, after) whose numbers are worked out by hand here.

The map is 9x9 under EmCoop's rules (reach d = 1; coal: 2 agents with a wood pickaxe; iron: 3 with a
stone pickaxe; stone: 1 with a wood pickaxe; tree and water: 1, no tool); coordinates are (x, y), y
grows downwards. The env's record of each step (``after.attempts``) is written by hand, as the env
writes it: every resource cell within reach of a seat that did ``do``, with those seats.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from envs.macrafter.rules import Action, Item, Material
from envs.macrafter.scenario import LEGEND
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView
from proagent.domains.macrafter.constraints import (
    METRIC_NAMES,
    CrafterConstraintCollector,
    aggregate_attempts,
    capability_change,
    capability_changes,
    evaluate_step,
    task_states,
)
from proagent.web.replay_lanes import episode_lanes

DO, NOOP = int(Action.DO), int(Action.NOOP)
SETTINGS = CrafterSettings(num_agents=3, width=9, height=9)
MAP = [
    ".........",
    "...c.....",  # coal (3, 1)
    ".........",
    "....i....",  # iron (4, 3)
    ".........",
    ".#.......",  # stone (1, 5)
    ".........",
    "T.......C",  # tree (0, 7), a cow (8, 7)
    "~......t.",  # water (0, 8), a table (7, 8)
]
COAL, IRON, STONE, TREE, WATER = (3, 1), (4, 3), (1, 5), (0, 7), (0, 8)


def agent(seat: int, x: int, y: int, alive: bool = True, food: int = 9, **items: int) -> AgentState:
    bag = {i.name.lower(): items.get(i.name.lower(), 0) for i in Item}
    return AgentState(seat, (x, y), (1, 0), alive, False, bag, {"health": 9, "food": food, "drink": 9, "energy": 9})


def view(
    team: list[AgentState], attempts: tuple[Attempt, ...] = (), step: int = 0, cleared: tuple | dict = ()
) -> CrafterView:
    """The map with the team on it; ``cleared``: cells mined (path), or cell -> what a collection left."""
    cleared = cleared if isinstance(cleared, dict) else dict.fromkeys(cleared, Material.PATH)
    grid = tuple(tuple(int(cleared.get((x, y), LEGEND[ch])) for x, ch in enumerate(row)) for y, row in enumerate(MAP))
    return CrafterView(step, 100, False, 0.0, 9, 9, grid, tuple(team), attempts, settings=SETTINGS)


def then(
    before: CrafterView, team: list[AgentState], attempts: tuple[Attempt, ...] = (), cleared: tuple | dict = ()
) -> CrafterView:
    return view(team, attempts, before.step + 1, cleared)


def gave(a: AgentState, **items: int) -> AgentState:
    return replace(a, inventory={k: v + items.get(k, 0) for k, v in a.inventory.items()})


def test_every_collectable_cell_is_a_task_and_cows_and_stations_are_not() -> None:
    team = [agent(0, 1, 4, wood_pickaxe=1), agent(1, 5, 5, iron_pickaxe=1), agent(2, 8, 0)]
    tasks = task_states(view(team), ())
    assert [(t.resource, t.cell) for t in tasks.tasks()] == [  # EmCoop's id order: column by column
        ("tree", TREE),
        ("water", WATER),
        ("stone", STONE),
        ("coal", COAL),
        ("iron", IRON),
    ]
    assert tasks.task((8, 7)) is None and tasks.task((7, 8)) is None  # the cow, the table
    stone = tasks.task(STONE)
    assert (stone.quorum, stone.tool, stone.nearby, stone.acting) == (1, "wood_pickaxe", (0,), ())
    assert stone.capable == (0,), "the exact tool: agent 1's iron pickaxe does not mine stone"
    assert stone.dependency_met and stone.status == "in_progress"  # someone near, nobody acting
    tree = tasks.task(TREE)
    assert tree.capable == (0, 1, 2) and tree.dependency_met and tree.status == "pending"  # no tool: all alive
    iron = tasks.task(IRON)
    assert iron.counts == {"spatial": 0, "temporal": 0, "participation": 0, "dependency": 0}
    assert iron.met == {"spatial": False, "temporal": False, "participation": False, "dependency": False}


def test_a_quorum_met_collects_the_coal_and_removes_its_task() -> None:
    team = [agent(0, 2, 1, wood_pickaxe=1), agent(1, 4, 1, wood_pickaxe=1), agent(2, 8, 0)]
    before = view(team)
    ok = Attempt("collect", "coal", COAL, (0, 1), (0, 1), 2, "wood_pickaxe", "ok")
    after = then(before, [gave(team[0], coal=1), gave(team[1], coal=1), team[2]], (ok,), cleared=(COAL,))
    step = evaluate_step(before, [DO, DO, NOOP], after)
    (event,) = step.events
    assert event.success and event.successful == (0, 1) and event.blocked == ()
    assert event.scores == {"spatial": 1.0, "temporal": 1.0, "dependency": 1.0} and sum(event.violations.values()) == 0
    assert step.tasks.task(COAL) is None  # judged after the step: the coal is gone
    m = step.metrics
    assert (m.task_set_size, m.tasks_added, m.tasks_removed, m.task_set_delta) == (4, 0, 1, -1)
    assert (m.capability_increased, m.capability_decreased) == (2, 0)
    assert event.to_record()["delta_z"] == 2


def test_a_quorum_missed_violates_the_temporal_constraint_by_half() -> None:
    team = [agent(0, 2, 1, wood_pickaxe=1), agent(1, 4, 1, wood_pickaxe=1), agent(2, 8, 0)]
    before = view(team)
    lone = Attempt("collect", "coal", COAL, (0,), (0,), 2, "wood_pickaxe", "too_few")
    step = evaluate_step(before, [DO, NOOP, NOOP], then(before, team, (lone,)))
    (event,) = step.events
    assert not event.success and event.blocked == (0,)
    # spatial: 2 near / 2; temporal: 1 acting / 2; dependency: 2 wood pickaxes / 2
    assert event.scores == {"spatial": 1.0, "temporal": 0.5, "dependency": 1.0}
    assert event.violations == {"spatial": 0.0, "temporal": 0.5, "dependency": 0.0}
    coal = step.tasks.task(COAL)
    assert coal.acting == (0,) and coal.status == "in_progress"
    assert coal.to_record()["violated"] == ["temporal"]
    record = event.to_record()
    assert record["attributed"] == {"temporal": 0.5} and record["violated"] == ["temporal"]


def test_a_missing_tool_is_a_whole_dependency_violation() -> None:
    # iron needs three stone pickaxes; wood pickaxes and an iron one (a better tool) do not count
    team = [agent(0, 3, 3, wood_pickaxe=1), agent(1, 5, 3, wood_pickaxe=1), agent(2, 4, 2, iron_pickaxe=1)]
    before = view(team)
    refused = Attempt("collect", "iron", IRON, (0, 1, 2), (), 3, "stone_pickaxe", "no_tool")
    step = evaluate_step(before, [DO, DO, DO], then(before, team, (refused,)))
    (event,) = step.events
    assert event.violations == {"spatial": 0.0, "temporal": 0.0, "dependency": 1.0}
    iron = step.tasks.task(IRON)
    assert iron.counts["dependency"] == 0 and not iron.dependency_met
    # two stone pickaxes of three: a third of the dependency is missing
    team = [gave(team[0], stone_pickaxe=1), gave(team[1], stone_pickaxe=1), team[2]]
    before = view(team)
    short = Attempt("collect", "iron", IRON, (0, 1, 2), (0, 1), 3, "stone_pickaxe", "no_tool")
    (event,) = evaluate_step(before, [DO, DO, DO], then(before, team, (short,))).events
    assert event.violations["dependency"] == pytest.approx(1 / 3) and event.violations["spatial"] == 0.0


def test_agents_out_of_reach_count_for_nothing_but_the_dependency() -> None:
    # agent 1 does DO two cells from the coal (reach 1): not near, not acting on it, but capable
    team = [agent(0, 2, 1, wood_pickaxe=1), agent(1, 5, 1, wood_pickaxe=1), agent(2, 8, 8)]
    before = view(team)
    lone = Attempt("collect", "coal", COAL, (0,), (0,), 2, "wood_pickaxe", "too_few")
    step = evaluate_step(before, [DO, DO, NOOP], then(before, team, (lone,)))
    coal = step.tasks.task(COAL)
    assert (coal.nearby, coal.acting, coal.capable) == ((0,), (0,), (0, 1))
    (event,) = step.events
    assert event.violations == {"spatial": 0.5, "temporal": 0.5, "dependency": 0.0}


def test_a_step_without_do_has_no_attempt_and_nobody_acting() -> None:
    team = [agent(0, 2, 1, wood_pickaxe=1), agent(1, 4, 1, wood_pickaxe=1), agent(2, 8, 0)]
    before = view(team)
    moved = [replace(team[0], position=(2, 2)), team[1], team[2]]
    collector = CrafterConstraintCollector(before)
    records = collector.add(before, [int(Action.DOWN), NOOP, NOOP], then(before, moved))
    assert [r["kind"] for r in records] == ["step", "task"]  # the coal, with agent 1 still beside it
    assert records[1]["counts"] == {"spatial": 1, "temporal": 0, "participation": 1, "dependency": 2}
    totals = collector.result()
    assert set(totals) == set(METRIC_NAMES)
    assert totals["attempt_constraint_events"] == 0 and totals["attempt_success_rate"] == 0.0
    assert totals["temporal_violation_rate"] == 0.0 and totals["temporal_score"] == 0.0  # no checks
    assert totals["temporal_satisfied"] == 0 and totals["c_plus_temporal"] == 0
    assert totals["spatial_worsened"] == 1 and totals["C_minus"] == 1  # agent 0 left the coal
    assert totals["C_plus"] == 0 and totals["C_spatial_ratio"] == 0.0 and totals["C_temporal_ratio"] == 0.5


def test_water_and_trees_are_tasks_but_only_trees_make_attempt_events() -> None:
    team = [agent(0, 1, 7), agent(1, 1, 8), agent(2, 8, 0)]  # beside the tree and beside the water
    before = view(team)
    attempts = (
        Attempt("collect", "tree", TREE, (0,), (0,), 1, "none", "ok"),
        Attempt("collect", "water", WATER, (1,), (1,), 1, "none", "ok"),
    )
    after = then(before, [gave(team[0], wood=1), team[1], team[2]], attempts, cleared={TREE: Material.GRASS})
    step = evaluate_step(before, [DO, DO, NOOP], after)
    assert [e.resource for e in step.events] == ["tree"]  # water is survival, no event
    water = step.tasks.task(WATER)
    assert water.status == "ready" and step.metrics.total_satisfied == 1  # the water, still there
    assert step.tasks.task(TREE) is None and step.metrics.tasks_removed == 1  # a cut tree leaves grass


def test_capability_changes_leave_out_vitals_saplings_and_the_fallen() -> None:
    team = [agent(0, 1, 1, wood=2), agent(1, 2, 1), agent(2, 3, 3, coal=1)]
    before = view(team)
    after_team = [
        gave(team[0], wood=-2),  # shared all its wood ...
        replace(gave(team[1], wood=2, sapling=1), vitals={**team[1].vitals, "food": 3}),  # ... to agent 1
        replace(gave(team[2], coal=-1), alive=False),  # fell: EmCoop no longer tracks it
    ]
    after = then(before, after_team)
    assert capability_change(before, after) == {0: {"wood": -2}, 1: {"wood": 2}}
    changes = capability_changes(before, after)
    assert [(c.seat, c.item, c.old, c.new, c.gain) for c in changes] == [
        (0, "wood", 2, 0, False),
        (1, "wood", 0, 2, True),
    ]
    collector = CrafterConstraintCollector(before)
    records = collector.add(before, [NOOP] * 3, after)
    (cap,) = [r for r in records if r["kind"] == "capability"]
    assert cap["agents"] == {"0": {"wood": -2}, "1": {"wood": 2}} and (cap["gains"], cap["losses"]) == (1, 1)
    totals = collector.result()
    assert (totals["total_gains"], totals["total_losses"], totals["delta_Z"]) == (1, 1, 0)
    assert (totals["capability_increased"], totals["capability_decreased"]) == (2, 2)
    assert (totals["dz_items_gained"], totals["dz_items_lost"], totals["dz_tools_gained"]) == (2, 2, 0)
    assert totals["Z_gain_rate"] == 1.0  # one gain record in one step


def test_constraint_changes_count_distinct_tasks_over_the_episode() -> None:
    a0, a1, a2 = agent(0, 3, 5, wood_pickaxe=1), agent(1, 6, 6, wood=1), agent(2, 8, 0)
    near = replace(a0, position=(2, 5))  # beside the stone
    crafted = gave(a1, wood=-1, wood_pickaxe=1)  # the stone and the coal gain a capable agent
    steps = [
        ([int(Action.LEFT), NOOP, NOOP], [near, a1, a2]),
        ([NOOP, int(Action.MAKE_WOOD_PICKAXE), NOOP], [near, crafted, a2]),
        ([int(Action.RIGHT), NOOP, NOOP], [a0, crafted, a2]),  # agent 0 walks off again
    ]
    views = [view([a0, a1, a2])]
    collector = CrafterConstraintCollector(views[0])
    for actions, team in steps:
        views.append(then(views[-1], team))
        records = collector.add(views[-2], actions, views[-1])
    assert records[0]["constraint_changes"]["spatial"] == {"improved": 0, "worsened": 1}
    totals = collector.result()
    assert (totals["spatial_improved"], totals["spatial_worsened"]) == (1, 1)  # the stone, both ways
    assert (totals["dependency_improved"], totals["dependency_worsened"]) == (2, 0)  # the stone and the coal
    assert (totals["C_plus"], totals["C_minus"]) == (2, 1)
    assert totals["C_spatial_ratio"] == 0.5 and totals["C_dependency_ratio"] == 1.0
    assert totals["tasks_added"] == totals["tasks_removed"] == 0 and totals["task_steps"] == 3 * 5


def test_episode_rates_and_fractional_failures_worked_out_by_hand() -> None:
    """Three attempts: a coal collected, a coal tried alone, an iron tried without stone pickaxes."""
    pair = [agent(0, 2, 1, wood_pickaxe=1), agent(1, 4, 1, wood_pickaxe=1), agent(2, 8, 0)]
    first = view(pair)
    collector = CrafterConstraintCollector(first)
    lone = Attempt("collect", "coal", COAL, (0,), (0,), 2, "wood_pickaxe", "too_few")
    lines = [collector.add(first, [DO, NOOP, NOOP], then(first, pair, (lone,)))]
    ok = Attempt("collect", "coal", COAL, (0, 1), (0, 1), 2, "wood_pickaxe", "ok")
    mined = then(first, [gave(pair[0], coal=1), gave(pair[1], coal=1), pair[2]], (ok,), cleared=(COAL,))
    lines.append(collector.add(then(first, pair), [DO, DO, NOOP], mined))
    trio = [replace(pair[0], position=(3, 3)), replace(pair[1], position=(5, 3)), agent(2, 4, 2, wood_pickaxe=1)]
    refused = Attempt("collect", "iron", IRON, (0, 1, 2), (), 3, "stone_pickaxe", "no_tool")
    lines.append(collector.add(view(trio, cleared=(COAL,)), [DO] * 3, view(trio, (refused,), cleared=(COAL,))))
    totals = collector.result()
    assert (totals["attempt_constraint_events"], totals["successful_attempt_events"]) == (3, 1)
    assert totals["attempt_success_rate"] == pytest.approx(1 / 3)
    assert totals["spatial_violation_rate"] == 0.0 and totals["spatial_score"] == 1.0
    assert totals["temporal_violation_rate"] == pytest.approx(0.5 / 3)  # 0.5 of the lone try
    assert totals["dependency_violation_rate"] == pytest.approx(1 / 3) and totals["dependency_checks"] == 3
    assert totals["failed_attempts"] == 2
    assert (totals["failures_spatial"], totals["failures_temporal"], totals["failures_dependency"]) == (0, 0.5, 1)
    assert aggregate_attempts([])["attempt_success_rate"] == 0.0
    # the replay's third lane sums the same shares
    lanes = episode_lanes([{"step": i, "actions": ["noop"] * 3, "constraints": c} for i, c in enumerate(lines)])
    failures: dict[str, float] = {}
    for s in lanes["steps"]:
        for name, share in s["failures"].items():
            failures[name] = failures.get(name, 0) + share
    assert failures == {"temporal": 0.5, "dependency": 1.0}
    tried = [t for t in lanes["steps"][2]["tasks"] if t["outcome"] == "no_tool"]
    assert tried and tried[0]["attributed"] == "dependency 1"


def test_the_collector_refuses_views_of_another_world() -> None:
    collector = CrafterConstraintCollector(view([agent(0, 1, 1), agent(1, 2, 2), agent(2, 3, 3)]))
    small = view([agent(0, 1, 1), agent(1, 2, 2)])
    with pytest.raises(ValueError, match="different world"):
        collector.add(small, [NOOP, NOOP], small)
    team = view([agent(0, 1, 1), agent(1, 2, 2), agent(2, 3, 3)])
    with pytest.raises(ValueError, match="2 actions for 3 agents"):
        collector.add(team, [NOOP, NOOP], team)
