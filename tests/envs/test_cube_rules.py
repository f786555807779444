"""CUBE's rules on hand-built situations, each run through the JAX env and the NumPy reference.

Every situation is a scenario with the arena's grid size and capacities, so one compiled step
(``CubeEnv.state_for``) serves them all; ``play`` also requires the reference to agree exactly.
Coordinates are (x, y), y grows downwards, the goal is column 7 of the 8x8 arena.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.cube import (
    BlockSpec,
    CubeAction,
    CubeEnv,
    CubeEnvState,
    CubeEvent,
    CubeEventKind,
    CubeView,
    PushOutcome,
    ReferenceCube,
    Scenario,
    ScenarioError,
    decode,
)

S, U, D, L, R = CubeAction.STAY, CubeAction.UP, CubeAction.DOWN, CubeAction.LEFT, CubeAction.RIGHT
CAP_AGENTS, CAP_BLOCKS = 4, 3
ARENA = Scenario(
    "arena",
    (BlockSpec(3, 3, 1),),
    ((0, 0), (0, 1)),
    grid_size=8,
    horizon=12,
    step_cost=0.25,
    max_agents=CAP_AGENTS,
    max_blocks=CAP_BLOCKS,
)


@pytest.fixture(scope="module")
def env() -> CubeEnv:
    return CubeEnv(ARENA)


def world(blocks: list[tuple[int, int, int]], agents: list[tuple[int, int]]) -> Scenario:
    return Scenario(
        "case",
        tuple(BlockSpec(*b) for b in blocks),
        tuple(agents),
        grid_size=ARENA.grid_size,
        horizon=ARENA.horizon,
        step_cost=ARENA.step_cost,
        max_agents=CAP_AGENTS,
        max_blocks=CAP_BLOCKS,
    )


@dataclass
class Played:
    views: list[CubeView]  # views[0] is the start, views[t + 1] after step t
    events: list[list[CubeEvent]]
    rewards: list[float]
    shaped: list[np.ndarray]
    states: list[CubeEnvState]

    @property
    def last(self) -> CubeView:
        return self.views[-1]

    def kinds(self, t: int = 0) -> list[tuple[int, str, str | None]]:
        return [(e.agent, e.kind.value, e.reason) for e in self.events[t]]


def play(env: CubeEnv, sc: Scenario, *rows: list[int]) -> Played:
    """Step the JAX env and the reference through ``rows`` of actions; they must agree exactly."""
    state, ref = env.state_for(sc), ReferenceCube(sc)
    ref_state = ref.reset()
    out = Played([decode(state, sc)], [], [], [], [state])
    for row in rows:
        actions = list(row) + [S] * (CAP_AGENTS - len(row))
        tr = env.jit_step(jax.random.PRNGKey(0), state, jnp.asarray(actions, jnp.int32))
        expected = ref.step(ref_state, actions)
        for field in CubeEnvState._fields:
            assert np.array_equal(np.asarray(getattr(tr.state, field)), getattr(expected.state, field)), field
        assert float(tr.reward) == float(expected.reward) and bool(tr.done) == expected.done
        assert np.array_equal(np.asarray(tr.shaped_reward), expected.shaped_reward)
        after = decode(tr.state, sc)
        events = env.events(out.views[-1], actions, after)
        assert events == expected.events
        out.views.append(after)
        out.events.append(events)
        out.rewards.append(float(tr.reward))
        out.shaped.append(np.asarray(tr.shaped_reward))
        out.states.append(tr.state)
        state, ref_state = tr.state, expected.state
    return out


def test_push_with_enough_force_moves_block_and_pusher(env):
    p = play(env, world([(3, 3, 1)], [(2, 3), (0, 0)]), [R, S])
    assert p.last.blocks[0].position == (4, 3) and p.last.agents[0] == (3, 3)
    assert p.kinds() == [(0, "push_ok", None)]
    (rec,) = p.last.pushes
    assert (rec.direction, rec.face, rec.force, rec.aligned, rec.outcome) == (R, "left", 1, 1, PushOutcome.OK)
    assert p.rewards == [-0.25] and p.shaped[0].tolist() == [1.0, 0, 0, 0]


def test_push_with_insufficient_force_fails_and_pusher_stays(env):
    p = play(env, world([(3, 3, 2)], [(2, 3), (0, 0)]), [R, S])
    assert p.last.blocks[0].position == (3, 3) and p.last.agents[0] == (2, 3)
    assert p.kinds() == [(0, "push_failed", "insufficient_force")]
    assert (p.events[0][0].force, p.events[0][0].weight) == (1, 2)


def test_heavy_block_needs_w_agents_on_the_same_face(env):
    sc = world([(3, 3, 2)], [(2, 3), (3, 5)])
    split = play(env, sc, [R, U])  # two agents, two different faces: force 1 on each
    assert split.last.blocks[0].position == (3, 3)
    assert [(r.direction, r.force, r.outcome) for r in split.last.pushes] == [
        (U, 1, PushOutcome.INSUFFICIENT_FORCE),
        (R, 1, PushOutcome.INSUFFICIENT_FORCE),
    ]
    same = play(env, world([(3, 3, 2)], [(2, 3), (2, 4)]), [R, R])
    assert same.last.blocks[0].position == (4, 3) and same.last.agents == ((3, 3), (3, 4))
    assert same.kinds() == [(0, "push_ok", None), (1, "push_ok", None)]


def test_aligned_agent_with_another_action_adds_no_force(env):
    p = play(env, world([(3, 3, 2)], [(2, 3), (2, 4)]), [R, S])
    (rec,) = p.last.pushes
    assert (rec.force, rec.aligned, rec.outcome) == (1, 2, PushOutcome.INSUFFICIENT_FORCE)


def test_block_pushed_into_another_block_fails_no_chain(env):
    p = play(env, world([(3, 3, 1), (4, 3, 1)], [(2, 3), (0, 0)]), [R, S])
    assert [b.position for b in p.last.blocks] == [(3, 3), (4, 3)]
    assert p.kinds() == [(0, "push_failed", "blocked_destination")]


def test_push_blocked_by_agent_even_one_leaving_this_step(env):
    # Pushes resolve before moves: agent 1 is still in the destination when the push is tried.
    p = play(env, world([(3, 3, 1)], [(2, 3), (4, 3)]), [R, R])
    assert p.last.blocks[0].position == (3, 3)
    assert p.kinds() == [(0, "push_failed", "blocked_destination"), (1, "move", None)]


def test_push_blocked_by_wall(env):
    p = play(env, world([(3, 0, 1), (5, 6, 2)], [(3, 1), (5, 5), (6, 5)]), [U, D, D])
    assert [b.position for b in p.last.blocks] == [(3, 0), (5, 6)]
    assert p.kinds() == [(0, "push_failed", "blocked_destination")] + [
        (i, "push_failed", "blocked_destination") for i in (1, 2)
    ]


def test_delivery_at_goal_column_scores_weight_and_removes_block(env):
    sc = world([(5, 3, 2), (1, 6, 1)], [(4, 3), (4, 4), (0, 0)])
    p = play(env, sc, [R, R, S], [R, R, S], [R, S, S])
    first = p.views[1]
    assert first.blocks[0].delivered and first.score == 2 and first.agents[:2] == ((5, 3), (5, 4))
    assert p.rewards[0] == 2 - 0.25
    assert p.kinds(0) == [(0, "push_ok", None), (1, "push_ok", None), (0, "deliver", None), (1, "deliver", None)]
    assert p.kinds(1) == [(0, "move", None), (1, "move", None)]  # the delivered block's cells are free
    assert p.last.agents[0] == (6, 3) and not p.last.done  # the goal column is closed to agents
    assert p.kinds(2) == [(0, "blocked_move", "goal")]


def test_agents_never_enter_the_goal_column(env):
    """COOP²'s occupancy marks the goal column: agents neither walk into it nor start in it."""
    p = play(env, world([(3, 3, 1)], [(6, 0), (6, 7)]), [R, R], [U, D])
    assert p.views[1].agents == ((6, 0), (6, 7))
    assert p.kinds(0) == [(0, "blocked_move", "goal"), (1, "blocked_move", "goal")]
    assert p.kinds(1) == [(0, "blocked_move", "wall"), (1, "blocked_move", "wall")]  # the grid's edge stays a wall
    with pytest.raises(ScenarioError, match=r"agent 1 at \(7, 2\) stands in the goal column 7"):
        world([(3, 3, 1)], [(0, 0), (7, 2)])


def test_failed_pusher_walks_into_the_cells_a_delivered_block_left(env):
    """COOP²: only successful pushers skip the move phase. Agent 2 pushes the 2x2 block up alone
    (too weak); the right push then delivers it, and agent 2 walks up into the cell it left."""
    p = play(env, world([(5, 3, 2)], [(4, 3), (4, 4), (6, 5)]), [R, R, U])
    assert p.last.blocks[0].delivered and p.last.agents == ((5, 3), (5, 4), (6, 4))
    assert p.kinds() == [
        (2, "push_failed", "insufficient_force"),
        (0, "push_ok", None),
        (1, "push_ok", None),
        (0, "deliver", None),
        (1, "deliver", None),
        (2, "move", None),
    ]
    assert p.last.agent_push == (0, 0, 0)


def test_episode_ends_when_all_blocks_delivered_and_never_auto_resets(env):
    sc = world([(5, 3, 1)], [(4, 3), (0, 0)])
    p = play(env, sc, [R, S], [R, S], [L, D], [L, D])
    assert [v.done for v in p.views] == [False, False, True, True, True]
    assert p.last.score == 1 and p.last.step == 2 and p.last.agents == ((6, 3), (0, 0))
    assert p.rewards == [-0.25, 0.75, 0.0, 0.0] and p.events[2:] == [[], []]
    assert all(np.array_equal(a, b) for a, b in zip(p.states[2], p.states[4]))


def test_episode_ends_at_horizon(env):
    p = play(env, world([(3, 3, 1)], [(0, 0), (0, 1)]), *[[S, S]] * (ARENA.horizon + 2))
    done = [v.done for v in p.views]
    assert done.index(True) == ARENA.horizon and all(done[ARENA.horizon :])
    assert p.last.step == ARENA.horizon and sum(p.rewards) == -0.25 * ARENA.horizon


def test_two_agents_targeting_one_cell_lower_index_wins(env):
    p = play(env, world([(5, 5, 1)], [(1, 2), (3, 2)]), [R, L])
    assert p.last.agents == ((2, 2), (3, 2))
    assert p.kinds() == [(0, "move", None), (1, "blocked_move", "agent")]


def test_swap_attempt_fails_for_both(env):
    p = play(env, world([(5, 5, 1)], [(1, 2), (2, 2)]), [R, L])
    assert p.last.agents == ((1, 2), (2, 2))
    assert p.kinds() == [(0, "blocked_move", "agent"), (1, "blocked_move", "agent")]


def test_following_chain_depends_on_index_order(env):
    behind_first = play(env, world([(5, 5, 1)], [(1, 2), (2, 2)]), [R, R])
    assert behind_first.last.agents == ((1, 2), (3, 2))
    leader_first = play(env, world([(5, 5, 1)], [(2, 2), (1, 2)]), [R, R])
    assert leader_first.last.agents == ((3, 2), (2, 2))


def test_agent_cannot_walk_into_a_block_that_arrived_this_step(env):
    # Up pushes resolve before right pushes: agent 1 is not on a face when the up pass runs,
    # then the block slides in front of it and its move is blocked.
    p = play(env, world([(3, 3, 1)], [(2, 3), (4, 4)]), [R, U])
    assert p.last.blocks[0].position == (4, 3) and p.last.agents == ((3, 3), (4, 4))
    assert p.kinds() == [(0, "push_ok", None), (1, "blocked_move", "block")]


def test_failed_pusher_stays_even_if_the_block_leaves(env):
    p = play(env, world([(3, 3, 1), (3, 2, 1)], [(3, 4), (2, 3)]), [U, R])
    assert [b.position for b in p.last.blocks] == [(4, 3), (3, 2)]
    assert p.last.agents == ((3, 4), (3, 3))
    assert p.kinds() == [(0, "push_failed", "blocked_destination"), (1, "push_ok", None)]
    assert p.last.agent_push == (0, 0)


def test_directions_resolve_in_order_up_before_right(env):
    # Block 0 goes up into (3, 2) first, so block 1's push right into (3, 2) is blocked.
    p = play(env, world([(3, 3, 1), (2, 2, 1)], [(3, 4), (1, 2)]), [U, R])
    assert [b.position for b in p.last.blocks] == [(3, 2), (2, 2)]
    assert p.kinds() == [(0, "push_ok", None), (1, "push_failed", "blocked_destination")]


def test_moving_into_wall_is_blocked(env):
    p = play(env, world([(3, 3, 1)], [(0, 0), (6, 7)]), [L, D])
    assert p.kinds() == [(0, "blocked_move", "wall"), (1, "blocked_move", "wall")]


def test_event_records_are_json_ready(env):
    p = play(env, world([(3, 3, 1)], [(2, 3), (0, 0)]), [R, D])
    records = [e.to_record() for e in p.events[0]]
    assert records[0]["kind"] == "push_ok" and records[0]["block"] == 0 and records[0]["target"] == [3, 3]
    assert records[1] == {
        "step": 0,
        "agent": 1,
        "kind": "move",
        "position": [0, 0],
        "direction": "down",
        "target": [0, 1],
        "block": None,
        "weight": None,
        "force": None,
        "reason": None,
    }
    assert p.last.to_record()["pushes"][0]["face"] == "left"
    assert all(e.kind in CubeEventKind for e in p.events[0])


def test_batched_reset_and_step_shapes(env):
    keys = jax.random.split(jax.random.PRNGKey(0), 5)
    states = env.reset_batch(keys)
    assert states.agent_pos.shape == (5, CAP_AGENTS, 2) and states.push_outcome.shape == (5, 4, CAP_BLOCKS)
    actions = jnp.full((5, CAP_AGENTS), R, jnp.int32)
    tr = env.step_batch(keys, states, actions)
    assert tr.reward.shape == (5,) and tr.shaped_reward.shape == (5, CAP_AGENTS) and tr.done.shape == (5,)
    assert tr.state.block_pos.shape == (5, CAP_BLOCKS, 2) and tr.state.step.tolist() == [1] * 5
    assert env.jit_reset(keys[0]).agent_active.tolist() == [True, True, False, False]
