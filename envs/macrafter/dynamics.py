"""One MA-Crafter step's phases as pure JAX functions over the agents' arrays.

The env (`envs.macrafter.env`) chains them in this order, each phase reading what the phases
before it left: shares are resolved against the start of the step (and applied at its end),
then sleep/wake, moves (seat order), DO (collect, drink, eat, sapling), PLACE_*, MAKE_*, the
shares' transfer, and last the vitals and the plants. Every number comes from `Tables`, built once
from the `CrafterSettings` and folded into the compiled step as constants.
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
    Vital,
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
    t: Tables, grid: jax.Array, pos: jax.Array, facing: jax.Array, live: jax.Array, acts: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Moves turn the agent, then step onto a walkable cell no live agent holds, in seat order
    (earlier movers at their new cells, later ones at their old): (pos, facing, moved)."""
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


class Acted(NamedTuple):
    """What the DO, PLACE_* and MAKE_* phases changed, and their records (state field names)."""

    grid: jax.Array
    plant_age: jax.Array
    inventory: jax.Array
    vitals: jax.Array
    gain: jax.Array  # () float32 team score gained
    shaped: jax.Array  # (A,) float32 unit value of what each collected
    result: jax.Array
    att_kind: jax.Array
    att_target: jax.Array
    att_cell: jax.Array
    att_capable: jax.Array
    att_member: jax.Array
    att_leader: jax.Array


def collect_and_do(
    t: Tables,
    cfg: CrafterSettings,
    key: jax.Array,
    grid: jax.Array,
    plant_age: jax.Array,
    pos: jax.Array,
    facing: jax.Array,
    live: jax.Array,
    acts: jax.Array,
    inventory: jax.Array,
    vitals: jax.Array,
) -> Acted:
    """DO: a resource cell is collected when at least its quorum of the agents acting on it hold
    the tool; each of those receives a unit, the team scores the unit value once, mined cells
    become path (trees stay). DO on water drinks, on a cow or a ripe plant eats (-> grass), on
    grass finds a sapling with ``sapling_probability``."""
    na = acts.shape[0]
    doing = live & (acts == Action.DO)
    tx, ty, m = do_target(t, grid, pos, facing, cfg.collect_distance)
    res = jnp.asarray(t.resource_of)[jnp.maximum(m, 0)]
    res = jnp.where(m >= 0, res, -1)
    collecting = doing & (res >= 0)
    r = jnp.maximum(res, 0)
    same = collecting[:, None] & collecting[None, :] & (tx[:, None] == tx[None, :]) & (ty[:, None] == ty[None, :])
    capable = tool_tier(inventory) >= jnp.asarray(t.tier)[r]
    quorum = jnp.asarray(t.quorum)[r]
    n_part = jnp.sum(same, axis=1)
    n_cap = jnp.sum(same & capable[None, :], axis=1)
    success = collecting & (n_cap >= quorum)
    gets = success & capable
    item = jnp.asarray(t.gives)[r]
    inventory = inventory + jax.nn.one_hot(item, NUM_ITEMS, dtype=jnp.int32) * gets[:, None]
    earlier = jnp.tril(jnp.ones((na, na), bool), k=-1)
    first = collecting & ~jnp.any(same & earlier, axis=1)
    value = jnp.asarray(t.value)[r]
    gain = jnp.sum(jnp.where(first & success, value, 0.0))
    grid = set_cells(grid, tx, ty, first & success & (res != RESOURCES.index("tree")), int(Material.PATH))
    failed = jnp.where(n_part < quorum, RESULT["too_few"], RESULT["no_tool"])
    result = jnp.where(collecting, jnp.where(gets, RESULT["ok"], failed), 0)

    drink = doing & (m == Material.WATER)
    cow = doing & (m == Material.COW)
    ripe = doing & (m == Material.RIPE_PLANT)
    on_grass = doing & (m == Material.GRASS)
    lucky = on_grass & (jax.random.uniform(key, (na,)) < cfg.sapling_probability)
    food = cow * cfg.cow_food + ripe * cfg.plant_food
    vitals = vitals.at[:, Vital.FOOD].add(food).at[:, Vital.DRINK].add(drink.astype(jnp.int32))
    vitals = jnp.minimum(vitals, cfg.vital_max)
    inventory = inventory.at[:, Item.SAPLING].add(lucky.astype(jnp.int32))
    grid = set_cells(grid, tx, ty, cow | ripe, int(Material.GRASS))
    other = jnp.where(
        drink,
        RESULT["drink"],
        jnp.where(
            cow,
            RESULT["eat_cow"],
            jnp.where(ripe, RESULT["eat_plant"], jnp.where(lucky, RESULT["sapling"], RESULT["nothing"])),
        ),
    )
    result = jnp.where(doing & ~collecting, other, result)
    cell = jnp.stack([tx, ty], axis=-1)
    return Acted(
        grid=grid,
        plant_age=plant_age,
        inventory=inventory,
        vitals=vitals,
        gain=gain.astype(jnp.float32),
        shaped=jnp.where(gets, value, 0.0).astype(jnp.float32),
        result=result.astype(jnp.int32),
        att_kind=jnp.where(collecting, 1, 0).astype(jnp.int32),
        att_target=jnp.where(collecting, r, 0).astype(jnp.int32),
        att_cell=jnp.where(collecting[:, None], cell, -1).astype(jnp.int32),
        att_capable=collecting & capable,
        att_member=collecting,
        att_leader=jnp.full((na,), -1, jnp.int32),
    )


def place(
    t: Tables, cfg: CrafterSettings, acted: Acted, pos: jax.Array, facing: jax.Array, live: jax.Array, acts: jax.Array
) -> Acted:
    """PLACE_*: on the faced cell if its material takes the object and no live agent stands there,
    paid from the placer's own bag; a furnace also needs a table within ``station_radius``. Two
    placers on one cell: the lower seat places, the other finds it occupied."""
    na = acts.shape[0]
    grid, inventory = acted.grid, acted.inventory
    p = jnp.clip(acts - Action.PLACE_STONE, 0, len(PLACES) - 1)
    placing = live & (acts >= Action.PLACE_STONE) & (acts <= Action.PLACE_PLANT)
    vec = jnp.asarray(t.vec)[facing]
    tx, ty = pos[:, 0] + vec[:, 0], pos[:, 1] + vec[:, 1]
    m, inb = material_at(grid, tx, ty)
    takes = inb & jnp.asarray(t.place_on)[p, jnp.maximum(m, 0)]
    nobody = ~jnp.any(live[None, :] & (pos[None, :, 0] == tx[:, None]) & (pos[None, :, 1] == ty[:, None]), axis=1)
    item, cost = jnp.asarray(t.place_item)[p], jnp.asarray(t.place_cost)[p]
    pays = inventory[jnp.arange(na), item] >= cost
    table, _ = near_station(grid, pos, int(Material.TABLE), cfg.station_radius)
    table_ok = (acts != Action.PLACE_FURNACE) | table
    fits = placing & pays & table_ok & takes & nobody
    same = fits[:, None] & fits[None, :] & (tx[:, None] == tx[None, :]) & (ty[:, None] == ty[None, :])
    beaten = jnp.any(same & jnp.tril(jnp.ones((na, na), bool), k=-1), axis=1)
    ok = fits & ~beaten
    code = jnp.where(
        ~pays,
        RESULT["missing_items"],
        jnp.where(~table_ok, RESULT["no_table"], jnp.where(ok, RESULT["ok"], RESULT["occupied"])),
    )
    grid = set_cells(grid, tx, ty, ok, jnp.asarray(t.place_material)[p])
    plant_age = set_cells(acted.plant_age, tx, ty, ok, 0)
    inventory = inventory - jax.nn.one_hot(item, NUM_ITEMS, dtype=jnp.int32) * (cost * ok)[:, None]
    return acted._replace(
        grid=grid,
        plant_age=plant_age,
        inventory=inventory,
        result=jnp.where(placing, code, acted.result).astype(jnp.int32),
    )


def craft(t: Tables, cfg: CrafterSettings, acted: Acted, pos: jax.Array, live: jax.Array, acts: jax.Array) -> Acted:
    """MAKE_*: the participants are the agents doing the same MAKE_* with every station it needs
    within ``station_radius``; with at least the recipe's quorum of them and a leader (the lowest
    participant seat holding every ingredient) the leader pays and every participant gets the item."""
    na, nc = acts.shape[0], len(CRAFT_ORDER)
    seats = jnp.arange(na)
    table, table_cell = near_station(acted.grid, pos, int(Material.TABLE), cfg.station_radius)
    furnace, furnace_cell = near_station(acted.grid, pos, int(Material.FURNACE), cfg.station_radius)
    # Every recipe at once, as (recipe, seat) arrays: an agent takes part in at most one.
    craft_of = jnp.asarray([int(a) for a in CRAFT_ORDER], jnp.int32)
    doing = live[None, :] & (acts[None, :] == craft_of[:, None])
    need_table, need_furnace = jnp.asarray(t.recipe_table), jnp.asarray(t.recipe_furnace)
    stations = (table[None, :] | ~need_table[:, None]) & (furnace[None, :] | ~need_furnace[:, None])
    member = doing & stations
    n = jnp.sum(member, axis=1)
    needs = jnp.asarray(t.recipe_needs)
    holds = jnp.all(acted.inventory[None, :, :] >= needs[:, None, :], axis=2)
    can_lead = member & holds
    leader = jnp.argmax(can_lead, axis=1)
    quorum = jnp.asarray(t.recipe_quorum)
    ok = (n >= quorum) & jnp.any(can_lead, axis=1)
    pays = ok[:, None] & (seats[None, :] == leader[:, None])
    gets = member & ok[:, None]
    items = jax.nn.one_hot(jnp.asarray(t.recipe_item), NUM_ITEMS, dtype=jnp.int32)
    inventory = acted.inventory - jnp.einsum("ca,ci->ai", pays.astype(jnp.int32), needs)
    inventory = inventory + jnp.einsum("ca,ci->ai", gets.astype(jnp.int32), items)
    code = jnp.where(
        ~member,
        RESULT["no_station"],
        jnp.where(
            n[:, None] < quorum[:, None],
            RESULT["too_few"],
            jnp.where(ok[:, None], RESULT["ok"], RESULT["missing_items"]),
        ),
    )
    station_cell = jnp.where(need_table[:, None, None], table_cell[None], furnace_cell[None])  # (C, A, 2)
    head = jnp.where(ok, leader, jnp.argmax(member, axis=1))
    cell = jnp.where(jnp.any(member, axis=1)[:, None], station_cell[jnp.arange(nc), head], -1)  # (C, 2)
    crafting = jnp.any(doing, axis=0)
    c = jnp.argmax(doing, axis=0)  # each seat's recipe
    mine = member[c, seats]
    return acted._replace(
        inventory=inventory,
        result=jnp.where(crafting, code[c, seats], acted.result).astype(jnp.int32),
        att_kind=jnp.where(crafting, 2, acted.att_kind).astype(jnp.int32),
        att_target=jnp.where(crafting, c, acted.att_target).astype(jnp.int32),
        att_cell=jnp.where(crafting[:, None], jnp.where(mine[:, None], cell[c], -1), acted.att_cell),
        att_capable=jnp.where(crafting, holds[c, seats], acted.att_capable),
        att_member=jnp.where(crafting, mine, acted.att_member),
        att_leader=jnp.where(crafting, jnp.where(mine & ok[c], leader[c], -1), acted.att_leader).astype(jnp.int32),
    )


def vitals_and_plants(
    cfg: CrafterSettings,
    grid: jax.Array,
    plant_age: jax.Array,
    vitals: jax.Array,
    counters: jax.Array,
    sleeping: jax.Array,
    live: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Food and drink fall one per ``food_every``/``drink_every`` steps; energy falls one per
    ``energy_every`` awake and rises one per ``energy_every / 3`` asleep; health rises one per
    ``health_every`` steps while food, drink and energy (or sleep) hold, else falls at that rate.
    Saplings ripen after ``ripen_steps``. Returns (grid, plant_age, vitals, counters)."""
    top = cfg.vital_max
    step = live.astype(jnp.int32)
    c_food, c_drink = counters[:, Vital.FOOD] + step, counters[:, Vital.DRINK] + step
    c_energy = counters[:, Vital.ENERGY] + jnp.where(sleeping, 3, 1) * step
    food_tick, drink_tick, energy_tick = (
        c_food >= cfg.food_every,
        c_drink >= cfg.drink_every,
        c_energy >= cfg.energy_every,
    )
    food = vitals[:, Vital.FOOD] - food_tick
    drink = vitals[:, Vital.DRINK] - drink_tick
    energy = vitals[:, Vital.ENERGY] + jnp.where(sleeping, 1, -1) * energy_tick
    food, drink, energy = (jnp.clip(v, 0, top) for v in (food, drink, energy))
    fine = (food > 0) & (drink > 0) & ((energy > 0) | sleeping)
    c_health = jnp.where(
        fine, jnp.maximum(counters[:, Vital.HEALTH], 0) + 1, jnp.minimum(counters[:, Vital.HEALTH], 0) - 1
    )
    c_health = c_health * step
    gain, loss = c_health >= cfg.health_every, c_health <= -cfg.health_every
    health = jnp.clip(vitals[:, Vital.HEALTH] + gain.astype(jnp.int32) - loss.astype(jnp.int32), 0, top)
    vitals = jnp.where(live[:, None], jnp.stack([health, food, drink, energy], axis=-1), vitals)
    counters = jnp.stack(
        [
            jnp.where(gain | loss, 0, c_health),
            jnp.where(food_tick, 0, c_food),
            jnp.where(drink_tick, 0, c_drink),
            jnp.where(energy_tick, 0, c_energy),
        ],
        axis=-1,
    )
    growing = grid == Material.PLANT
    plant_age = jnp.where(growing, plant_age + 1, 0)
    grid = jnp.where(growing & (plant_age >= cfg.ripen_steps), int(Material.RIPE_PLANT), grid)
    return grid, plant_age, vitals.astype(jnp.int32), counters.astype(jnp.int32)


__all__ = [
    "CRAFT_ORDER",
    "GIVES",
    "PLACED",
    "PLACES",
    "RESOURCE_MATERIAL",
    "Acted",
    "Shares",
    "Tables",
    "apply_shares",
    "collect_and_do",
    "craft",
    "do_target",
    "material_at",
    "move",
    "near_station",
    "place",
    "resolve_shares",
    "set_cells",
    "tables",
    "tool_tier",
    "vitals_and_plants",
]
