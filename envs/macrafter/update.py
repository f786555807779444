"""EmCoop's object updates, in JAX: every seat and cow in creation order (``engine.World.objects``).

A seat's update is ``objects.Player.update``: the sleep lock, its own action (move, sleep, place,
make; a ``do`` was already resolved by the collections), the vitals clocks, the health clock, the
bag cap and waking when hurt. A cow's is ``objects.Cow.update``: a coin, then a step in a random
direction when the cell is free. Objects update one after the other, so a lower creation number
acts first: a table placed by an earlier seat blocks a later seat's move in the same step.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.batched import cells_add, flat_cell, grid_at
from envs.macrafter.draws import StepDraws
from envs.macrafter.rules import (
    AGENT_WALKABLE,
    CRAFTS,
    MOVES,
    PLACEABLE_ON,
    VECTORS,
    WALKABLE,
    Achievement,
    Action,
    Item,
    Material,
    Vital,
)
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import COW_MARK, RESULT
from envs.macrafter.walk import moved_bit, no_moves, plan_walk, walk_cows

DIRS = jnp.asarray([VECTORS[m] for m in MOVES], jnp.int32)  # (4, 2) by facing index
PLACES = (Action.PLACE_STONE, Action.PLACE_TABLE, Action.PLACE_FURNACE, Action.PLACE_PLANT)
_PLACED = {
    Action.PLACE_STONE: Material.STONE,
    Action.PLACE_TABLE: Material.TABLE,
    Action.PLACE_FURNACE: Material.FURNACE,
    Action.PLACE_PLANT: Material.PLANT,
}
_PLACE_ACH = {
    Action.PLACE_STONE: Achievement.PLACE_STONE,
    Action.PLACE_TABLE: Achievement.PLACE_TABLE,
    Action.PLACE_FURNACE: Achievement.PLACE_FURNACE,
    Action.PLACE_PLANT: Achievement.PLACE_PLANT,
}
_MAKE_ACH = {
    Action.MAKE_WOOD_PICKAXE: Achievement.MAKE_WOOD_PICKAXE,
    Action.MAKE_STONE_PICKAXE: Achievement.MAKE_STONE_PICKAXE,
    Action.MAKE_IRON_PICKAXE: Achievement.MAKE_IRON_PICKAXE,
    Action.MAKE_WOOD_SWORD: Achievement.MAKE_WOOD_SWORD,
    Action.MAKE_STONE_SWORD: Achievement.MAKE_STONE_SWORD,
    Action.MAKE_IRON_SWORD: Achievement.MAKE_IRON_SWORD,
}
_STATION = {"table": Material.TABLE, "furnace": Material.FURNACE}


class ActTables(NamedTuple):
    """Place and make rules by action offset (PLACE_* - PLACE_STONE, MAKE_* - MAKE_WOOD_PICKAXE)."""

    place_on: np.ndarray  # (4, M) bool: the materials each placed thing may cover
    place_cost: np.ndarray  # (4, NUM_ITEMS) int
    place_mat: np.ndarray  # (4,)
    place_ach: np.ndarray  # (4,)
    make_needs: np.ndarray  # (6, NUM_ITEMS) int
    make_station: np.ndarray  # (6, 2) bool: needs a table, a furnace
    make_item: np.ndarray  # (6,)
    make_ach: np.ndarray  # (6,)
    make_quorum: np.ndarray  # (6,)
    agent_walk: np.ndarray  # (M,) bool
    cow_walk: np.ndarray  # (M,) bool
    cow_move_probability: float


def act_tables(cfg: CrafterSettings) -> ActTables:
    m = len(Material)
    place_on = np.zeros((4, m), bool)
    place_cost = np.zeros((4, len(Item)), np.int32)
    for i, a in enumerate(PLACES):
        place_on[i, [int(x) for x in PLACEABLE_ON[a]]] = True
    place_cost[0, Item.STONE] = 1
    place_cost[1, Item.WOOD] = cfg.table_wood
    place_cost[2, Item.STONE] = cfg.furnace_stone
    place_cost[3, Item.SAPLING] = 1
    makes = list(CRAFTS)
    needs = np.zeros((6, len(Item)), np.int32)
    station = np.zeros((6, 2), bool)
    quorum = np.ones(6, np.int32)
    for i, a in enumerate(makes):
        rule = cfg.recipes[CRAFTS[a].name.lower()]
        for item, k in rule.needs.items():
            needs[i, Item[item.upper()]] = k
        for s in rule.stations:
            station[i, 0 if s == "table" else 1] = True
        quorum[i] = rule.quorum
    walk = np.zeros(m, bool)
    walk[[int(x) for x in AGENT_WALKABLE]] = True
    cow_walk = np.zeros(m, bool)
    cow_walk[[int(x) for x in WALKABLE]] = True
    if any(cow_walk[int(_PLACED[a])] for a in PLACES):  # `plan_walk` queues cows before the seats place
        raise ValueError("a placed material is walkable for cows")
    return ActTables(
        place_on=place_on,
        place_cost=place_cost,
        place_mat=np.asarray([int(_PLACED[a]) for a in PLACES], np.int32),
        place_ach=np.asarray([int(_PLACE_ACH[a]) for a in PLACES], np.int32),
        make_needs=needs,
        make_station=station,
        make_item=np.asarray([int(CRAFTS[a]) for a in makes], np.int32),
        make_ach=np.asarray([int(_MAKE_ACH[a]) for a in makes], np.int32),
        make_quorum=quorum,
        agent_walk=walk,
        cow_walk=cow_walk,
        cow_move_probability=cfg.cow_move_probability,
    )


class World(NamedTuple):
    """What the object updates read and write."""

    grid: jax.Array
    pos: jax.Array
    facing: jax.Array
    in_world: jax.Array  # (A,) seats that are objects (active, not removed)
    sleeping: jax.Array
    inventory: jax.Array
    vitals: jax.Array
    counters: jax.Array
    last_health: jax.Array
    achievements: jax.Array
    cow_pos: jax.Array
    cow_alive: jax.Array
    result: jax.Array
    placed_cell: jax.Array | None = None  # (A, 2) the cell each seat placed on this step
    placed_mat: jax.Array | None = None  # (A,) what it placed there, -1 nothing


class Seen(NamedTuple):
    """A cell as the seats' loop sees it."""

    mat: jax.Array  # its material, this step's earlier placements laid over the grid; -1 outside
    inside: jax.Array
    taken: jax.Array  # an object (a seat in the world, a live cow) stands on it


def seen(wd: World, cell: jax.Array) -> Seen:
    """One read of the grid (cows marked, `marked`) plus this step's earlier placements and the seats
    (the loop does not write the grid, which keeps a batched step cheap)."""
    h, w = wd.grid.shape
    inside = (cell[0] >= 0) & (cell[0] < w) & (cell[1] >= 0) & (cell[1] < h)
    raw = grid_at(wd.grid, cell[0], cell[1])
    hit = (wd.placed_mat >= 0) & jnp.all(wd.placed_cell == cell, -1)
    mat = jnp.where(jnp.any(hit), jnp.max(jnp.where(hit, wd.placed_mat, -1)), raw % COW_MARK)
    seat = jnp.any(wd.in_world & jnp.all(wd.pos == cell, -1))
    return Seen(jnp.where(inside, mat, -1), inside, inside & (seat | (raw >= COW_MARK)))


def marked(grid: jax.Array, cow_pos: jax.Array, live: jax.Array, sign: int) -> jax.Array:
    """The grid with each live cow's cell marked (``sign`` 1) or unmarked (-1): during the updates
    one read of a cell tells both its material and whether a cow stands there (cows never share a
    cell), so no step compares a cell with every cow. One scatter on the flat map; an empty slot
    adds 0 to cell 0 (an index always in range: XLA's CPU scatter skips its bounds checks)."""
    h, w = grid.shape
    cell = jnp.where(live, flat_cell((h, w), cow_pos[:, 0], cow_pos[:, 1]), 0)
    mark = jnp.where(live, jnp.int8(sign * COW_MARK), jnp.int8(0))
    return cells_add(grid.reshape(-1), cell, mark).reshape(h, w)


def update_objects(
    cfg: CrafterSettings,
    at: ActTables,
    wd: World,
    acts: jax.Array,
    order: jax.Array,
    draws: StepDraws,
    crafters: jax.Array,
) -> World:
    """Every object's update in creation order. The seats are created together after the world's
    first cows (EmCoop's reset) and every later cow after them, so the order is: the cows older than
    the seats (by creation number), the seats in seat order, then the younger cows. Both groups of
    cows walk from one queue (`plan_walk`, `walk_cows`). ``wd.grid`` comes with the live cows
    marked (`marked`) and leaves unmarked. No loop carries the grid: the seats only read it."""
    n = wd.pos.shape[0]
    big = jnp.iinfo(jnp.int32).max
    first_seat = jnp.min(jnp.where(order[:n] >= 0, order[:n], big))
    cow_order = order[n:]

    def seat(i: jax.Array, carry: World) -> World:
        """One seat's update; the grid stays out of the loop's carry (the seats only read it: their
        placements ride in ``placed_*`` until `_lay_placements`)."""
        full = carry._replace(grid=grid)
        done = jax.lax.cond(full.in_world[i], lambda w: _player(cfg, at, w, i, acts[i], crafters), lambda w: w, full)
        return done._replace(grid=None)

    h, w = wd.grid.shape
    plan = plan_walk(at, wd, cow_order, draws, cow_order < first_seat)
    moved = no_moves(cow_order.shape[0])
    flat, moved = walk_cows(at, plan, wd, wd.grid.reshape(-1), moved, 0, plan.older)
    grid = flat.reshape(h, w)
    wd = wd._replace(placed_cell=jnp.full((n, 2), -1, jnp.int32), placed_mat=jnp.full((n,), -1, jnp.int32))
    wd = jax.lax.fori_loop(0, n, seat, wd._replace(grid=None))._replace(grid=grid)
    wd = _lay_placements(wd)
    flat, moved = walk_cows(at, plan, wd, wd.grid.reshape(-1), moved, plan.older, plan.count - plan.older)
    went = moved_bit(moved, plan.place)  # a cow not queued has place C: past every recorded bit
    x = jnp.where(went, plan.to_x, wd.cow_pos[:, 0])
    y = jnp.where(went, plan.to_y, wd.cow_pos[:, 1])
    wd = wd._replace(grid=flat.reshape(h, w), cow_pos=jnp.stack([x, y], -1))
    return wd._replace(grid=marked(wd.grid, wd.cow_pos, wd.cow_alive, -1))


def _lay_placements(wd: World) -> World:
    """Write the seats' placements into the grid once, after their loop."""
    h = wd.grid.shape[0]
    x, y = wd.placed_cell[:, 0], wd.placed_cell[:, 1]
    rows = jnp.where(wd.placed_mat >= 0, y, h)  # out of range: dropped
    grid = wd.grid.at[rows, x].set(wd.placed_mat.astype(wd.grid.dtype), mode="drop")
    return wd._replace(grid=grid, placed_cell=None, placed_mat=None)


def _player(cfg: CrafterSettings, at: ActTables, wd: World, i: jax.Array, act: jax.Array, crafters: jax.Array) -> World:
    """``Player.update`` of seat ``i`` (a DO or a share is a noop here: both were resolved before)."""
    a = jnp.where((act == Action.DO) | (act > Action.MAKE_IRON_SWORD), int(Action.NOOP), act)
    energy = wd.vitals[i, Vital.ENERGY]
    locked = wd.sleeping[i] & (energy < cfg.vital_max)
    rested = wd.sleeping[i] & ~locked
    a = jnp.where(locked, int(Action.SLEEP), a)
    wd = wd._replace(achievements=wd.achievements.at[i, Achievement.WAKE_UP].add(rested.astype(jnp.int32)))
    wd, moved = _move(at, wd, i, a)
    falls_asleep = (a == Action.SLEEP) & (energy < cfg.vital_max)
    wd = wd._replace(sleeping=wd.sleeping.at[i].set((wd.sleeping[i] & ~rested) | falls_asleep))
    wd, placed = _place(at, wd, i, a)
    wd, made = _make(at, wd, i, a, crafters)
    is_move = (a >= Action.LEFT) & (a <= Action.DOWN)
    res = jnp.where(
        is_move,
        moved,
        jnp.where(a == Action.SLEEP, jnp.where(falls_asleep, RESULT["sleep"], RESULT["nothing"]), RESULT["none"]),
    )
    res = jnp.where((a >= Action.PLACE_STONE) & (a <= Action.PLACE_PLANT), placed, res)
    res = jnp.where((a >= Action.MAKE_WOOD_PICKAXE) & (a <= Action.MAKE_IRON_SWORD), made, res)
    res = jnp.where(locked, RESULT["asleep"], res)
    wd = wd._replace(result=wd.result.at[i].set(res))
    return _body(cfg, wd, i)


def _move(at: ActTables, wd: World, i: jax.Array, a: jax.Array) -> tuple[World, jax.Array]:
    """``Player._move``: turn, step if the cell is free (lava included), die on lava."""
    is_move = (a >= Action.LEFT) & (a <= Action.DOWN)
    facing = jnp.where(is_move, a - Action.LEFT, wd.facing[i])
    target = wd.pos[i] + DIRS[facing]
    there = seen(wd, target)
    free = there.inside & jnp.asarray(at.agent_walk)[jnp.maximum(there.mat, 0)] & ~there.taken
    pos = jnp.where(is_move & free, target, wd.pos[i])
    lava = is_move & (seen(wd, pos).mat == Material.LAVA)
    vitals = wd.vitals.at[i, Vital.HEALTH].set(jnp.where(lava, 0, wd.vitals[i, Vital.HEALTH]))
    result = jnp.where(lava, RESULT["died"], jnp.where(free, RESULT["ok"], RESULT["blocked"]))
    return wd._replace(pos=wd.pos.at[i].set(pos), facing=wd.facing.at[i].set(facing), vitals=vitals), result


def _place(at: ActTables, wd: World, i: jax.Array, a: jax.Array) -> tuple[World, jax.Array]:
    """``Player._place`` on the faced cell: no object there, a material it may cover, the cost paid."""
    is_place = (a >= Action.PLACE_STONE) & (a <= Action.PLACE_PLANT)
    p = jnp.clip(a - Action.PLACE_STONE, 0, 3)
    target = wd.pos[i] + DIRS[wd.facing[i]]
    there = seen(wd, target)
    fits = there.inside & ~there.taken & jnp.asarray(at.place_on)[p, jnp.maximum(there.mat, 0)]
    cost = jnp.asarray(at.place_cost)[p]
    paid = jnp.all(wd.inventory[i] >= cost)
    ok = is_place & fits & paid
    placed_cell = wd.placed_cell.at[i].set(jnp.where(ok, target, wd.placed_cell[i]))
    placed_mat = wd.placed_mat.at[i].set(jnp.where(ok, jnp.asarray(at.place_mat)[p], wd.placed_mat[i]))
    inventory = wd.inventory.at[i].add(-cost * ok)
    ach = wd.achievements.at[i, jnp.asarray(at.place_ach)[p]].add(ok.astype(jnp.int32))
    result = jnp.where(ok, RESULT["ok"], jnp.where(fits, RESULT["missing_items"], RESULT["occupied"]))
    return wd._replace(placed_cell=placed_cell, placed_mat=placed_mat, inventory=inventory, achievements=ach), result


def _stations_near(wd: World, pos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(table, furnace) among the 3x3 cells around ``pos`` as ``engine.World.nearby`` slices them:
    clipped at the far edges, and empty when the slice would start at -1 (column or row 0). This
    step's earlier placements are laid over the grid. Unrolled over the nine cells and the few
    seats: reductions over axes of 3 are scalar loops on CPU, and each would recompute the cells."""
    h, w = wd.grid.shape
    x, y = pos[0], pos[1]
    dx = jnp.arange(-1, 2)
    raw = grid_at(wd.grid, jnp.broadcast_to(x + dx[None, :], (3, 3)), jnp.broadcast_to(y + dx[:, None], (3, 3)))
    table = furnace = jnp.asarray(False)
    for r in range(3):
        for c in range(3):
            cx, cy = x + c - 1, y + r - 1
            inside = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h) & (x >= 1) & (y >= 1)
            hit, top = jnp.asarray(False), jnp.int32(-1)
            for j in range(wd.placed_mat.shape[0]):
                hit_j = (wd.placed_mat[j] >= 0) & (wd.placed_cell[j, 0] == cx) & (wd.placed_cell[j, 1] == cy)
                hit, top = hit | hit_j, jnp.where(hit_j, jnp.maximum(top, wd.placed_mat[j]), top)
            cell = jnp.where(hit, top, raw[r, c].astype(jnp.int32) % COW_MARK)
            table = table | (inside & (cell == Material.TABLE))
            furnace = furnace | (inside & (cell == Material.FURNACE))
    return table, furnace


def _make(at: ActTables, wd: World, i: jax.Array, a: jax.Array, crafters: jax.Array) -> tuple[World, jax.Array]:
    """``Player._make``: the recipe's stations nearby, then its ingredients (and the paper's quorum)."""
    is_make = (a >= Action.MAKE_WOOD_PICKAXE) & (a <= Action.MAKE_IRON_SWORD)
    m = jnp.clip(a - Action.MAKE_WOOD_PICKAXE, 0, 5)
    need_station = jnp.asarray(at.make_station)[m]
    table, furnace = _stations_near(wd, wd.pos[i])
    station_ok = (~need_station[0] | table) & (~need_station[1] | furnace)
    needs = jnp.asarray(at.make_needs)[m]
    items_ok = jnp.all(wd.inventory[i] >= needs)
    quorum_ok = crafters[m] >= jnp.asarray(at.make_quorum)[m]
    ok = is_make & station_ok & items_ok & quorum_ok
    item = jnp.asarray(at.make_item)[m]
    inventory = wd.inventory.at[i].add(-needs * ok).at[i, item].add(ok.astype(jnp.int32))
    ach = wd.achievements.at[i, jnp.asarray(at.make_ach)[m]].add(ok.astype(jnp.int32))
    result = jnp.where(
        ok,
        RESULT["ok"],
        jnp.where(
            ~station_ok, RESULT["no_station"], jnp.where(~items_ok, RESULT["missing_items"], RESULT["too_few_crafters"])
        ),
    )
    return wd._replace(inventory=inventory, achievements=ach), result


def _body(cfg: CrafterSettings, wd: World, i: jax.Array) -> World:
    """``_update_life_stats``, ``_degen_or_regen_health``, the bag cap and ``_wake_up_when_hurt``.
    Counters are kept doubled so the half steps of a sleeper stay integers."""
    asleep = wd.sleeping[i]
    hunger, thirst, fatigue, recover = (wd.counters[i, k] for k in range(4))
    health, food, drink, energy = (wd.vitals[i, k] for k in range(4))
    tick = jnp.where(asleep, 1, 2)
    hunger = hunger + tick
    food = food - (hunger > 2 * cfg.hunger_threshold)
    hunger = jnp.where(hunger > 2 * cfg.hunger_threshold, 0, hunger)
    thirst = thirst + tick
    drink = drink - (thirst > 2 * cfg.thirst_threshold)
    thirst = jnp.where(thirst > 2 * cfg.thirst_threshold, 0, thirst)
    fatigue = jnp.where(asleep, jnp.minimum(fatigue - 2, 0), fatigue + 2)
    rests = fatigue < -2 * cfg.rest_threshold
    energy, fatigue = energy + rests, jnp.where(rests, 0, fatigue)
    tires = fatigue > 2 * cfg.fatigue_threshold
    energy, fatigue = energy - tires, jnp.where(tires, 0, fatigue)
    fed = (food > 0) & (drink > 0) & ((energy > 0) | asleep)
    recover = recover + jnp.where(fed, jnp.where(asleep, 4, 2), jnp.where(asleep, -1, -2))
    heals = recover > 2 * cfg.recover_threshold
    health, recover = health + heals, jnp.where(heals, 0, recover)
    hurts = recover < -2 * cfg.degen_threshold
    health, recover = jnp.maximum(health - hurts, 0), jnp.where(hurts, 0, recover)
    vit = jnp.clip(jnp.stack([health, food, drink, energy]), 0, cfg.vital_max).astype(jnp.int32)
    inv = jnp.clip(wd.inventory[i], 0, cfg.item_max)
    hurt = vit[Vital.HEALTH] < wd.last_health[i]
    return wd._replace(
        vitals=wd.vitals.at[i].set(vit),
        inventory=wd.inventory.at[i].set(inv),
        counters=wd.counters.at[i].set(jnp.stack([hunger, thirst, fatigue, recover]).astype(jnp.int32)),
        sleeping=wd.sleeping.at[i].set(asleep & ~hurt),
        last_health=wd.last_health.at[i].set(vit[Vital.HEALTH]),
    )
