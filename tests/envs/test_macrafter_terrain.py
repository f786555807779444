"""EmCoop's MA-Crafter world generator in JAX (`envs.macrafter.terrain`).

The noise is checked against values of the ``opensimplex`` package's 3-D OpenSimplex (computed
once with a fixed permutation), the worlds by the properties EmCoop's recipe implies, and one
64x64 grid by its hash so any change to the generator shows.
"""

from __future__ import annotations

import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.macrafter import terrain
from envs.macrafter.rules import Material

SIZE = 64
CENTRE = SIZE // 2
MOUNTAIN = [Material.STONE, Material.COAL, Material.IRON, Material.DIAMOND, Material.LAVA, Material.PATH]
# sha256 of generate(PRNGKey(0), 64, 64, ...).grid as int32 bytes, recorded on x86-64 CPU.
GOLDEN_SHA256 = "33f7ff74990de9cf7d4caf9567ec09621ce7956dfb1aa3dab9f1bb31d64a25b1"


@pytest.fixture(scope="module")
def keys() -> jax.Array:
    return jax.random.split(jax.random.PRNGKey(7), 32)


@pytest.fixture(scope="module")
def worlds(keys) -> tuple[terrain.Terrain, np.ndarray]:
    """32 worlds of 64x64 with 3 agents and room for every cow, from one vmapped call, with each
    world's start layer (EmCoop's sigmoid; > 0.5 is the start area) from the same program."""

    def world(key: jax.Array) -> tuple[terrain.Terrain, jax.Array]:
        perm = terrain.noise_table(terrain._keys(key)[0])
        return terrain.generate(key, SIZE, SIZE, 3, 64), terrain._climate(perm, SIZE, SIZE)[1]

    return jax.tree.map(np.asarray, jax.jit(jax.vmap(world))(keys))


def _neighbours(mask: np.ndarray, diagonal: bool = False) -> np.ndarray:
    """Cells with a 4-neighbour (8-neighbour if ``diagonal``) in ``mask``, batched on axis 0."""
    pad = np.pad(mask, ((0, 0), (1, 1), (1, 1)))
    height, width = mask.shape[1:]
    moves = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy or dx) and (diagonal or not (dy and dx))]
    return np.any([pad[:, 1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width] for dy, dx in moves], axis=0)


def test_noise_is_opensimplex():
    """Values of opensimplex 0.4.5 (``internals._noise3``, perm[i] = (167 i + 13) % 256) on the grid
    (x / 7, y / 7, 5). Its region lookup skips a few far vertices with tiny falloff (up to ~1e-4
    apart on lattice planes); float32 adds ~1e-6. Cells (y, x) = (2, 17), (11, 20), (17, 2) lie on
    lattice planes: when XLA computed the base cell once with a fused multiply-add and once
    without, hash and offsets came from neighbouring cells there and the value was off by 1."""
    perm = jnp.asarray((np.arange(256) * 167 + 13) % 256, jnp.int32)
    xs = jnp.broadcast_to(jnp.arange(24, dtype=jnp.float32)[None, :] / 7, (24, 24))
    ys = jnp.broadcast_to(jnp.arange(24, dtype=jnp.float32)[:, None] / 7, (24, 24))
    grid = np.asarray(jax.jit(lambda p: terrain.noise3(p, xs, ys, 5.0))(perm))
    expected = {
        (2, 17): 0.5280731853,
        (11, 20): -0.4176143776,
        (17, 2): -0.2105709843,
        (4, 19): 0.3507550376,
        (0, 5): -0.1362234038,
        (13, 9): 0.3479040399,
        (23, 23): 0.5023567524,
    }
    np.testing.assert_allclose([grid[c] for c in expected], list(expected.values()), atol=2e-4)
    assert np.abs(grid).max() < 1.0


def test_jit_vmap_and_determinism(worlds, keys):
    worlds, _ = worlds
    single = terrain.generate(keys[0], SIZE, SIZE, 3, 8)
    again = terrain.generate(keys[0], SIZE, SIZE, 3, 8)
    for a, b in zip(single, again, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(np.asarray(single.grid), worlds.grid[0])  # vmap == one by one
    # A smaller cow capacity keeps the first cows in EmCoop's order and drops the rest.
    np.testing.assert_array_equal(np.asarray(single.cow_pos), worlds.cow_pos[0, :8])
    assert single.grid.dtype == jnp.int32 and single.grid.shape == (SIZE, SIZE)
    assert single.cow_pos.shape == (8, 2) and single.agents.shape == (3, 2)
    flat = worlds.grid.reshape(len(worlds.grid), -1)
    assert len({row.tobytes() for row in flat}) == len(flat)  # different keys, different worlds


def test_golden_grid():
    grid = np.asarray(terrain.generate(jax.random.PRNGKey(0), SIZE, SIZE, 3, 8).grid, np.int32)
    assert hashlib.sha256(grid.tobytes()).hexdigest() == GOLDEN_SHA256


def test_start_area_and_material_shares(worlds):
    worlds, _ = worlds
    grid = worlds.grid
    assert (grid[:, CENTRE - 1 : CENTRE + 2, CENTRE - 1 : CENTRE + 2] == Material.GRASS).all()
    share = {m: float((grid == m).mean()) for m in Material if m <= Material.PATH}
    assert max(share, key=share.get) == Material.GRASS and share[Material.GRASS] > 0.3
    assert 0.05 < share[Material.STONE] < 0.3 and 0.05 < share[Material.WATER] < 0.4
    assert 0.02 < share[Material.TREE] < 0.1 and 0.02 < share[Material.SAND] < 0.1
    assert 0.003 < share[Material.COAL] < 0.03 and 0.001 < share[Material.IRON] < 0.01
    assert 0 < share[Material.DIAMOND] < 0.005 and 0 < share[Material.LAVA] < 0.03
    assert set(np.unique(grid)) <= {int(m) for m in Material if m <= Material.PATH}


def test_lava_is_deep_in_mountains(worlds):
    """Lava needs mountain > 0.3, far below the start area (start > 0.5): never next to it."""
    worlds, start = worlds
    start_area = start > 0.5
    assert (worlds.grid[start_area] == Material.GRASS).all()
    near_start = start_area | _neighbours(start_area, diagonal=True)
    lava = worlds.grid == Material.LAVA
    assert lava.any() and not (lava & near_start).any()


def test_tunnels_and_caves_cut_mountains(worlds):
    worlds, _ = worlds
    path = worlds.grid == Material.PATH
    assert path.any(axis=(1, 2)).all()  # every world has caves or tunnels
    in_mountain = path & _neighbours(np.isin(worlds.grid, MOUNTAIN))
    assert in_mountain.sum() > 0.95 * path.sum()


def _check_cows_and_agents(world: terrain.Terrain, width: int, height: int) -> None:
    grid, cows = world.grid, world.cow_pos[world.cow_alive]
    assert (world.cow_pos[~world.cow_alive] == -1).all()
    assert (grid[cows[:, 1], cows[:, 0]] == Material.GRASS).all()
    assert (np.hypot(cows[:, 0] - width // 2, cows[:, 1] - height // 2) > 3).all()
    assert len({tuple(c) for c in cows}) == len(cows)
    order = cows[:, 0] * height + cows[:, 1]
    assert (np.diff(order) > 0).all()  # EmCoop's x-major order
    agents = {tuple(a) for a in world.agents}
    assert len(agents) == len(world.agents)
    assert all(grid[y, x] == Material.GRASS for x, y in agents)
    assert not agents & {tuple(c) for c in cows}


def test_cows_and_spawns(worlds):
    worlds, _ = worlds
    counts = worlds.cow_alive.sum(1)
    assert counts.min() > 0 and counts.max() < 64  # about 1.5% of the far grass
    for i in range(len(worlds.grid)):
        _check_cows_and_agents(jax.tree.map(lambda a, i=i: a[i], worlds), SIZE, SIZE)
    # Spawns range over the whole map, not only the start area.
    assert np.hypot(*(worlds.agents - CENTRE).reshape(-1, 2).T).max() > 10


@pytest.mark.parametrize(("width", "height", "agents"), [(16, 16, 6), (24, 24, 3)])
def test_small_maps(width, height, agents):
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    batch = jax.tree.map(np.asarray, jax.vmap(lambda k: terrain.generate(k, width, height, agents, 8))(keys))
    assert batch.grid.shape == (8, height, width) and batch.agents.shape == (8, agents, 2)
    for i in range(8):
        _check_cows_and_agents(jax.tree.map(lambda a, i=i: a[i], batch), width, height)
