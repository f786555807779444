"""The batched MA-Crafter step (``vmap`` of ``CrafterEnv.step``) equals the NumPy reference env by
env, on crowded herds balanced on every step: the paths a batch takes differently from one env
(the cows' queue as long as the batch's longest, the creation-order queue when a spawn left the
slots out of order in some env, balancing only when some env balances) give each env exactly its
own one-by-one result; and a pass that despawns and spawns gives a new cow only the slots freed by
chunks walked before its own (as the reference walks them). Also: the step's draws are ``jax.random``'s bits for its key (the chunks' only on balancing steps)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_macrafter_equivalence import CROWDED, WORLD_FIELDS, _actions

from envs.macrafter import CrafterState, from_text, make
from envs.macrafter.draws import step_draws
from envs.macrafter.reference import reference_step
from envs.macrafter.scenario import with_settings


@pytest.mark.parametrize("cows,chunks", [(64, 36), (8, 36), (512, 4), (1, 1)])
def test_step_draws_are_the_keys_random_bits(cows: int, chunks: int) -> None:
    keys = jax.random.split(jax.random.PRNGKey(cows), 6)

    def by_jax(key: jax.Array) -> tuple[jax.Array, ...]:
        k = jax.random.split(key, 4)
        sizes = (cows, cows, chunks, chunks)
        return tuple(jax.random.bits(k[i], (n,), jnp.uint32) for i, n in enumerate(sizes))

    batched = jax.jit(jax.vmap(lambda k: step_draws(k, cows, chunks)))(keys)
    for i, key in enumerate(keys):
        want = by_jax(key)
        assert all(np.array_equal(got, w) for got, w in zip(step_draws(key, cows, chunks), want, strict=True))
        assert all(np.array_equal(got[i], w) for got, w in zip(batched, want, strict=True))


@pytest.mark.parametrize("balancing", [(True, False, True), (False, False, False), (True, True, True)])
def test_the_chunk_draws_are_computed_only_where_the_step_balances(balancing: tuple[bool, ...]) -> None:
    """With ``balancing`` given, the cows' streams are the key's bits as always, the chunks' are the
    key's bits where the step balances and zeros elsewhere (nothing reads them there), in a batch too."""
    keys = jax.random.split(jax.random.PRNGKey(5), len(balancing))
    flags = jnp.asarray(balancing)
    batched = jax.jit(jax.vmap(lambda k, b: step_draws(k, 64, 36, b)))(keys, flags)
    for i, key in enumerate(keys):
        want = step_draws(key, 64, 36)
        alone = step_draws(key, 64, 36, flags[i])
        for got in (alone, jax.tree.map(lambda x, i=i: x[i], batched)):
            assert np.array_equal(got.cow_move, want.cow_move) and np.array_equal(got.cow_dir, want.cow_dir)
            for field in ("chunk_roll", "chunk_pick"):
                expected = getattr(want, field) if balancing[i] else np.zeros(36, np.uint32)
                assert np.array_equal(getattr(got, field), expected)


def _young_out_of_slot_order(state: CrafterState) -> CrafterState:
    """Every other cow made younger than the seats, the younger the lower its slot: the queue of
    the cows updated after the seats is then not in slot order (as after spawns into freed slots)."""
    order = np.asarray(state.order).copy()
    seats = state.pos.shape[0]
    slots = np.flatnonzero(np.asarray(state.cow_alive))[::2]
    start = int(state.next_order)
    order[seats + slots] = start + np.arange(len(slots))[::-1]
    return state._replace(order=order, next_order=np.int32(start + len(slots)))


def test_a_batch_of_crowded_herds_steps_as_the_reference_env_by_env() -> None:
    rules = {"balance_every": "1", "cow_spawn_probability": "1", "cow_despawn_probability": "1", "chunk_size": "4"}
    env = make(with_settings(from_text("crowded", CROWDED), rules | {"chunk_min_grass": "3"}))
    chunks = env.settings.chunks[0] * env.settings.chunks[1]
    start = jax.tree.map(np.asarray, env.reset(jax.random.PRNGKey(0)))
    worlds = [start, _young_out_of_slot_order(start), start, _young_out_of_slot_order(start)]
    batch = len(worlds)
    states = jax.tree.map(lambda *xs: jnp.stack(xs), *worlds)
    refs = list(worlds)
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(11)
    played = np.zeros(batch, int)
    for t, key in enumerate(jax.random.split(jax.random.PRNGKey(5), 40)):
        keys = jax.random.split(key, batch)
        acts = np.stack([_actions(rng, start.pos.shape[0]) for _ in range(batch)])
        states = step(keys, states, jnp.asarray(acts)).state
        for b in range(batch):
            if bool(refs[b].done):
                continue  # a done env stays frozen: compared below against its last reference state
            draws = jax.tree.map(np.asarray, step_draws(keys[b], env.settings.cow_capacity, chunks))
            refs[b], _ = reference_step(env.settings, refs[b], acts[b], draws)
            played[b] += 1
        for b in range(batch):
            for name in WORLD_FIELDS:
                got, want = np.asarray(getattr(states, name)[b]), np.asarray(getattr(refs[b], name))
                assert np.array_equal(got, want), f"step {t + 1}, env {b}: field {name} differs"
    assert played.min() > 5
    young = np.asarray(states.order)[:, start.pos.shape[0] :] > int(start.next_order)
    assert young[1].any() and young[3].any()  # the out-of-order herds kept young cows


def test_a_done_env_stays_as_it_was_in_a_batch_with_a_live_one() -> None:
    """A finished episode is held whole, its map included, while its batch mate plays on: its seats
    collect, place and walk nothing and its cows leave no mark."""
    env = make(from_text("crowded", CROWDED))
    start = jax.tree.map(np.asarray, env.reset(jax.random.PRNGKey(0)))
    inv = np.asarray(start.inventory).copy()
    inv[:, :] = 5  # every seat could place and craft
    start = start._replace(inventory=inv)
    done = start._replace(done=np.bool_(True))
    states = jax.tree.map(lambda *xs: jnp.stack(xs), done, start)
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(3)
    for key in jax.random.split(jax.random.PRNGKey(1), 12):
        acts = np.stack([_actions(rng, start.pos.shape[0]) for _ in range(2)])
        states = step(jax.random.split(key, 2), states, jnp.asarray(acts)).state
    for name, want in zip(CrafterState._fields, done, strict=True):
        assert np.array_equal(np.asarray(getattr(states, name)[0]), np.asarray(want)), name
    assert not np.array_equal(np.asarray(states.cow_pos[1]), start.cow_pos)  # the live one played
