"""The first two phases of EmCoop's step, in JAX: shares, then cooperative collection.

EmCoop's ``CooperativeEnv.step`` runs every share request before anything else, then resolves
every ``do`` at once (``_process_cooperative_collections``): each resource cell within Manhattan
``collect_distance`` of an agent doing ``do`` is a target; the agents doing ``do`` within reach
who hold the resource's exact tool are its participants; with at least the quorum of them the
cell is collected and each participant gets the resource's item. Positions do not change in this
phase, so the targets are independent and are resolved together here, from the ``(A, K)`` cells
in reach of each seat (K = the cells of the reach diamond).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter.batched import grid_at
from envs.macrafter.rules import (
    LEAVES,
    MAX_SHARE,
    NUM_GOODS,
    NUM_ITEMS,
    PICKAXES,
    SHARE_BASE,
    SHARE_VITALS,
    Achievement,
    Item,
    Material,
    Vital,
)
from envs.macrafter.settings import RESOURCE_GIVES, CrafterSettings
from envs.macrafter.state import COW_CODE, COW_MARK, RESOURCE_MATERIALS, RESOURCES, reach_offsets

TOOL_SLOT = {item.name.lower(): slot for slot, item in enumerate(PICKAXES)}  # do_tools / tool columns
_ACHIEVE = {
    "wood": Achievement.COLLECT_WOOD,
    "stone": Achievement.COLLECT_STONE,
    "coal": Achievement.COLLECT_COAL,
    "iron": Achievement.COLLECT_IRON,
    "diamond": Achievement.COLLECT_DIAMOND,
    "drink": Achievement.COLLECT_DRINK,
    "food": Achievement.EAT_COW,
}


class ResourceTables(NamedTuple):
    """Per resource code (state.RESOURCES order): quorum, tool slot (-1 none), score per participant,
    the bag column it fills (items, then vitals after NUM_ITEMS), the amount
    and the achievement it counts; per Material, its resource code (-1 not collectable)."""

    quorum: np.ndarray
    tool: np.ndarray
    value: np.ndarray
    column: np.ndarray
    amount: np.ndarray
    achievement: np.ndarray
    code_of: np.ndarray
    leaves_of: np.ndarray  # per Material: what a collected cell of it becomes (itself if not collectable)
    scored_unit: np.ndarray  # which score_units entry (wood..diamond), -1 none


def bag_column(good: str) -> int:
    """The column of ``good`` in a seat's bag (`bag_of`): items first, then food, drink, energy."""
    if good.upper() in Item.__members__:
        return int(Item[good.upper()])
    return NUM_ITEMS + int(SHARE_VITALS[good]) - int(Vital.FOOD)


def resource_tables(cfg: CrafterSettings) -> ResourceTables:
    """The collection rules of ``cfg`` as static arrays (built once per env)."""
    quorum, tool, value, column, amount, ach, unit = ([] for _ in range(7))
    for r, name in enumerate(RESOURCES):
        rule = cfg.resources[name]
        quorum.append(rule.quorum)
        tool.append(TOOL_SLOT.get(rule.tool, -1))
        value.append(cfg.unit_value(name))
        item = RESOURCE_GIVES[name]
        column.append(bag_column(item))
        amount.append(cfg.cow_food if name == "cow" else 1)
        ach.append(int(_ACHIEVE[item]))
        unit.append(r if r < 5 else -1)
    code_of = np.full(len(Material), -1, np.int32)
    leaves_of = np.arange(len(Material), dtype=np.int32)
    for r, m in enumerate(RESOURCE_MATERIALS):
        code_of[int(m)] = r
        leaves_of[int(m)] = int(LEAVES[m])
    return ResourceTables(
        quorum=np.asarray(quorum, np.int32),
        tool=np.asarray(tool, np.int32),
        value=np.asarray(value, np.float32),
        column=np.asarray(column, np.int32),
        amount=np.asarray(amount, np.int32),
        achievement=np.asarray(ach, np.int32),
        code_of=code_of,
        leaves_of=leaves_of,
        scored_unit=np.asarray(unit, np.int32),
    )


def bag_of(inventory: jax.Array, vitals: jax.Array) -> jax.Array:
    """(A, NUM_GOODS) what a seat can hand over: its items, then food, drink, energy."""
    return jnp.concatenate([inventory, vitals[:, Vital.FOOD :]], axis=1)


def split_bag(bag: jax.Array, vitals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Back to (inventory, vitals) with health untouched."""
    return bag[:, :NUM_ITEMS], jnp.concatenate([vitals[:, :1], bag[:, NUM_ITEMS:]], axis=1)


class Shares(NamedTuple):
    bag: jax.Array  # (A, NUM_GOODS) after every share
    to: jax.Array  # (A,) the seat each completed share went to, -1 none
    good: jax.Array  # (A,) the good's index
    qty: jax.Array  # (A,) how much moved
    result: jax.Array  # (A,) 0 not a share, 1 done, 2 receiver down / self, 3 nothing to share


def run_shares(acts: jax.Array, in_world: jax.Array, bag: jax.Array) -> Shares:
    """EmCoop's ``_execute_shares`` in seat order: a share hands ``min(qty, held)`` of one good to
    another seat still in the world, at any distance (an earlier share can feed a later one)."""
    n = acts.shape[0]
    is_share = in_world & (acts >= SHARE_BASE)
    rest, q = jnp.divmod(jnp.maximum(acts - SHARE_BASE, 0), MAX_SHARE)
    target, good = jnp.divmod(rest, NUM_GOODS)

    def one(i: jax.Array, carry: tuple[jax.Array, ...]) -> tuple[jax.Array, ...]:
        bag, to, qty, res = carry
        tgt = target[i]
        valid_tgt = (tgt < n) & (tgt != i) & in_world[jnp.clip(tgt, 0, n - 1)]
        have = bag[i, good[i]]
        ok = is_share[i] & valid_tgt & (have > 0)
        moved = jnp.where(ok, jnp.minimum(have, q[i] + 1), 0)
        bag = bag.at[i, good[i]].add(-moved).at[jnp.clip(tgt, 0, n - 1), good[i]].add(moved)
        r = jnp.where(~is_share[i], 0, jnp.where(~valid_tgt, 2, jnp.where(ok, 1, 3)))
        return bag, to.at[i].set(jnp.where(ok, tgt, -1)), qty.at[i].set(moved), res.at[i].set(r)

    init = (bag, jnp.full(n, -1, jnp.int32), jnp.zeros(n, jnp.int32), jnp.zeros(n, jnp.int32))
    bag, to, qty, res = jax.lax.fori_loop(0, n, one, init)
    return Shares(bag=bag, to=to, good=jnp.where(is_share, good, 0).astype(jnp.int32), qty=qty, result=res)


class Collected(NamedTuple):
    grid: jax.Array
    bag: jax.Array  # (A, NUM_GOODS) after the collections (not capped yet: each seat's update caps)
    achievements: jax.Array
    cow_alive: jax.Array
    cow_pos: jax.Array
    gain: jax.Array  # () team score of the step's collections
    units: jax.Array  # (5,) scored units per wood..diamond
    tgt_res: jax.Array  # (A, K) resource code in reach of each DO seat, -1 none
    result: jax.Array  # (A,) 0 no DO, 1 ok, 2 too_few, 3 no_tool, 4 nothing in reach


def collect(
    t: ResourceTables,
    cfg: CrafterSettings,
    grid: jax.Array,
    pos: jax.Array,
    do: jax.Array,
    bag: jax.Array,
    achievements: jax.Array,
    cow_pos: jax.Array,
    cow_alive: jax.Array,
) -> Collected:
    """Every collection of one step (EmCoop's ``_process_cooperative_collections``), ``do`` (A,) the
    seats doing DO (in the world), on the grid with the live cows marked (`state.COW_MARK`): one read
    of a cell tells its material and its cow. A cell reached by several seats is counted once, by
    its lowest."""
    n = pos.shape[0]
    h = grid.shape[0]
    cells, inside, mat, tgt = _reached(t, cfg, grid, pos, do)
    x, y = cells[..., 0], cells[..., 1]
    safe = jnp.maximum(tgt, 0)
    dist = jnp.abs(cells[:, :, None, :] - pos[None, None, :, :]).sum(-1)  # (A, K, A)
    nearby = do[None, None, :] & (dist <= cfg.collect_distance)
    slot = jnp.asarray(t.tool)[safe]
    pickaxes = bag[:, jnp.asarray([int(p) for p in PICKAXES])] > 0  # (A, 3)
    holds = (slot[..., None] < 0) | pickaxes[jnp.arange(n)[None, None, :], jnp.maximum(slot, 0)[..., None]]
    part = nearby & holds
    count = part.sum(-1)
    ok = (tgt >= 0) & (count >= jnp.asarray(t.quorum)[safe])
    seat = jnp.arange(n)
    first = ~jnp.any(nearby & (seat[None, None, :] < seat[:, None, None]), -1)
    taken = ok & first  # (A, K): each collected cell once
    mult = count if cfg.score_per_participant else jnp.ones_like(count)
    value = jnp.asarray(t.value)[safe]
    gain = jnp.sum(jnp.where(taken, value * mult, 0.0)).astype(jnp.float32)
    unit_idx = jnp.asarray(t.scored_unit)[safe]
    counted = taken & (unit_idx >= 0) & (value > 0)
    units = jnp.zeros(5, jnp.int32).at[jnp.maximum(unit_idx, 0)].add(jnp.where(counted, mult, 0))
    per_code = _gets_per_code(taken[..., None] & part, tgt)  # (A, R): cells of each resource seat j got
    bag = bag + _spread(per_code, t.column, t.amount, bag.shape[1])
    achievements = achievements + _spread(per_code, t.achievement, np.ones_like(t.amount), achievements.shape[1])
    # write only the collected cells (a cell reached twice gets the same value twice): no pass over the
    # map; a mined cell becomes what it leaves, an eaten cow's cell loses its mark
    left = jnp.where(tgt == COW_CODE, mat, jnp.asarray(t.leaves_of, jnp.int8)[mat])
    grid = grid.at[jnp.where(ok & inside, y, h), x].set(left.astype(grid.dtype), mode="drop")
    eaten = cow_alive & (grid_at(grid, cow_pos[:, 0], cow_pos[:, 1]) < COW_MARK)
    cow_alive = cow_alive & ~eaten
    cow_pos = jnp.where(eaten[:, None], -1, cow_pos)
    return Collected(
        grid=grid,
        bag=bag,
        achievements=achievements,
        cow_alive=cow_alive,
        cow_pos=cow_pos,
        gain=gain,
        units=units,
        tgt_res=tgt.astype(jnp.int32),
        result=_do_results(do, tgt, ok, part, nearby, t),
    )


def _reached(
    t: ResourceTables, cfg: CrafterSettings, grid: jax.Array, pos: jax.Array, do: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """The cells within collection reach of each seat (A, K, 2), whether each is on the map, its
    material (the cow mark taken off) and the resource code a seat doing DO targets there (-1: none)."""
    h, w = grid.shape
    off = jnp.asarray(reach_offsets(cfg.collect_distance))
    cells = pos[:, None, :] + off[None, :, :]  # (A, K, 2)
    x, y = cells[..., 0], cells[..., 1]
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    raw = grid_at(grid, x, y)
    mat = raw % COW_MARK
    code = jnp.where(raw >= COW_MARK, COW_CODE, jnp.asarray(t.code_of)[mat])
    return cells, inside, mat, jnp.where(do[:, None] & inside & (code >= 0), code, -1)


def _gets_per_code(gets: jax.Array, tgt: jax.Array) -> jax.Array:
    """(A, R) for each seat j, how many collected cells of each resource code it shares in
    (``gets`` (A, K, A): seat j gets cell (i, k)'s item). Each cell adds ``1 << (bits * code)``: the
    codes' counts in fields of ``bits`` (wide enough for every cell at once) of one uint32 sum per
    seat and group of codes (a batched dot of such tiny integer matrices, or a sum per code over
    leading axes, is a scalar loop per env on CPU)."""
    a, k = tgt.shape
    bits = (a * k).bit_length()
    per_word = max(1, 32 // bits)
    mine = jnp.moveaxis(gets, 2, 0).reshape(a, a * k)  # (A, A*K): the summed axis last
    code = tgt.reshape(-1)
    counts = []
    for first in range(0, len(RESOURCES), per_word):
        shift = (jnp.clip(code - first, 0, per_word - 1) * bits).astype(jnp.uint32)
        one = jnp.where((code >= first) & (code < first + per_word), jnp.uint32(1) << shift, jnp.uint32(0))
        packed = jnp.sum(jnp.where(mine, one[None, :], jnp.uint32(0)), -1, dtype=jnp.uint32)
        for r in range(first, min(first + per_word, len(RESOURCES))):
            counts.append(((packed >> np.uint32(bits * (r - first))) & np.uint32((1 << bits) - 1)).astype(jnp.int32))
    return jnp.stack(counts, -1)


def _spread(per_code: jax.Array, column: np.ndarray, amount: np.ndarray, width: int) -> jax.Array:
    """(A, width) each column's gain: the codes filling it (static), each times its amount."""
    zero = jnp.zeros(per_code.shape[:1], jnp.int32)
    cols = []
    for g in range(width):
        parts = [per_code[:, r] * int(amount[r]) for r in np.flatnonzero(column == g).tolist()]
        cols.append(sum(parts[1:], parts[0]) if parts else zero)
    return jnp.stack(cols, -1)


def _do_results(
    do: jax.Array, tgt: jax.Array, ok: jax.Array, part: jax.Array, nearby: jax.Array, t: ResourceTables
) -> jax.Array:
    """Each DO seat's outcome: ok if it shared in a collection, else the first failure in reach
    (too_few: fewer agents doing DO than the quorum; no_tool: the tool was what lacked), else nothing."""
    n = do.shape[0]
    mine = part[jnp.arange(n), :, jnp.arange(n)]  # (A, K) seat i participates in its own target k
    got_any = jnp.any(ok & mine, -1)
    quorum = jnp.asarray(t.quorum)[jnp.maximum(tgt, 0)]
    reason = jnp.where(nearby.sum(-1) < quorum, 2, 3)
    failed = (tgt >= 0) & ~(ok & mine)
    first_fail = jnp.argmax(failed, -1)
    fail_reason = jnp.where(jnp.any(failed, -1), reason[jnp.arange(n), first_fail], 4)
    return jnp.where(~do, 0, jnp.where(got_any, 1, fail_reason)).astype(jnp.int32)
