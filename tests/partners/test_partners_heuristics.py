"""The pieces the scripted partners are made of: pass counters, reach, choices, making room, and
the guard against mirrored detours."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from envs import Action, Direction
from proagent.domains.overcooked.partners import SkillPartner, TeamView, greedy, onion_passer, supplier
from proagent.domains.overcooked.partners.scripted import (
    PLACE,
    Choice,
    ScopedSkillBook,
    make_room,
    middle_counters,
    work_cells,
)
from proagent.domains.overcooked.skills import Skill

ONION, DISH = 1 << 2, 1  # engine item codes
UP, DOWN = Direction.UP, Direction.DOWN


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("counter_circuit", {(2, 2), (3, 2), (4, 2), (5, 2)}),
        ("forced_coordination", {(2, 1), (2, 2), (2, 3)}),
        ("coordination_ring", {(2, 2)}),
        ("cramped_room", set()),
        ("asymmetric_advantages", set()),
    ],
)
def test_middle_counters(make_env, layout, expected):
    assert middle_counters(make_env(layout).kitchen_map) == expected


def view(env, state, seat: int) -> TeamView:
    kitchen = env.symbolic(state)
    return TeamView(kitchen, seat, ScopedSkillBook.for_kitchen(kitchen))


def first_choice(heuristic, team: TeamView) -> Choice:
    return next(c for c in heuristic(team) if team.feasible(c))


def test_forced_coordination_sides(make_env, build):
    env = make_env("forced_coordination")
    state = build(env, [(3, 1), (1, 2)], [UP, UP], held=[0, ONION])
    right, left = view(env, state, 0), view(env, state, 1)
    assert right.i_reach_a_pot and not left.i_reach_a_pot
    assert left.pass_counters == right.pass_counters == {(2, 1), (2, 2), (2, 3)}
    # the left greedy chef cannot reach the pot: it passes the onion over the divider
    assert first_choice(greedy, left) == Choice(PLACE, left.pass_counters)


def test_supplier_keeps_a_counter_free_for_the_dish(make_env, build):
    env = make_env("forced_coordination")
    state = build(env, [(3, 1), (1, 2)], [UP, UP])
    grid = state.grid.at[1, 2, 1].set(ONION).at[2, 2, 1].set(ONION)  # two onions on the divider
    pot = grid.at[0, 3, 1].set(3 << 2).at[0, 3, 2].set(10)  # a soup cooking
    cooking = state.replace(grid=pot)
    assert first_choice(supplier, view(env, cooking, 1)).skill == Skill("pickup", "dish")
    idle = state.replace(grid=grid)  # no soup: a third onion would fill the last free counter
    assert list(supplier(view(env, idle, 1))) == []


def test_onion_passer_fetches_only_from_dispensers(make_env, build):
    env = make_env("counter_circuit")
    state = build(env, [(3, 1), (3, 3)], [UP, UP])
    state = state.replace(grid=state.grid.at[2, 3, 1].set(ONION))  # an onion already on the island
    choice = first_choice(onion_passer, view(env, state, 1))
    assert choice.skill == Skill("pickup", "onion")
    assert choice.scope == {(3, 4), (4, 4)}


def test_idle_chef_steps_off_the_pot_access_cell(make_env, build):
    env = make_env("cramped_room")
    state = build(env, [(2, 1), (3, 2)], [UP, UP])
    team = view(env, state, 0)
    assert (2, 1) in work_cells(team.kitchen.map) and (2, 2) not in work_cells(team.kitchen.map)
    assert make_room(team) == Action.DOWN  # to (2,2), the one cell in cramped_room no station needs
    assert make_room(view(env, build(env, [(2, 2), (3, 2)], [UP, UP]), 0)) is None


def test_greedy_pair_does_not_livelock_around_the_island(make_env, build):
    """The Controller alone livelocks here (see tests/controller/test_controller_known_bugs.py);
    the partners' progress guard breaks the mirror within a few steps."""
    env = make_env("counter_circuit")
    state = build(env, [(3, 3), (3, 1)], [UP, DOWN], held=[ONION, 0])
    pair = [SkillPartner("greedy", greedy), SkillPartner("greedy", greedy)]  # no noise
    for seat, partner in enumerate(pair):
        partner.reset(seat, seat)
    for step in range(40):
        kitchen = env.symbolic(state)
        if kitchen.players[0].held is None:
            break
        joint = jnp.array([int(p.policy(kitchen, state)) for p in pair])
        state = env.jit_step(jax.random.PRNGKey(step), state, joint).state
    assert env.symbolic(state).players[0].held is None
    assert sum(len(p.ingredients) for p in env.symbolic(state).pots) == 1
