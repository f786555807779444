"""Regressions of two controller/navigation bugs: the final turn was not charged consistently, and
mirrored detours around an island livelocked because only failed moves counted as stuck."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from envs import Action, Direction
from proagent.domains.overcooked.controller import Controller
from proagent.domains.overcooked.skills import Skill, SkillBook

ONION = 1 << 2  # engine item code of one onion




def test_goes_to_the_pot_next_to_it_rather_than_the_one_a_step_further(make_env, build, run_skill):
    env = make_env("counter_circuit")
    # pots at (3,0) and (4,0). After two LEFT moves the agent stands at (4,1) facing left: turning up
    # (cost 1) ties with walking to (3,1) (cost 1, turn not counted), and (3,0) comes first.
    state = build(env, [(6, 1), (1, 3)], [Direction.UP, Direction.UP], held=[ONION, 0])
    run = run_skill(env, state, Skill("put_onion_in_pot"), steps=10)
    assert run.actions == [Action.LEFT, Action.LEFT, Action.UP, Action.INTERACT]


def test_two_controllers_crossing_the_counter_circuit_island_do_not_livelock(make_env, build):
    env = make_env("counter_circuit")
    # Player 0 below the island holds an onion for the pots above; player 1 above goes for the
    # onions below. Each re-routes around the other every step and they swap back and forth.
    state = build(env, [(3, 3), (3, 1)], [Direction.UP, Direction.DOWN], held=[ONION, 0])
    kitchen = env.symbolic(state)
    book = SkillBook.for_kitchen(kitchen)
    delivered = []
    for seed in range(3):
        first, second = Controller(book, 0, seed), Controller(book, 1, seed + 100)
        s, k = state, kitchen
        for step in range(60):
            joint = (first.act(k, Skill("put_onion_in_pot")), second.act(k, Skill("pickup", "onion")))
            s = env.jit_step(jax.random.PRNGKey(step), s, jnp.array([int(a) for a in joint])).state
            k = env.symbolic(s)
            if k.players[0].held is None:
                break
        delivered.append(k.players[0].held is None)
    assert all(delivered)
