"""EmCoop's MA-Crafter world generator (COOP²'s ``worldgen.generate_world`` and ``env.reset``), in JAX.

Why a second generator: `envs.macrafter.worldgen` builds small NumPy maps for our scenarios and
stamps guarantees on them; this module reproduces the world EmCoop's agents actually see, so runs
on "EmCoop's map" face the same terrain recipe, and whole batches of worlds come from one jitted,
vmapped call.

The recipe, per cell (x, y) of a ``width`` x ``height`` area with centre (W//2, H//2):

* ``start = sigmoid(4 - dist(cell, centre) + 2 * n(x, y, z=8, size 3))`` -- the grassy start area;
* ``water = n(x, y, 3, {15: 1, 5: 0.15}, unnormalised) + 0.1 - 2 * start``;
* ``mountain = n(x, y, 0, {15: 1, 5: 0.3}) - 4 * start - 0.3 * water``;
* first match wins: start > 0.5 grass; mountain > 0.15: cave (n(x, y, 6, 7) > 0.15 and mountain >
  0.3) path, horizontal tunnel (n(2x, y/5, 7, 3) > 0.4) path, vertical tunnel (n(x/5, 2y, 7, 3) >
  0.4) path, coal (n(x, y, 1, 8) > 0, u > 0.85), iron (n(x, y, 2, 6) > 0.4, u > 0.75), diamond
  (mountain > 0.18, u > 0.994), lava (mountain > 0.3, n(x, y, 6, 5) > 0.35), else stone; sand
  (0.25 < water <= 0.35, n(x, y, 4, 9) > -0.2); water (water > 0.3); tree (n(x, y, 5, 7) > 0, u >
  0.8); else grass;
* a cow on each grass cell farther than 3 from the centre with u > 0.985 (x-major order);
* the agents on distinct grass cells without a cow, uniformly over the whole map.

``n(x, y, z, sizes)`` sums ``weight * noise3(x / size, y / size, z)`` over the sizes, divided by
the weights' sum unless unnormalised. ``u`` is one fresh uniform per cell and per use site.

The noise is OpenSimplex 3-D (Kurt Spencer's 2014 algorithm, as in the ``opensimplex`` package
EmCoop uses: same stretched lattice, 24 gradients, radius-sqrt(2) falloff and normalisation by 103),
written here as an explicit kernel sum over the 26 lattice vertices that can reach a point
(opensimplex's region lookup skips a few far vertices whose falloff is tiny: given the same
permutation, the two agree to about 1e-4). Its one seeded part, the 256-entry permutation, is drawn
from the JAX key instead of opensimplex's LCG shuffle, and EmCoop's ``world.random`` and
``np.random`` draws become ``jax.random`` draws. So a world here equals EmCoop's in distribution
(same recipe, same noise function up to its permutation), not cell for cell for a given seed.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.rules import Material

_STRETCH = -1.0 / 6.0  # (1 / sqrt(3 + 1) - 1) / 3: real -> stretched (cubic) lattice coordinates
_SQUISH = 1.0 / 3.0  # (sqrt(3 + 1) - 1) / 3: stretched -> real coordinates
_NORM = 103.0  # OpenSimplex's 3-D normalisation, which keeps values in about [-1, 1]


def _offsets() -> np.ndarray:
    """The lattice offsets (from a point's stretched floor) whose vertex can lie within sqrt(2).

    Real distance squared to offset o is |f - o|^2 + (sum(f - o))^2 for the fractional part f in
    the unit cube; minimising that exactly leaves the cube's 8 corners and the 18 face neighbours
    with 0 <= sum(o) <= 3 (the other 6 reach exactly 2, where the falloff is already zero).
    """
    grid = np.stack(np.meshgrid(*[np.arange(-1, 3)] * 3, indexing="ij"), -1).reshape(-1, 3)
    outside = ((grid < 0) | (grid > 1)).sum(1)
    total = grid.sum(1)
    return grid[(outside <= 1) & (total >= 0) & (total <= 3)].astype(np.int32)


_OFFSETS = _offsets()
_STEPS = np.diff(_OFFSETS, axis=0, prepend=np.zeros((1, 3), np.int32))  # vertex to vertex moves


def noise_table(key: jax.Array) -> jax.Array:
    """The noise's seed: a random permutation of 0..255 (int32), the role of opensimplex's seed."""
    return jax.random.permutation(key, 256).astype(jnp.int32)


def noise3(perm: jax.Array, x: jax.Array, y: jax.Array, z: jax.Array) -> jax.Array:
    """OpenSimplex 3-D noise at broadcast points (x, y, z), in about [-1, 1] (float32).

    Sums ``max(0, 2 - |d|^2)^4 * (g . d)`` over the 26 lattice vertices near each point, where d
    is the point minus the vertex in real space and g the vertex's hashed gradient, then divides by
    103. The vertices are a loop of elementwise terms: a (..., 26) tensor materialises large
    intermediates that made vmapped batches slow on CPU, and an unrolled loop compiles for minutes.

    The loop carries the current vertex itself (base cell + offset) and derives both its hash and
    d from it. XLA recomputes cheap elementwise values in every fusion that uses them, contracting
    a multiply-add to an FMA in some copies and not others; when the base cell was used in two
    places, a point on a lattice plane (x = 17/7, y = 2/7, z = 5) got its hash from one cell and
    its offsets from the next, and noise off by 1. A carried value exists once.
    """
    x, y, z = jnp.broadcast_arrays(*(jnp.asarray(c, jnp.float32) for c in (x, y, z)))
    stretch = (x + y + z) * _STRETCH
    base = tuple(jnp.floor(c + stretch).astype(jnp.int32) for c in (x, y, z))
    steps = jnp.asarray(_STEPS)

    def vertex(i: jax.Array, carry: tuple[jax.Array, ...]) -> tuple[jax.Array, ...]:
        total, vx, vy, vz = carry
        vx, vy, vz = vx + steps[i, 0], vy + steps[i, 1], vz + steps[i, 2]
        squish = (vx + vy + vz).astype(jnp.float32) * _SQUISH
        dx, dy, dz = x - (vx + squish), y - (vy + squish), z - (vz + squish)
        attn = jnp.maximum(2.0 - dx * dx - dy * dy - dz * dz, 0.0)
        attn = attn * attn
        h = perm[(perm[(perm[vx & 255] + vy) & 255] + vz) & 255]
        return total + attn * attn * _dot_gradient(h % 24, dx, dy, dz), vx, vy, vz

    total, *_ = jax.lax.fori_loop(0, len(_STEPS), vertex, (jnp.zeros_like(x), *base))
    return total / _NORM


def _dot_gradient(index: jax.Array, dx: jax.Array, dy: jax.Array, dz: jax.Array) -> jax.Array:
    """``_GRADIENTS[index] . d`` by arithmetic: a gathered (..., 3) gradient makes XLA's CPU
    fusion recompute the whole hash chain per component.

    Gradient ``index`` lies in octant ``index // 3`` (bit 0: x positive, bit 1: y negative, bit 2:
    z negative) with its long (11) axis ``index % 3``: 4 * signs + 7 * sign on that axis.
    """
    octant, axis = index // 3, index % 3
    px = jnp.where(octant & 1, dx, -dx)
    py = jnp.where(octant & 2, -dy, dy)
    pz = jnp.where(octant & 4, -dz, dz)
    long = jnp.where(axis == 0, px, jnp.where(axis == 1, py, pz))
    return 4.0 * (px + py + pz) + 7.0 * long


# EmCoop's noise fields, each ``_simplex(x * x_scale, y * y_scale, z, sizes, normalize)``:
# name -> (x_scale, y_scale, z, {size: weight}, normalize).
_FIELDS: dict[str, tuple[float, float, float, dict[float, float], bool]] = {
    "start": (1, 1, 8, {3: 1}, True),
    "water": (1, 1, 3, {15: 1, 5: 0.15}, False),
    "mountain": (1, 1, 0, {15: 1, 5: 0.3}, True),
    "cave": (1, 1, 6, {7: 1}, True),
    "h_tunnel": (2, 1 / 5, 7, {3: 1}, True),
    "v_tunnel": (1 / 5, 2, 7, {3: 1}, True),
    "coal": (1, 1, 1, {8: 1}, True),
    "iron": (1, 1, 2, {6: 1}, True),
    "lava": (1, 1, 6, {5: 1}, True),
    "sand": (1, 1, 4, {9: 1}, True),
    "tree": (1, 1, 5, {7: 1}, True),
}


def _noise_fields(perm: jax.Array, width: int, height: int) -> dict[str, jax.Array]:
    """Every field of `_FIELDS` on the (H, W) grid, from one stacked `noise3` call (one loop to
    compile, not 13): each octave is one slice of the stack, then weighted and summed per field."""
    xs = jnp.arange(width, dtype=jnp.float32)[None, :]
    ys = jnp.arange(height, dtype=jnp.float32)[:, None]
    octaves = [(name, size, weight) for name, (*_, sizes, _n) in _FIELDS.items() for size, weight in sizes.items()]
    px = jnp.stack([jnp.broadcast_to(xs * _FIELDS[n][0] / s, (height, width)) for n, s, _ in octaves])
    py = jnp.stack([jnp.broadcast_to(ys * _FIELDS[n][1] / s, (height, width)) for n, s, _ in octaves])
    pz = jnp.asarray([_FIELDS[n][2] for n, _, _ in octaves], jnp.float32)[:, None, None]
    noise = noise3(perm, px, py, pz)
    fields = {}
    for name, (*_, sizes, normalize) in _FIELDS.items():
        value = sum(w * noise[i] for i, (n, _, w) in enumerate(octaves) if n == name)
        fields[name] = value / sum(sizes.values()) if normalize else value
    return fields


class Terrain(NamedTuple):
    """One generated world. Cows live beside the grid (they wander), not in it."""

    grid: jax.Array  # (H, W) int32 Material values, grid[y, x]
    cow_pos: jax.Array  # (cow_capacity, 2) int32 (x, y), x-major order; (-1, -1) for empty slots
    cow_alive: jax.Array  # (cow_capacity,) bool
    agents: jax.Array  # (num_agents, 2) int32 spawn cells (x, y)


def _climate(perm: jax.Array, width: int, height: int) -> tuple[dict[str, jax.Array], jax.Array, jax.Array, jax.Array]:
    """The noise fields and EmCoop's start, water and mountain layers, each (H, W)."""
    n = _noise_fields(perm, width, height)
    xs = jnp.arange(width, dtype=jnp.float32)[None, :]
    ys = jnp.arange(height, dtype=jnp.float32)[:, None]
    dist = jnp.sqrt((xs - width // 2) ** 2 + (ys - height // 2) ** 2)
    start = jax.nn.sigmoid(4.0 - dist + 2.0 * n["start"])
    water = n["water"] + 0.1 - 2.0 * start
    mountain = n["mountain"] - 4.0 * start - 0.3 * water
    return n, start, water, mountain


def _materials(perm: jax.Array, uniforms: jax.Array, width: int, height: int) -> jax.Array:
    """EmCoop's ``_set_material`` decision tree over the whole grid: the first true branch wins."""
    n, start, water, mountain = _climate(perm, width, height)
    u_tree, u_coal, u_iron, u_diamond = uniforms[0], uniforms[1], uniforms[2], uniforms[3]
    deep = mountain > 0.15
    rules = [
        (start > 0.5, Material.GRASS),
        (deep & (mountain > 0.3) & (n["cave"] > 0.15), Material.PATH),
        (deep & (n["h_tunnel"] > 0.4), Material.PATH),
        (deep & (n["v_tunnel"] > 0.4), Material.PATH),
        (deep & (n["coal"] > 0) & (u_coal > 0.85), Material.COAL),
        (deep & (n["iron"] > 0.4) & (u_iron > 0.75), Material.IRON),
        (deep & (mountain > 0.18) & (u_diamond > 0.994), Material.DIAMOND),
        (deep & (mountain > 0.3) & (n["lava"] > 0.35), Material.LAVA),
        (deep, Material.STONE),
        ((water > 0.25) & (water <= 0.35) & (n["sand"] > -0.2), Material.SAND),
        (water > 0.3, Material.WATER),
        ((n["tree"] > 0) & (u_tree > 0.8), Material.TREE),
    ]
    return jnp.select([c for c, _ in rules], [jnp.int32(m) for _, m in rules], jnp.int32(Material.GRASS))


def _cows(grid: jax.Array, u_cow: jax.Array, cow_capacity: int) -> tuple[jax.Array, jax.Array]:
    """EmCoop's ``_set_object``: cows on far grass, listed in its x-outer, y-inner loop order."""
    height, width = grid.shape
    xs = jnp.arange(width)[None, :]
    ys = jnp.arange(height)[:, None]
    dist = jnp.sqrt(((xs - width // 2) ** 2 + (ys - height // 2) ** 2).astype(jnp.float32))
    cow = (grid == Material.GRASS) & (dist > 3) & (u_cow > 0.985)
    (flat,) = jnp.nonzero(cow.T.reshape(-1), size=cow_capacity, fill_value=-1)  # x-major
    alive = flat >= 0
    pos = jnp.stack([flat // height, flat % height], -1).astype(jnp.int32)
    return jnp.where(alive[:, None], pos, -1), alive


def _spawns(key: jax.Array, free: jax.Array, num_agents: int) -> jax.Array:
    """A uniform ordered sample of distinct free cells (EmCoop's ``choice(..., replace=False)``).

    The top-k of iid uniform scores over the free cells is a uniformly random ordered subset.
    """
    width = free.shape[1]
    scores = jnp.where(free, jax.random.uniform(key, free.shape), -1.0)
    _, flat = jax.lax.top_k(scores.reshape(-1), num_agents)
    return jnp.stack([flat % width, flat // width], -1).astype(jnp.int32)


def _keys(key: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The world's independent streams: noise permutation, per-cell uniforms, spawn draw."""
    k_noise, k_uniform, k_spawn = jax.random.split(key, 3)
    return k_noise, k_uniform, k_spawn


@functools.partial(jax.jit, static_argnames=("width", "height", "num_agents", "cow_capacity"))
def generate(key: jax.Array, width: int, height: int, num_agents: int, cow_capacity: int) -> Terrain:
    """One EmCoop world from ``key``: terrain, cows (capacity-truncated) and the agents' spawns.

    Pure and static-shaped, so it jits once per size and vmaps over keys. The centre's 3x3 block is
    always grass without cows (start > 0.5 there whatever the noise), so up to 9 agents always fit.
    """
    k_noise, k_uniform, k_spawn = _keys(key)
    perm = noise_table(k_noise)
    uniforms = jax.random.uniform(k_uniform, (5, height, width))
    grid = _materials(perm, uniforms, width, height)
    cow_pos, cow_alive = _cows(grid, uniforms[4], cow_capacity)
    has_cow = jnp.zeros((height, width), bool).at[cow_pos[:, 1], cow_pos[:, 0]].max(cow_alive, mode="drop")
    agents = _spawns(k_spawn, (grid == Material.GRASS) & ~has_cow, num_agents)
    return Terrain(grid=grid, cow_pos=cow_pos, cow_alive=cow_alive, agents=agents)
