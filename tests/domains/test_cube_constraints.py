"""EmCoop's cooperation constraints for CUBE (`proagent.domains.cube.constraints`) on hand-built
situations stepped by the real JAX env, with exact counts.

Every situation shares the arena's grid size and capacities, so one compiled step
(``CubeEnv.state_for``) serves them all. Coordinates are (x, y), y grows downwards, the goal is
column 7 of the 8x8 arena; a block (x, y, w) covers x..x+w-1, y..y+w-1.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import pytest

from envs.cube import BlockSpec, CubeAction, CubeBlock, CubeEnv, CubeView, PushOutcome, PushRecord, Scenario, decode
from proagent.domains import get_domain
from proagent.domains.cube.constraints import METRIC_NAMES, CubeConstraintCollector
from proagent.domains.cube.domain import CubeDomain

S, U, D, L, R = CubeAction.STAY, CubeAction.UP, CubeAction.DOWN, CubeAction.LEFT, CubeAction.RIGHT
CAP_AGENTS, CAP_BLOCKS = 4, 3
ALL = ["spatial", "temporal", "participation", "dependency"]


def world(blocks: list[tuple[int, int, int]], agents: list[tuple[int, int]]) -> Scenario:
    return Scenario(
        "case",
        tuple(BlockSpec(*b) for b in blocks),
        tuple(agents),
        grid_size=8,
        horizon=12,
        max_agents=CAP_AGENTS,
        max_blocks=CAP_BLOCKS,
    )


@pytest.fixture(scope="module")
def env() -> CubeEnv:
    return CubeEnv(world([(3, 3, 1)], [(0, 0), (0, 1)]))


@dataclass
class Run:
    views: list[CubeView]  # views[0] the start, views[t + 1] after step t
    records: list[list[dict]]  # per step, the collector's records
    collector: CubeConstraintCollector

    def task(self, t: int, block: int, direction: str) -> dict:
        (rec,) = [r for r in self.records[t] if r["block"] == block and r["direction"] == direction]
        return rec

    def tasks(self, t: int) -> list[tuple[int, str]]:
        return [(r["block"], r["direction"]) for r in self.records[t]]


def play(env: CubeEnv, sc: Scenario, *rows: list[int]) -> Run:
    """Step the real env through ``rows`` of actions, feeding each step to a collector."""
    state = env.state_for(sc)
    first = decode(state, sc)  # env.symbolic would decode with the arena's own counts
    run = Run([first], [], CubeConstraintCollector(first))
    for row in rows:
        actions = list(row) + [S] * (CAP_AGENTS - len(row))
        state = env.jit_step(jax.random.PRNGKey(0), state, jnp.asarray(actions, jnp.int32)).state
        after = decode(state, sc)
        run.records.append(run.collector.add(run.views[-1], actions, after))
        run.views.append(after)
    return run


def counts(spatial: int, temporal: int, participation: int) -> dict[str, int]:
    return {"spatial": spatial, "temporal": temporal, "participation": participation}


def test_two_agents_push_a_weight_two_block_every_constraint_satisfied(env):
    run = play(env, world([(3, 3, 2)], [(2, 3), (2, 4)]), [R, R])
    assert run.views[1].blocks[0].position == (4, 3)
    assert run.records[0] == [
        {
            "block": 0,
            "face": "left",
            "direction": "right",
            "weight": 2,
            "counts": counts(2, 2, 2),
            "satisfied": ALL,
            "violated": [],
            "outcome": "moved",
            "attributed": None,
            "delta_z": 0,  # the pushers followed the block onto its new face
        }
    ]
    result = run.collector.result()
    assert result["coop_satisfied"] == 1.0 and result["failed_attempts"] == 0.0


def test_one_agent_on_a_weight_two_block_fails_on_space(env):
    run = play(env, world([(3, 3, 2)], [(2, 3), (0, 0)]), [R, S])
    rec = run.task(0, 0, "right")
    assert rec["counts"] == counts(1, 1, 2)
    assert rec["satisfied"] == ["participation", "dependency"] and rec["violated"] == ["spatial", "temporal"]
    assert (rec["outcome"], rec["attributed"]) == ("insufficient_force", "spatial")


def test_both_on_the_face_but_one_pushes_fails_on_time(env):
    run = play(env, world([(3, 3, 2)], [(2, 3), (2, 4)]), [R, S])
    rec = run.task(0, 0, "right")
    assert rec["counts"] == counts(2, 1, 2)
    assert rec["satisfied"] == ["spatial", "participation", "dependency"] and rec["violated"] == ["temporal"]
    assert (rec["outcome"], rec["attributed"]) == ("insufficient_force", "temporal")
    assert run.collector.result()["failures_temporal"] == 1.0


def test_weight_three_block_with_two_available_agents_fails_on_participation(env):
    # Agent 2 pushes block 1 home-ward, so only agents 0 and 1 are left for the weight-3 block.
    run = play(env, world([(2, 1, 3), (5, 6, 1)], [(1, 1), (1, 2), (4, 6)]), [R, R, R])
    assert run.tasks(0) == [(0, "right"), (1, "right")]
    heavy, light = run.task(0, 0, "right"), run.task(0, 1, "right")
    assert heavy["counts"] == counts(2, 2, 2)
    assert heavy["satisfied"] == ["dependency"] and heavy["violated"] == ["spatial", "temporal", "participation"]
    assert (heavy["outcome"], heavy["attributed"]) == ("insufficient_force", "participation")
    assert light["counts"] == counts(1, 1, 1)  # agents 0 and 1 are busy with block 0
    assert (light["satisfied"], light["outcome"], light["attributed"]) == (ALL, "moved", None)


def test_a_team_smaller_than_the_weight_always_violates_participation():
    # Scenario validation forbids a weight above the team size, so this one is built by hand.
    block = CubeBlock(0, (2, 1), 3, False)
    before = CubeView(0, 10, 8, ((1, 1), (1, 2)), (block,), 0, False, (), (-1, -1))
    push = PushRecord(R, 0, 3, 2, 2, PushOutcome.INSUFFICIENT_FORCE)
    after = CubeView(1, 10, 8, ((1, 1), (1, 2)), (block,), 0, False, (push,), (0, 0))
    (rec,) = CubeConstraintCollector(before).add(before, [R, R], after)
    assert rec["counts"] == counts(2, 2, 2)
    assert rec["violated"] == ["spatial", "temporal", "participation"]
    assert rec["attributed"] == "participation"


def test_push_into_another_block_violates_dependency(env):
    run = play(env, world([(3, 3, 1), (4, 3, 1)], [(2, 3), (0, 0)]), [R, S])
    pushed, behind = run.task(0, 0, "right"), run.task(0, 1, "right")
    assert pushed["counts"] == counts(1, 1, 2)
    assert pushed["satisfied"] == ["spatial", "temporal", "participation"] and pushed["violated"] == ["dependency"]
    assert (pushed["outcome"], pushed["attributed"]) == ("blocked_destination", "dependency")
    # Block 1 is nobody's task this step: no pushers, agent 0 busy with block 0, destination free.
    assert behind["counts"] == counts(0, 0, 1)
    assert behind["violated"] == ["spatial", "temporal"] and (behind["outcome"], behind["attributed"]) == (None, None)
    result = run.collector.result()
    assert (result["failed_attempts"], result["failures_dependency"], result["c_minus_dependency"]) == (1.0, 1.0, 1.0)


def test_push_against_the_grid_edge_violates_dependency_and_adds_the_task(env):
    run = play(env, world([(3, 0, 1)], [(3, 1), (0, 5)]), [U, S])
    assert run.tasks(0) == [(0, "up"), (0, "right")]
    up, right = run.task(0, 0, "up"), run.task(0, 0, "right")
    assert (up["face"], up["counts"], up["violated"]) == ("bottom", counts(1, 1, 2), ["dependency"])
    assert (up["outcome"], up["attributed"]) == ("blocked_destination", "dependency")
    # The goal-ward task stays active; agent 0 pushes the same block, so it still counts as available.
    assert right["counts"] == counts(0, 0, 2) and right["violated"] == ["spatial", "temporal"]


def test_unattempted_task_checks_its_destination_statically(env):
    run = play(env, world([(3, 3, 1)], [(4, 3), (0, 0)]), [S, S])
    rec = run.task(0, 0, "right")
    assert rec["violated"] == ["spatial", "temporal", "dependency"] and rec["outcome"] is None
    assert rec["attributed"] is None  # nobody attempted: no failure to attribute


def test_an_agent_pushing_another_block_breaks_participation_for_the_first(env):
    # Agent 1 delivers block 1; agent 0 alone cannot move the weight-2 block 0.
    run = play(env, world([(3, 3, 2), (6, 6, 1)], [(2, 3), (5, 6)]), [R, R])
    assert run.views[1].blocks[1].delivered and run.views[1].score == 1
    heavy, light = run.task(0, 0, "right"), run.task(0, 1, "right")
    assert heavy["counts"] == counts(1, 1, 1)
    assert heavy["violated"] == ["spatial", "temporal", "participation"]
    assert (heavy["outcome"], heavy["attributed"]) == ("insufficient_force", "participation")
    assert (light["outcome"], light["satisfied"], light["delta_z"]) == ("moved", ALL, 0)
    result = run.collector.result()
    assert (result["failures_participation"], result["failures_spatial"], result["coop_satisfied"]) == (1.0, 0.0, 1.0)


def test_capability_change_counts_agents_arriving_at_and_leaving_a_face(env):
    run = play(env, world([(3, 3, 2)], [(1, 3), (0, 0)]), [R, S], [S, S], [L, S])
    assert [run.task(t, 0, "right")["delta_z"] for t in range(3)] == [1, 0, -1]
    assert run.task(1, 0, "right")["counts"] == counts(1, 0, 2)
    assert run.collector.result()["capability_changes"] == 2.0


def test_a_block_pushed_into_an_agents_path_within_the_step_uses_the_envs_record(env):
    # Downward pushes resolve before rightward ones: block 0 lands in front of agent 1, who then
    # pushes it right in the same step. Counts stay on `before`, the outcome is the env's.
    run = play(env, world([(3, 2, 1)], [(3, 1), (2, 3)]), [D, R])
    assert run.views[1].blocks[0].position == (4, 3)
    assert run.tasks(0) == [(0, "down"), (0, "right")]
    right = run.task(0, 0, "right")
    assert (right["counts"], right["outcome"], right["attributed"]) == (counts(0, 0, 2), "moved", None)
    assert right["violated"] == ["spatial", "temporal"]


def test_multi_step_episode_totals(env):
    # Both agents walk onto block 0's left face, push once out of step, then three times together
    # (the last push delivers); block 1 in the corner is never pushed.
    sc = world([(3, 3, 2), (6, 0, 1)], [(1, 3), (2, 5)])
    run = play(env, sc, [R, U], [R, S], [R, R], [R, R], [R, R], [S, S])
    assert run.views[5].blocks[0].delivered and run.views[5].score == 2 and not run.views[6].done
    assert [run.task(t, 0, "right")["outcome"] for t in range(5)] == [
        None,
        "insufficient_force",
        "moved",
        "moved",
        "moved",
    ]
    assert [run.task(t, 1, "right")["counts"]["participation"] for t in range(6)] == [2, 1, 0, 0, 0, 2]
    assert run.collector.result() == {
        "c_plus_spatial": 4.0,
        "c_minus_spatial": 7.0,
        "c_plus_temporal": 3.0,
        "c_minus_temporal": 8.0,
        "c_plus_participation": 8.0,
        "c_minus_participation": 3.0,
        "c_plus_dependency": 11.0,
        "c_minus_dependency": 0.0,
        "coop_satisfied": 3.0,
        "failed_attempts": 1.0,
        "failures_spatial": 0.0,
        "failures_temporal": 1.0,
        "failures_participation": 0.0,
        "failures_dependency": 0.0,
        "capability_changes": 2.0,
        "task_steps": 11.0,
    }


def test_cube_domain_builds_the_collector(env):
    sc = world([(3, 3, 2)], [(2, 3), (2, 4)])
    first = decode(env.state_for(sc), sc)
    domain = get_domain("cube")
    assert isinstance(domain, CubeDomain)
    collector = CubeDomain().capabilities.process.collector(first)
    assert isinstance(collector, CubeConstraintCollector)
    assert tuple(collector.result()) == CubeDomain.capabilities.process.metric_names == METRIC_NAMES
    assert all(v == 0.0 for v in collector.result().values())
