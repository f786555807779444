"""MA-Crafter's world generator: noise terrain like Crafter's, then a guarantee for the target.

Run once when a scenario is built (NumPy, deterministic from the seed), never inside jit. The
terrain follows Crafter's recipe in spirit -- a grassy start area, lakes with sandy shores, tree
groves on the grassland, mountains of stone with caves, tunnels, coal, iron, diamonds and lava,
a few cows -- on smaller maps. Noise alone cannot promise a team anything, so `generate` then
checks what the target needs (trees, stone, coal, iron, diamond, water, a cow) among the cells
the team can reach from its start within ``reach`` steps, and stamps what is missing: a resource
cell with its 8 surrounding cells cleared to walkable ground, so that a quorum of agents can
stand beside it (a quorum of 3 with collect distance 1 needs 3 open sides). The cleared ring
keeps every reachable cell reachable, and a stamp's 3x3 block never holds a needed cell (stone
aside, which is stamped last), so stamps do not undo each other.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from envs.macrafter.rules import WALKABLE, Material

Grid = np.ndarray  # (H, W) int8 of Material values
Pos = tuple[int, int]

_WALK = np.zeros(len(Material), bool)
_WALK[[int(m) for m in WALKABLE]] = True

# What each target needs near the start: cell counts per material (each resource cell also needs
# enough open sides for its quorum). Trees regrow nothing but are never used up, so a few do.
NEEDS: dict[str, dict[Material, int]] = {
    "tree": {Material.TREE: 3, Material.WATER: 1, Material.COW: 1},
    "stone": {Material.TREE: 3, Material.STONE: 4, Material.WATER: 1, Material.COW: 1},
    "coal": {Material.TREE: 3, Material.STONE: 4, Material.COAL: 2, Material.WATER: 1, Material.COW: 1},
    "iron": {
        Material.TREE: 3,
        Material.STONE: 6,
        Material.COAL: 2,
        Material.IRON: 2,
        Material.WATER: 1,
        Material.COW: 1,
    },
    "diamond": {
        Material.TREE: 4,
        Material.STONE: 8,
        Material.COAL: 3,
        Material.IRON: 3,
        Material.DIAMOND: 2,
        Material.WATER: 1,
        Material.COW: 1,
    },
}


_PASSES = 8


@dataclass(frozen=True)
class World:
    grid: Grid
    starts: tuple[Pos, ...]
    stamped: int  # how many resource cells the guarantee had to add


def _noise(rng: np.random.Generator, h: int, w: int, cells: float, octaves: dict[float, float]) -> np.ndarray:
    """Smooth value noise in about [-1, 1]: random lattices of ``cells * scale`` spacing, bilinearly
    upsampled, summed with the octaves' weights."""
    total = np.zeros((h, w))
    weight = 0.0
    for scale, amp in octaves.items():
        step = max(1.0, cells * scale)
        gh, gw = int(np.ceil(h / step)) + 2, int(np.ceil(w / step)) + 2
        lattice = rng.uniform(-1, 1, (gh, gw))
        ys, xs = np.arange(h) / step, np.arange(w) / step
        y0, x0 = ys.astype(int), xs.astype(int)
        fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
        fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)  # smoothstep
        a, b = lattice[np.ix_(y0, x0)], lattice[np.ix_(y0, x0 + 1)]
        c, d = lattice[np.ix_(y0 + 1, x0)], lattice[np.ix_(y0 + 1, x0 + 1)]
        total += amp * ((a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy)
        weight += amp
    return total / weight


def _terrain(rng: np.random.Generator, h: int, w: int, centre: Pos) -> Grid:
    """Crafter-like biomes: start area grass, then water/sand, mountains (stone, caves, ores,
    lava) and grassland with trees."""
    yy, xx = np.mgrid[0:h, 0:w]
    start = 3.0 - np.hypot(xx - centre[0], yy - centre[1]) + 1.5 * _noise(rng, h, w, 3, {1: 1})
    start = 1 / (1 + np.exp(-start))
    water = _noise(rng, h, w, 6, {1: 1, 0.4: 0.2}) + 0.1 - 2 * start
    mountain = _noise(rng, h, w, 5, {1: 1, 0.4: 0.3}) - 3 * start - 0.2 * water
    cave, tunnel_h, tunnel_v = (_noise(rng, h, w, s, {1: 1}) for s in (3, 4, 4))
    ore, lava, grove = (_noise(rng, h, w, s, {1: 1}) for s in (3, 3, 3))
    u = rng.uniform(0, 1, (h, w))
    grid = np.full((h, w), int(Material.GRASS), np.int8)
    hill = mountain > 0.1
    rock = np.full((h, w), int(Material.STONE), np.int8)
    rock[(ore > 0.0) & (u > 0.85)] = Material.COAL
    rock[(ore > 0.3) & (u > 0.93) & (u <= 0.965)] = Material.IRON
    rock[(mountain > 0.2) & (u > 0.985)] = Material.DIAMOND
    rock[(mountain > 0.35) & (lava > 0.35)] = Material.LAVA
    rock[((cave > 0.2) & (mountain > 0.3)) | (tunnel_h > 0.55) | (tunnel_v > 0.55)] = Material.PATH
    grid[hill] = rock[hill]
    wet = ~hill & (water > 0.3)
    shore = ~hill & ~wet & (water > 0.2)
    grid[wet] = Material.WATER
    grid[shore] = Material.SAND
    grass = grid == Material.GRASS
    grid[grass & (grove > 0.0) & (u > 0.75)] = Material.TREE
    grid[grass & (grove <= 0.0) & (u < 0.025)] = Material.COW
    grid[start > 0.5] = Material.GRASS
    return grid


def _start_cells(centre: Pos, n: int) -> tuple[Pos, ...]:
    """``n`` cells in a compact block around ``centre``: rows of 3 (x - 1, x, x + 1)."""
    cx, cy = centre
    return tuple((cx - 1 + i % 3, cy + i // 3) for i in range(n))


def reachable(grid: Grid, starts: tuple[Pos, ...]) -> np.ndarray:
    """BFS steps from the nearest start over walkable cells (-1: unreachable)."""
    h, w = grid.shape
    walk = _WALK[grid]
    dist = np.full((h, w), -1, np.int32)
    queue: deque[Pos] = deque()
    for x, y in starts:
        if walk[y, x] and dist[y, x] < 0:
            dist[y, x] = 0
            queue.append((x, y))
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
            if 0 <= nx < w and 0 <= ny < h and walk[ny, nx] and dist[ny, nx] < 0:
                dist[ny, nx] = dist[y, x] + 1
                queue.append((nx, ny))
    return dist


def open_sides(dist: np.ndarray, reach: int) -> np.ndarray:
    """Per cell: how many of its 4 neighbours are walkable and reachable within ``reach`` steps."""
    ok = (dist >= 0) & (dist <= reach)
    pad = np.pad(ok, 1)
    return pad[:-2, 1:-1].astype(int) + pad[2:, 1:-1] + pad[1:-1, :-2] + pad[1:-1, 2:]


def usable(grid: Grid, starts: tuple[Pos, ...], reach: int, sides: dict[Material, int]) -> dict[Material, int]:
    """How many cells of each material the team can act on: enough reachable open sides."""
    near = open_sides(reachable(grid, starts), reach)
    return {m: int(np.sum((grid == m) & (near >= need))) for m, need in sides.items()}


def _around(mask: np.ndarray) -> np.ndarray:
    """Cells (away from the border) with a True cell in their 3x3 block."""
    h, w = mask.shape
    out = np.zeros_like(mask)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            out[1 : h - 1, 1 : w - 1] |= mask[1 + dy : h - 1 + dy, 1 + dx : w - 1 + dx]
    return out


def _stamp(
    rng: np.random.Generator,
    grid: Grid,
    starts: tuple[Pos, ...],
    reach: int,
    material: Material,
    protected: tuple[Material, ...],
) -> bool:
    """Put one ``material`` cell whose 8 neighbours are walkable, touching the reachable area;
    prefer its own biome (ores in the hills, trees on grass, water by sand). The 3x3 block must
    hold no ``protected`` cell, so a stamp never takes a needed cell or one of its open sides."""
    dist = reachable(grid, starts)
    near = _around((dist >= 0) & (dist <= max(0, reach - 4)))  # the whole ring ends within reach
    loose = _around((dist >= 0) & (dist < reach))
    blocked = np.zeros_like(near)
    for x, y in starts:
        blocked[max(0, y - 1) : y + 2, max(0, x - 1) : x + 2] = True
    clash = _around(np.isin(grid, protected))
    free = ~blocked & ~clash & (np.isin(grid, WALKABLE) | np.isin(grid, (Material.STONE, Material.LAVA)))
    candidates = near & free if (near & free).any() else loose & free
    if not candidates.any():
        return False
    biome = {
        Material.TREE: (Material.GRASS,),
        Material.WATER: (Material.SAND, Material.GRASS),
        Material.COW: (Material.GRASS,),
    }.get(material, (Material.STONE, Material.PATH, Material.LAVA))
    preferred = candidates & np.isin(grid, biome)
    pool = preferred if preferred.any() else candidates
    ys, xs = np.nonzero(pool)
    pick = int(rng.integers(len(ys)))
    y, x = int(ys[pick]), int(xs[pick])
    ground = Material.GRASS if material in (Material.TREE, Material.COW) else Material.SAND
    ground = Material.PATH if material not in (Material.TREE, Material.COW, Material.WATER) else ground
    ring = grid[y - 1 : y + 2, x - 1 : x + 2]
    ring[~_WALK[ring]] = ground
    grid[y, x] = material
    return True


def generate(
    seed: int, width: int, height: int, num_agents: int, target: str, reach: int, quorums: dict[str, int]
) -> World:
    """The world of ``seed``: terrain, the agents' starts, then the target's guarantee.

    ``quorums`` maps resource names to their quorum (the open sides a cell needs, at most 4)."""
    if target not in NEEDS:
        raise ValueError(f"unknown target {target!r}; one of {sorted(NEEDS)}")
    rng = np.random.default_rng(seed)
    jitter = (max(1, width // 6), max(1, height // 6))
    centre = (
        width // 2 + int(rng.integers(-jitter[0], jitter[0] + 1)),
        height // 2 + int(rng.integers(-jitter[1], jitter[1] + 1)),
    )
    centre = (min(max(centre[0], 2), width - 3), min(max(centre[1], 1), height - 4))
    grid = _terrain(rng, height, width, centre)
    starts = _start_cells(centre, num_agents)
    for x, y in starts:
        grid[y, x] = Material.GRASS
    names = {Material.TREE: "tree", Material.STONE: "stone", Material.COAL: "coal"}
    names |= {Material.IRON: "iron", Material.DIAMOND: "diamond"}
    sides = {m: min(4, quorums.get(names.get(m, ""), 1)) for m in NEEDS[target]}
    stamped = 0
    # Stone last: other stamps may clear stone from their ring, stone stamps clear no needed cell.
    order = sorted(NEEDS[target].items(), key=lambda kv: kv[0] == Material.STONE)
    for _ in range(_PASSES):  # a stamp can lengthen a detour, so check everything again
        missing = False
        for material, count in order:
            needed = tuple(m for m in NEEDS[target] if m != Material.STONE or material == Material.STONE)
            for _ in range(3 * count + 3):
                if usable(grid, starts, reach, {material: sides[material]})[material] >= count:
                    break
                missing = True
                if not _stamp(rng, grid, starts, reach, material, needed):
                    raise ValueError(f"seed {seed}: no room near the start for {material.name.lower()}")
                stamped += 1
        if not missing:
            return World(grid=grid, starts=starts, stamped=stamped)
    raise ValueError(f"seed {seed}: the {target} guarantee did not settle in {_PASSES} passes")


__all__ = ["NEEDS", "World", "generate", "open_sides", "reachable", "usable"]
