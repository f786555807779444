"""The cows younger than the seats walk after them: a designed step where the seats' own moves and
placements decide those cows' moves, stepped alone and in a batch whose envs split their queues
differently, against the NumPy reference.

The step queues both groups of cows once, before the seats act (`envs.macrafter.walk.plan_walk`),
and reads what the seats changed only at each younger cow's turn; this is where that could go
wrong: a cow walking onto a stone a seat just placed, into a cell a seat just entered, or kept out
of a cell a seat just left, or an env reading another env's stretch of the queue.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from test_macrafter_equivalence import WORLD_FIELDS

from envs.macrafter import Action, CrafterState, Item, Material, from_text, make
from envs.macrafter.draws import StepDraws
from envs.macrafter.reference import reference_step

# seat 0 places a stone below itself, where cow A aims; seat 1 steps right, where cow B aims;
# seat 2 steps up, leaving the cell cows D (older than the seats: blocked) and C (younger: moves) aim at
MAP = [
    ".........",
    ".0..1.C..",
    "..C......",
    ".........",
    "..C2C....",
    ".........",
    ".........",
    ".........",
    ".........",
]
A, B, C, D = (2, 2), (6, 1), (4, 4), (2, 4)
HEADING = {A: 0, B: 0, C: 0, D: 1}  # left, left, left, right
ACTS = np.asarray([Action.PLACE_STONE, Action.RIGHT, Action.UP], np.int32)


def _start(young: tuple[tuple[int, int], ...]) -> tuple[CrafterState, StepDraws]:
    """The map's state with the cows at ``young`` made younger than the seats (the lower the slot,
    the younger: not in slot order), seat 0 holding a stone; and draws that move every cow its way."""
    env = make(from_text("walk", MAP))
    s = jax.tree.map(np.asarray, env.reset(jax.random.PRNGKey(0)))
    n, c = s.pos.shape[0], s.cow_pos.shape[0]
    slot = {tuple(p): i for i, p in enumerate(s.cow_pos.tolist()) if s.cow_alive[i]}
    order, nxt = s.order.copy(), int(s.next_order)
    for k, cell in enumerate(sorted(young, key=lambda p: -slot[p])):
        order[n + slot[cell]] = nxt + k
    inventory = s.inventory.copy()
    inventory[0, Item.STONE] = 1
    state = s._replace(order=order, next_order=np.int32(nxt + len(young)), inventory=inventory)
    cow_dir = np.zeros(c, np.uint32)
    for cell, heading in HEADING.items():
        cow_dir[slot[cell]] = heading
    never = np.full(env.rules.num_chunks, 0xFFFFFFFF, np.uint32)  # no balancing roll is met
    return state, StepDraws(np.zeros(c, np.uint32), cow_dir, never, np.zeros_like(never))


def _reference(state: CrafterState, draws: StepDraws) -> CrafterState:
    env = make(from_text("walk", MAP))
    return reference_step(env.settings, state, ACTS, draws)[0]


def _cows_at(state: CrafterState) -> set[tuple[int, int]]:
    return {tuple(p) for p, alive in zip(np.asarray(state.cow_pos).tolist(), np.asarray(state.cow_alive)) if alive}


def test_younger_cows_see_the_seats_moves_and_placements_of_the_same_step() -> None:
    env = make(from_text("walk", MAP))
    state, draws = _start((A, B, C))
    got = jax.tree.map(np.asarray, jax.jit(env.rules.advance)(state, ACTS, draws))
    want = _reference(state, draws)
    for name in WORLD_FIELDS:
        assert np.array_equal(np.asarray(getattr(got, name)), np.asarray(getattr(want, name))), name
    # the designed outcome, so the comparison above is about these cases: only C moved
    assert _cows_at(got) == {A, B, (3, 4), D}
    assert got.grid[2, 1] == Material.STONE and tuple(got.pos[1]) == (5, 1) and tuple(got.pos[2]) == (3, 3)


def test_a_batch_whose_envs_queue_their_groups_differently_steps_env_by_env() -> None:
    """One env with three younger cows, one with none, one with only C younger: each env's younger
    stretch of the queue starts at its own place."""
    env = make(from_text("walk", MAP))
    worlds = [_start(young) for young in ((A, B, C), (), (C,))]
    states = jax.tree.map(lambda *xs: jnp.stack(xs), *(w[0] for w in worlds))
    draws = jax.tree.map(lambda *xs: jnp.stack(xs), *(w[1] for w in worlds))
    acts = jnp.asarray(np.stack([ACTS] * len(worlds)))
    got = jax.jit(jax.vmap(env.rules.advance))(states, acts, draws)
    for b, (state, dr) in enumerate(worlds):
        want = _reference(state, dr)
        for name in WORLD_FIELDS:
            assert np.array_equal(np.asarray(getattr(got, name)[b]), np.asarray(getattr(want, name))), (b, name)
    moved = [_cows_at(jax.tree.map(lambda x, b=b: np.asarray(x[b]), got)) for b in range(len(worlds))]
    assert moved[0] == {A, B, (3, 4), D}  # C younger than the seats: the cell was free at its turn
    assert (3, 4) not in moved[1] and (3, 4) in moved[2]
