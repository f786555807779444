"""The JAX MA-Crafter step equals the plain NumPy restatement of EmCoop's step (`envs.macrafter.reference`)
on every step of random and biased play: positions, bags, vitals, counters, cells, cows, score and done.

Both sides take the same draws (`envs.macrafter.draws`), so the cows' walks and the chunk balancing
are compared too. The episodes run on EmCoop's generated 64x64 world (3 and 6 agents), on our fixed
maps, and on a small designed map with lava, water and cows where agents start with full bags so that
placing, crafting and sharing happen often.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from envs.macrafter import Action, CrafterState, Item, from_text, make
from envs.macrafter.draws import step_draws
from envs.macrafter.reference import reference_step
from envs.macrafter.rules import MAX_SHARE, NUM_GOODS, SHARE_BASE
from envs.macrafter.scenario import with_settings

WORLD_FIELDS = (
    "grid", "pos", "facing", "removed", "sleeping", "inventory", "vitals", "counters", "last_health",
    "achievements", "cow_pos", "cow_alive", "order", "next_order", "touched", "score", "score_units",
    "step", "done", "do_pos", "tgt_res", "share_to", "share_good", "share_qty",
)  # fmt: skip

SMALL = [
    "..T.~~...",
    ".0T..~...",
    "..1.#c#..",
    "C...#ci_.",
    "..2.L##..",
    ".C..__D..",
    "TT.......",
    ".........",
    "...C.....",
]


def _actions(rng: np.random.Generator, n: int) -> np.ndarray:
    """Moves and DO most often, the rest spread over every other action (shares included)."""
    roll = rng.random(n)
    moves = rng.integers(Action.LEFT, Action.DOWN + 1, n)
    other = rng.integers(Action.SLEEP, SHARE_BASE, n)
    share = SHARE_BASE + (rng.integers(0, n, n) * NUM_GOODS + rng.integers(0, NUM_GOODS, n)) * MAX_SHARE
    share = share + rng.integers(0, MAX_SHARE, n)
    return np.where(roll < 0.4, moves, np.where(roll < 0.7, Action.DO, np.where(roll < 0.8, share, other))).astype(
        np.int32
    )


def _stocked(state: CrafterState) -> CrafterState:
    """Every agent starts with materials and a wood pickaxe, so crafting and mining happen early."""
    inv = np.asarray(state.inventory).copy()
    for item, k in ((Item.WOOD, 6), (Item.STONE, 5), (Item.COAL, 2), (Item.IRON, 2), (Item.WOOD_PICKAXE, 1)):
        inv[np.asarray(state.active), item] = k
    return state._replace(inventory=inv)


def _compare(step: int, jax_state: CrafterState, ref_state: CrafterState) -> None:
    for name in WORLD_FIELDS:
        got, want = np.asarray(getattr(jax_state, name)), np.asarray(getattr(ref_state, name))
        assert np.array_equal(got, want), f"step {step}: field {name} differs\njax: {got}\nref: {want}"


def _play(env, state: CrafterState, steps: int, seed: int) -> int:
    """Play both sides from ``state``; return the steps played until done."""
    rng = np.random.default_rng(seed)
    advance = jax.jit(env.rules.advance)
    key = jax.random.PRNGKey(seed)
    chunks = env.settings.chunks[0] * env.settings.chunks[1]
    ref = jax.tree.map(np.asarray, state)
    js = jax.tree.map(np.asarray, state)
    for t in range(steps):
        key, k = jax.random.split(key)
        draws = step_draws(k, env.settings.cow_capacity, chunks)
        acts = _actions(rng, js.pos.shape[0])
        js = jax.tree.map(np.asarray, advance(js, acts, draws))
        ref, _ = reference_step(env.settings, ref, acts, jax.tree.map(np.asarray, draws))
        _compare(t + 1, js, ref)
        if bool(js.done):
            return t + 1
    return steps


@pytest.mark.parametrize("spec,seed", [("emcoop", 0), ("emcoop@6", 1), ("medium_3a", 2), ("hard_4a", 3)])
def test_random_play_matches_the_reference(spec: str, seed: int) -> None:
    env = make(spec)
    state = env.reset(jax.random.PRNGKey(seed))
    played = _play(env, _stocked(jax.tree.map(np.asarray, state)), 200, seed)
    assert played >= 10


def test_a_designed_map_with_lava_water_and_cows_matches_the_reference() -> None:
    sc = from_text("small", SMALL)
    env = make(sc)
    for seed in range(4):
        _play(env, _stocked(jax.tree.map(np.asarray, env.reset(jax.random.PRNGKey(0)))), 120, seed)


CROWDED = [
    "............",
    "C.C.CC.C.CCC",
    "CCCC..CCCC.C",
    "C..CCCC..CCC",
    "............",
    "..0...1...2.",
    "............",
    "CC.CCC.CC.CC",
    "C.CC.C.CCC.C",
    "CCC.CCCC.CCC",
    "C.CCC.CC.C.C",
    "............",
]


def _crowding(state: CrafterState, draws: object) -> tuple[int, int]:
    """(cows aiming at the same cell as another cow, cows aiming at a cell another cow stands on) this
    step, from the state before it and its draws: the cases where the order of the cows' updates decides."""
    live = np.asarray(state.cow_alive)
    pos = np.asarray(state.cow_pos)
    dirs = np.asarray([(-1, 0), (1, 0), (0, -1), (0, 1)])
    target = pos + dirs[np.asarray(draws.cow_dir) % 4]
    cells = {tuple(p) for p in pos[live].tolist()}
    aims = [tuple(t) for t in target[live].tolist()]
    same = sum(aims.count(a) > 1 for a in aims)
    onto = sum(a in cells for a in aims)
    return same, onto


def test_a_crowded_herd_walks_in_creation_order_as_the_reference() -> None:
    """Cows packed side by side, balancing on every step with every roll met: cows aiming at one cell,
    cows stepping into a cell another cow leaves the same step, spawns and despawns, all as the
    reference's one-by-one updates have them."""
    rules = {"balance_every": "1", "cow_spawn_probability": "1", "cow_despawn_probability": "1", "chunk_size": "4"}
    rules |= {"chunk_min_grass": "3"}
    env = make(with_settings(from_text("crowded", CROWDED), rules))
    advance = jax.jit(env.rules.advance)
    chunks = env.settings.chunks[0] * env.settings.chunks[1]
    rng = np.random.default_rng(7)
    js = ref = jax.tree.map(np.asarray, env.reset(jax.random.PRNGKey(0)))
    same = onto = left = 0
    born = int(js.next_order)
    for t, k in enumerate(jax.random.split(jax.random.PRNGKey(7), 60)):
        draws = jax.tree.map(np.asarray, step_draws(k, env.settings.cow_capacity, chunks))
        s, o = _crowding(js, draws)
        same, onto = same + s, onto + o
        acts = _actions(rng, js.pos.shape[0])
        before = js.cow_alive
        js = jax.tree.map(np.asarray, advance(js, acts, draws))
        ref, _ = reference_step(env.settings, ref, acts, draws)
        _compare(t + 1, js, ref)
        left += int(np.sum(before & ~js.cow_alive))
        if bool(js.done):
            break
    assert same > 0 and onto > 0 and left > 0 and int(js.next_order) > born
