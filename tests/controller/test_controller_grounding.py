"""The BFS controller: nearest target, detours around the teammate, turn-then-interact, waiting
at a cooking pot, the random unblocking move, determinism."""

from __future__ import annotations

import pytest

from envs import Action, Direction, EventKind
from proagent.domains.overcooked.controller import Controller
from proagent.domains.overcooked.navigation import best_route
from proagent.domains.overcooked.skills import Skill, SkillBook

# engine item codes (bitfields): one onion, an empty dish, a dish of three-onion soup
ONION, DISH, SOUP = 1 << 2, 1, 1 | 2 | (3 << 2)
UP, DOWN = Direction.UP, Direction.DOWN


def test_routes_to_the_nearest_target(make_env, build, run_skill):
    env = make_env("cramped_room")
    # onion dispensers at (0,1) and (4,1); from (3,2) the right one is 1 move + 1 turn away
    state = build(env, [(3, 2), (1, 2)], [DOWN, UP])
    run = run_skill(env, state, Skill("pickup", "onion"), steps=10)
    assert run.actions == [Action.UP, Action.RIGHT, Action.INTERACT]
    assert [(e.kind, e.position) for e in run.events] == [(EventKind.PICKUP_INGREDIENT, (4, 1))]


def test_best_route_prefers_the_closer_of_two_targets(make_env):
    kitchen = make_env("counter_circuit").kitchen_map
    route = best_route(kitchen, (6, 1), UP, ((3, 0), (4, 0)))
    assert route is not None and (route.target, route.stand, route.length) == ((4, 0), (4, 1), 2)


def test_routes_around_a_teammate_blocking_the_short_path(make_env, build, run_skill):
    env = make_env("coordination_ring")
    # serving at (2,4), stood at from (2,3): short way down the right side is blocked by the teammate
    state = build(env, [(3, 1), (3, 2)], [UP, UP], held=[SOUP, 0])
    run = run_skill(env, state, Skill("deliver_soup"), steps=12)
    path = [k.players[0].position for k in run.kitchens]
    assert (3, 2) not in path
    assert path[:6] == [(3, 1), (2, 1), (1, 1), (1, 2), (1, 3), (2, 3)]
    assert [e.kind for e in run.events] == [EventKind.DELIVER]


def test_turns_to_face_the_target_then_interacts(make_env, build, run_skill):
    env = make_env("cramped_room")
    state = build(env, [(2, 1), (3, 2)], [DOWN, UP], held=[ONION, 0])  # at the pot, back to it
    run = run_skill(env, state, Skill("put_onion_in_pot"), steps=5)
    assert run.actions == [Action.UP, Action.INTERACT]
    assert run.kitchens[1].players[0].position == (2, 1)  # the UP was a turn, not a move
    assert run.kitchens[-1].pot_at[(2, 0)].ingredients == (0,)


def test_waits_at_a_cooking_pot_then_fills_the_dish(make_env, build, run_skill):
    env = make_env("cramped_room")
    cooking = {(2, 0): (3 << 2, 5)}  # three onions, 5 ticks to go
    state = build(env, [(2, 1), (3, 2)], [UP, UP], held=[DISH, 0], pots=cooking)
    run = run_skill(env, state, Skill("fill_dish_with_soup"), steps=12)
    assert run.actions == [Action.STAY] * 5 + [Action.INTERACT]
    assert run.kitchens[-1].players[0].held is not None and run.kitchens[-1].players[0].held.kind == "soup"


@pytest.mark.parametrize("patience", [2, 3, 5])
def test_random_unblocking_move_after_stuck_patience_failed_moves(make_env, build, patience):
    env = make_env("cramped_room")
    # Fed the same kitchen, every planned UP looks like a move that failed (still at (1,2), facing up).
    kitchen = env.symbolic(build(env, [(1, 2), (3, 1)], [UP, UP]))
    book = SkillBook.for_kitchen(kitchen)
    unblocking = set()
    for seed in range(10):
        controller = Controller(book, 0, seed, stuck_patience=patience)
        actions = [controller.act(kitchen, Skill("pickup", "onion")) for _ in range(patience + 1)]
        assert actions[:patience] == [Action.UP] * patience
        unblocking.add(actions[patience])
    assert unblocking == {Action.UP, Action.RIGHT}  # the free cells around (1,2), drawn at random


def test_controller_is_deterministic_given_the_seed(make_env, build):
    env = make_env("cramped_room")
    kitchen = env.symbolic(build(env, [(1, 2), (3, 1)], [UP, UP]))
    book = SkillBook.for_kitchen(kitchen)

    def actions(seed: int) -> list[Action]:
        controller = Controller(book, 0, seed, stuck_patience=1)
        return [controller.act(kitchen, Skill("pickup", "onion")) for _ in range(40)]

    assert actions(7) == actions(7)
    assert len({tuple(actions(seed)) for seed in range(5)}) > 1


def test_wait_skill_stays(make_env, build):
    env = make_env("cramped_room")
    kitchen = env.symbolic(build(env, [(1, 2), (3, 1)], [UP, UP]))
    controller = Controller(SkillBook.for_kitchen(kitchen), 0, 0)
    assert controller.act(kitchen, Skill("wait", 3)) == Action.STAY
