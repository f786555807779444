"""The flat map reads and writes of the batched MA-Crafter step (`envs.macrafter.batched`): under
``vmap`` (nested too, and with the indices shared by the batch) they give exactly what plain
indexing gives env by env; the step's cows and seats read and write the map only through them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.batched import cells_add, cells_get, grid_at

RNG = np.random.default_rng(0)
MAPS = jnp.asarray(RNG.integers(0, 15, (2, 3, 48)), jnp.int8)  # (M, N, cells)
IDX = jnp.asarray(RNG.integers(0, 48, (2, 3, 5)), jnp.int32)  # repeated indices included
UPD = jnp.asarray(RNG.integers(-3, 4, (2, 3, 5)), jnp.int8)


def _plain_add(flat: jax.Array, idx: jax.Array, upd: jax.Array) -> jax.Array:
    return flat.at[idx].add(upd)


def test_cells_add_equals_a_scatter_add_env_by_env() -> None:
    want = jax.vmap(jax.vmap(_plain_add))(MAPS, IDX, UPD)
    assert np.array_equal(jax.jit(jax.vmap(jax.vmap(cells_add)))(MAPS, IDX, UPD), want)
    assert np.array_equal(jax.jit(jax.vmap(cells_add))(MAPS[0], IDX[0], UPD[0]), want[0])
    assert np.array_equal(cells_add(MAPS[0, 1], IDX[0, 1], UPD[0, 1]), want[0, 1])
    shared = jax.vmap(cells_add, in_axes=(0, None, None))(MAPS[1], IDX[1, 0], UPD[1, 0])
    assert np.array_equal(shared, jax.vmap(_plain_add, in_axes=(0, None, None))(MAPS[1], IDX[1, 0], UPD[1, 0]))


def test_cells_get_and_grid_at_equal_indexing_env_by_env() -> None:
    want = jax.vmap(jax.vmap(lambda f, i: f[i]))(MAPS, IDX)
    assert np.array_equal(jax.jit(jax.vmap(jax.vmap(cells_get)))(MAPS, IDX), want)
    assert np.array_equal(jax.vmap(cells_get, in_axes=(0, None))(MAPS[0], IDX[0, 0]), MAPS[0][:, IDX[0, 0]])
    grids = MAPS[0].reshape(3, 6, 8)  # (N, H, W)
    x = jnp.asarray([[-2, 0, 7, 9], [3, 3, 1, 8], [0, 0, 0, 0]])  # outside the map: clipped into it
    y = jnp.asarray([[0, 5, 6, -1], [2, 2, 4, 1], [5, 4, 3, 2]])
    got = jax.jit(jax.vmap(grid_at))(grids, x, y)
    for n in range(3):
        assert np.array_equal(got[n], np.asarray(grids[n])[np.clip(y[n], 0, 5), np.clip(x[n], 0, 7)])
