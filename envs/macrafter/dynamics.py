"""MA-Crafter's step machinery: the settings as lookup tables, cell helpers, shares and moves.

The env (`envs.macrafter.env`) chains the phases in this order, each reading what the phases
before it left: shares are resolved against the start of the step (and applied at its end),
then sleep/wake, moves (seat order, here), DO, PLACE_*, MAKE_* and the vitals
(`envs.macrafter.phases`), then the shares' transfer. Every number comes from `Tables`, built
once from the `CrafterSettings` and folded into the compiled step as constants.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.rules import (
    CRAFTS,
    MOVES,
    NUM_ITEMS,
    PLACEABLE_ON,
    SHARE_BASE,
    TOOL_TIERS,
    VECTORS,
    WALKABLE,
    Action,
    Item,
    Material,
)
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import RESOURCES, RESULT

NUM_MATERIALS = len(Material)
PLACES: tuple[Action, ...] = (Action.PLACE_STONE, Action.PLACE_TABLE, Action.PLACE_FURNACE, Action.PLACE_PLANT)
PLACED: dict[Action, Material] = {
    Action.PLACE_STONE: Material.STONE,
    Action.PLACE_TABLE: Material.TABLE,
    Action.PLACE_FURNACE: Material.FURNACE,
    Action.PLACE_PLANT: Material.PLANT,
}
GIVES: dict[str, Item] = {
    "tree": Item.WOOD,
    "stone": Item.STONE,
    "coal": Item.COAL,
    "iron": Item.IRON,
    "diamond": Item.DIAMOND,
}
RESOURCE_MATERIAL: dict[str, Material] = {
    "tree": Material.TREE,
    "stone": Material.STONE,
    "coal": Material.COAL,
    "iron": Material.IRON,
    "diamond": Material.DIAMOND,
}
CRAFT_ORDER: tuple[Action, ...] = tuple(CRAFTS)  # MAKE_* in CRAFTS order; att_target indexes it


class Tables(NamedTuple):
    """The settings as NumPy lookup tables (constants inside the compiled step)."""

    vec: np.ndarray  # (4, 2) (dx, dy) per facing index
    walkable: np.ndarray  # (M,) bool
    resource_of: np.ndarray  # (M,) int32 resource index or -1
    quorum: np.ndarray  # (R,) int32
    tier: np.ndarray  # (R,) int32 pickaxe tier needed
    value: np.ndarray  # (R,) float32 unit value
    gives: np.ndarray  # (R,) int32 Item
    recipe_needs: np.ndarray  # (C, NUM_ITEMS) int32
    recipe_quorum: np.ndarray  # (C,) int32
    recipe_item: np.ndarray  # (C,) int32 Item crafted
    recipe_table: np.ndarray  # (C,) bool
    recipe_furnace: np.ndarray  # (C,) bool
    place_material: np.ndarray  # (4,) int32
    place_on: np.ndarray  # (4, M) bool
    place_item: np.ndarray  # (4,) int32 Item paid
    place_cost: np.ndarray  # (4,) int32


def tables(cfg: CrafterSettings) -> Tables:
    resource_of = np.full(NUM_MATERIALS, -1, np.int32)
    for r, name in enumerate(RESOURCES):
        resource_of[RESOURCE_MATERIAL[name]] = r
    walkable = np.zeros(NUM_MATERIALS, bool)
    walkable[[int(m) for m in WALKABLE]] = True
    needs = np.zeros((len(CRAFT_ORDER), NUM_ITEMS), np.int32)
    for c, action in enumerate(CRAFT_ORDER):
        for item, qty in cfg.recipes[CRAFTS[action].name.lower()].needs.items():
            needs[c, Item[item.upper()]] = qty
    recipes = [cfg.recipes[CRAFTS[a].name.lower()] for a in CRAFT_ORDER]
    place_on = np.zeros((len(PLACES), NUM_MATERIALS), bool)
    for p, action in enumerate(PLACES):
        place_on[p, [int(m) for m in PLACEABLE_ON[action]]] = True
    return Tables(
        vec=np.asarray([VECTORS[m] for m in MOVES], np.int32),
        walkable=walkable,
        resource_of=resource_of,
        quorum=np.asarray([cfg.resources[r].quorum for r in RESOURCES], np.int32),
        tier=np.asarray([TOOL_TIERS[cfg.resources[r].tool] for r in RESOURCES], np.int32),
        value=np.asarray([cfg.unit_value(r) for r in RESOURCES], np.float32),
        gives=np.asarray([GIVES[r] for r in RESOURCES], np.int32),
        recipe_needs=needs,
        recipe_quorum=np.asarray([r.quorum for r in recipes], np.int32),
        recipe_item=np.asarray([CRAFTS[a] for a in CRAFT_ORDER], np.int32),
        recipe_table=np.asarray(["table" in r.stations for r in recipes], bool),
        recipe_furnace=np.asarray(["furnace" in r.stations for r in recipes], bool),
        place_material=np.asarray([PLACED[a] for a in PLACES], np.int32),
        place_on=place_on,
        place_item=np.asarray([Item.STONE, Item.WOOD, Item.STONE, Item.SAPLING], np.int32),
        place_cost=np.asarray([1, cfg.table_wood, cfg.furnace_stone, 1], np.int32),
    )


def material_at(grid: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(material, in bounds) of cells (x, y); out-of-bounds cells read as -1."""
    h, w = grid.shape
    inb = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    m = grid[jnp.clip(y, 0, h - 1), jnp.clip(x, 0, w - 1)]
    return jnp.where(inb, m, -1), inb


def set_cells(grid: jax.Array, x: jax.Array, y: jax.Array, where: jax.Array, value: jax.Array | int) -> jax.Array:
    """``grid`` with cells (x, y) set to ``value`` where ``where`` (others untouched, even when an
    untouched index repeats a touched one)."""
    h = grid.shape[0]
    return grid.at[jnp.where(where, y, h), x].set(value, mode="drop")


def tool_tier(inventory: jax.Array) -> jax.Array:
    """The best pickaxe each agent holds: 0 none, 1 wood, 2 stone, 3 iron."""
    return jnp.where(
        inventory[:, Item.IRON_PICKAXE] > 0,
        3,
        jnp.where(inventory[:, Item.STONE_PICKAXE] > 0, 2, jnp.where(inventory[:, Item.WOOD_PICKAXE] > 0, 1, 0)),
    )


def near_station(grid: jax.Array, pos: jax.Array, material: int, radius: int) -> tuple[jax.Array, jax.Array]:
    """(any ``material`` cell within Chebyshev ``radius`` of each agent, the first such cell in
    row-major offset order or (-1, -1))."""
    offsets = np.asarray([(dx, dy) for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)], np.int32)
    cx = pos[:, 0:1] + offsets[None, :, 0]
    cy = pos[:, 1:2] + offsets[None, :, 1]
    m, _ = material_at(grid, cx, cy)
    hit = m == material
    first = jnp.argmax(hit, axis=1)
    found = jnp.any(hit, axis=1)
    rows = jnp.arange(pos.shape[0])
    cell = jnp.stack([cx[rows, first], cy[rows, first]], axis=-1)
    return found, jnp.where(found[:, None], cell, -1)


class Shares(NamedTuple):
    ok: jax.Array  # (A,) bool
    result: jax.Array  # (A,) int32 RESULT code for sharers, 0 for others
    to: jax.Array  # (A,) int32 receiver seat (-1 when none)
    item: jax.Array  # (A,) int32


def resolve_shares(acts: jax.Array, pos: jax.Array, live: jax.Array, inventory: jax.Array, distance: int) -> Shares:
    """Shares against the step's start: the giver holds a unit, the receiver is another live seat
    within Manhattan ``distance``. Each agent gives at most one unit a step, so the transfer,
    applied at the end of the step, can never overdraw a bag."""
    na = acts.shape[0]
    sharing = live & (acts >= SHARE_BASE)
    code = jnp.maximum(acts - SHARE_BASE, 0)
    to, item = code // NUM_ITEMS, code % NUM_ITEMS
    seats = jnp.arange(na)
    safe_to = jnp.clip(to, 0, na - 1)
    receiver_ok = (to < na) & (to != seats) & live[safe_to]
    gap = jnp.abs(pos[:, 0] - pos[safe_to, 0]) + jnp.abs(pos[:, 1] - pos[safe_to, 1])
    holds = inventory[seats, item] > 0
    result = jnp.where(
        ~holds,
        RESULT["missing_items"],
        jnp.where(
            ~receiver_ok, RESULT["receiver_down"], jnp.where(gap > distance, RESULT["out_of_reach"], RESULT["ok"])
        ),
    )
    ok = sharing & (result == RESULT["ok"])
    return Shares(ok, jnp.where(sharing, result, 0), jnp.where(ok, to, -1), jnp.where(ok, item, 0))


def apply_shares(inventory: jax.Array, shares: Shares) -> jax.Array:
    give = jax.nn.one_hot(shares.item, NUM_ITEMS, dtype=jnp.int32) * shares.ok[:, None]
    to = jax.nn.one_hot(shares.to, inventory.shape[0], dtype=jnp.int32) * shares.ok[:, None]
    return inventory - give + to.T @ give


def move(
    t: Tables,
    grid: jax.Array,
    pos: jax.Array,
    facing: jax.Array,
    live: jax.Array,
    acts: jax.Array,
    blockers: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Moves turn the agent, then step onto a walkable cell no live agent holds, in seat order
    (earlier movers at their new cells, later ones at their old): (pos, facing, moved).
    ``blockers`` (K, 2) are further cells nobody may enter (live creatures; (-1, -1) for none)."""
    is_move = live & (acts >= Action.LEFT) & (acts <= Action.DOWN)
    facing = jnp.where(is_move, acts - Action.LEFT, facing)
    vec = jnp.asarray(t.vec)
    walk = jnp.asarray(t.walkable)
    vec_x, vec_y = vec[facing, 0], vec[facing, 1]

    def one(i: jax.Array, carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        x, y, moved = carry
        tx, ty = x[i] + vec_x[i], y[i] + vec_y[i]
        m, inb = material_at(grid, tx, ty)
        taken = jnp.any(live & (x == tx) & (y == ty))
        if blockers is not None:
            taken = taken | jnp.any((blockers[:, 0] == tx) & (blockers[:, 1] == ty))
        ok = is_move[i] & inb & walk[jnp.maximum(m, 0)] & ~taken
        return x.at[i].set(jnp.where(ok, tx, x[i])), y.at[i].set(jnp.where(ok, ty, y[i])), moved.at[i].set(ok)

    # A rolled loop: seat order matters, and it compiles far faster than an unrolled one.
    x, y, moved = jax.lax.fori_loop(0, acts.shape[0], one, (pos[:, 0], pos[:, 1], jnp.zeros_like(is_move)))
    return jnp.stack([x, y], axis=-1), facing, moved


def do_target(t: Tables, grid: jax.Array, pos: jax.Array, facing: jax.Array, reach: int):
    """The cell each agent's DO acts on: the first non-walkable cell along its facing line within
    ``reach`` (Manhattan along a line), else the faced cell. Returns (x, y, material or -1)."""
    vec = jnp.asarray(t.vec)[facing]
    walk = jnp.asarray(t.walkable)
    tx, ty = pos[:, 0] + vec[:, 0], pos[:, 1] + vec[:, 1]
    found = jnp.zeros(pos.shape[0], bool)
    for k in range(1, reach + 1):
        cx, cy = pos[:, 0] + k * vec[:, 0], pos[:, 1] + k * vec[:, 1]
        m, inb = material_at(grid, cx, cy)
        hit = ~found & inb & ~walk[jnp.maximum(m, 0)]
        tx, ty = jnp.where(hit, cx, tx), jnp.where(hit, cy, ty)
        found = found | hit
    m, _ = material_at(grid, tx, ty)
    return tx, ty, m


__all__ = [
    "CRAFT_ORDER",
    "GIVES",
    "PLACED",
    "PLACES",
    "RESOURCE_MATERIAL",
    "Shares",
    "Tables",
    "apply_shares",
    "do_target",
    "material_at",
    "move",
    "near_station",
    "resolve_shares",
    "set_cells",
    "tables",
    "tool_tier",
]
