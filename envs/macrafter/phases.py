"""The acting phases of an MA-Crafter step: DO (collect, drink, eat), PLACE_*, MAKE_*, vitals.

Pure JAX over the agents' arrays; `envs.macrafter.env` chains them after the moves
(`envs.macrafter.dynamics`), each reading what the phases before it left.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from envs.macrafter.dynamics import (
    CRAFT_ORDER,
    PLACES,
    Tables,
    do_target,
    material_at,
    near_station,
    set_cells,
    tool_tier,
)
from envs.macrafter.rules import NUM_ITEMS, Action, Item, Material, Vital
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import RESOURCES, RESULT


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
    grid, inventory, vitals, other = _consume(cfg, key, grid, tx, ty, m, doing, inventory, vitals)
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


def _consume(
    cfg: CrafterSettings,
    key: jax.Array,
    grid: jax.Array,
    tx: jax.Array,
    ty: jax.Array,
    m: jax.Array,
    doing: jax.Array,
    inventory: jax.Array,
    vitals: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """DO on what is not a resource: water (drink), a cow or a ripe plant (eat, -> grass), grass
    (a sapling with ``sapling_probability``). Returns (grid, inventory, vitals, result codes)."""
    na = doing.shape[0]
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
    return grid, inventory, vitals, other


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


__all__ = ["Acted", "collect_and_do", "craft", "place", "vitals_and_plants"]
