"""MA-Crafter's constraint process on the real JAX env: a hand-set iron collection stepped by the
env (exact records), and the scripted tech team's episode through the runner (every metric and
dZ in the record, every constraint record consistent with the bags)."""

from __future__ import annotations

import asyncio

import jax
import jax.numpy as jnp
import pytest

from envs.macrafter.env import CrafterEnv, make
from envs.macrafter.rules import Action, Item, Material
from envs.macrafter.scenario import Scenario
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import CrafterView
from proagent.domains import get_domain
from proagent.domains.macrafter.constraints import CONSTRAINTS, METRIC_NAMES, CrafterConstraintCollector
from proagent.domains.macrafter.partners import make_partner
from proagent.runner.episode import run_episode

L, R, U, DO, NOOP = Action.LEFT, Action.RIGHT, Action.UP, Action.DO, Action.NOOP
ALL = list(CONSTRAINTS)


def _iron_world() -> Scenario:
    grid = [[int(Material.GRASS)] * 9 for _ in range(9)]
    grid[4][4] = int(Material.IRON)
    settings = CrafterSettings(num_agents=3, width=9, height=9, horizon=20)
    return Scenario("iron_case", None, settings, 0, "iron", ((3, 4), (5, 4), (4, 5)), tuple(map(tuple, grid)))


def _play(
    env: CrafterEnv, tools: list[Item], *rows: tuple[int, ...]
) -> tuple[list[CrafterView], list[list[dict]], CrafterConstraintCollector]:
    state = env.reset(jax.random.PRNGKey(0))
    inventory = state.inventory
    for seat, tool in enumerate(tools):
        inventory = inventory.at[seat, int(tool)].set(1)
    state = state._replace(inventory=inventory)
    views = [env.symbolic(state)]
    collector = CrafterConstraintCollector(views[0])
    records = []
    for t, row in enumerate(rows):
        state = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(row, jnp.int32)).state
        views.append(env.symbolic(state))
        records.append(collector.add(views[-2], row, views[-1]))
    return views, records, collector


@pytest.fixture(scope="module")
def iron_env() -> CrafterEnv:
    return CrafterEnv(_iron_world())


def test_three_stone_pickaxes_collect_iron_together(iron_env: CrafterEnv) -> None:
    tools = [Item.STONE_PICKAXE] * 3
    views, records, collector = _play(iron_env, tools, (R, L, U), (DO, DO, DO))
    assert [a.count("iron") for a in views[2].agents] == [1, 1, 1]
    (task,) = [r for r in records[1] if r["kind"] == "collect" and r["outcome"] is not None]
    assert task["task"] == "collect iron at 4,4" and task["participants"] == [0, 1, 2]
    assert task["counts"] == {"spatial": 3, "temporal": 3, "participation": 3}
    assert task["satisfied"] == ALL and task["outcome"] == "ok" and task["delta_z"] == 3
    (cap,) = [r for r in records[1] if r["kind"] == "capability"]
    assert cap["agents"] == {"0": {"iron": 1}, "1": {"iron": 1}, "2": {"iron": 1}}
    totals = collector.result()
    assert totals["collect_ok"] == 1 and totals["dz_items_gained"] == 3 and totals["failed_attempts"] == 0


def test_two_stone_pickaxes_fail_on_participation(iron_env: CrafterEnv) -> None:
    tools = [Item.STONE_PICKAXE, Item.STONE_PICKAXE, Item.WOOD_PICKAXE]
    _, records, collector = _play(iron_env, tools, (R, L, U), (DO, DO, DO))
    (task,) = [r for r in records[1] if r["outcome"] is not None]
    assert task["outcome"] == "no_tool" and task["violated"] == ["participation"]
    assert task["attributed"] == "participation" and task["delta_z"] == 0
    assert not [r for r in records[1] if r["kind"] == "capability"]  # nothing changed hands
    assert collector.result()["failures_participation"] == 1


def test_a_lone_pick_fails_on_time(iron_env: CrafterEnv) -> None:
    _, records, _ = _play(iron_env, [Item.STONE_PICKAXE] * 3, (R, L, U), (DO, NOOP, NOOP))
    (task,) = [r for r in records[1] if r["outcome"] is not None]
    assert task["outcome"] == "too_few" and task["violated"] == ["temporal"] and task["attributed"] == "temporal"


def test_the_scripted_team_episode_records_every_metric_and_dz() -> None:
    domain = get_domain("macrafter")
    env = make("medium_3a", horizon=120)
    team = [make_partner("tech", env) for _ in range(env.num_agents)]
    lines: list[dict] = []
    record = asyncio.run(run_episode(env, domain, team, 0, 0, 0, trace=lines.append))
    process = record.process_metrics
    assert set(METRIC_NAMES) <= set(process)
    assert process["dz_tools_gained"] >= env.num_agents  # the team crafts its pickaxes
    assert process["dz_items_gained"] > 0 and process["collect_ok"] > 0
    gained = sum(
        v
        for line in lines
        for r in line["constraints"]
        if r["kind"] == "capability"
        for d in r["agents"].values()
        for v in d.values()
        if v > 0
    )
    assert gained == process["dz_tools_gained"] + process["dz_items_gained"]
    for line in lines:
        for r in line["constraints"]:
            if r["kind"] == "capability":
                continue
            assert sorted(r["satisfied"] + r["violated"]) == sorted(ALL)
            assert (r["attributed"] is not None) == (r["outcome"] not in (None, "ok"))
            if r["outcome"] == "ok" and r["kind"] == "collect":
                assert r["delta_z"] == len(r["participants"])  # every participant receives a unit
