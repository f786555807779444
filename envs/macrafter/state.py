"""The MA-Crafter state layout, shared by the JAX env, the NumPy reference and the decoder.

Fixed-size arrays make shapes static under jit: H x W = the map, A = the scenario's agent
capacity (padding seats are masked off, ``active`` False), C = ``settings.cow_capacity`` cow
slots. EmCoop's world is a list of objects updated in creation order (cows from world generation,
then the agents, then cows spawned later); ``order`` keeps each object slot's creation number so
the step can follow the same order. The last step's records (each seat's result, what its ``do``
reached, its share) ride in the state, so the typed view and the events need nothing else.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from envs.macrafter.rules import NUM_ACHIEVEMENTS, NUM_ITEMS, Material, Vital
from envs.macrafter.settings import CrafterSettings

Array = Any  # jax.Array in the env, np.ndarray in the reference and the decoder

# What a seat's own action did in the last step (``CrafterView.results``).
RESULTS: tuple[str, ...] = (
    "none",  # noop, or padding / removed seat
    "ok",  # moved, collected something, placed, crafted, shared
    "too_few",  # DO: a resource in reach lacked its quorum of agents holding the tool
    "no_tool",  # DO: enough agents did it, but not enough held the tool (this one among those lacking)
    "no_station",  # MAKE_*: no station of the recipe beside the agent
    "missing_items",  # MAKE_* / PLACE_*: the bag lacks what it costs
    "blocked",  # a move into a non-walkable cell, an object or the map's edge (it still turned)
    "occupied",  # a place on a cell that does not take it or holds an object
    "asleep",  # the agent slept through its action (EmCoop: a sleeper acts again only when rested)
    "receiver_down",  # a share to a seat that is removed, absent, or oneself
    "nothing",  # DO with no resource in reach; SLEEP with full energy; a share of a good not held
    "sleep",  # SLEEP: fell asleep
    "too_few_crafters",  # MAKE_* under the paper's crafting quorum: fewer crafters than it needs
    "died",  # lava, or the seat was removed at health 0
)
RESULT = {name: i for i, name in enumerate(RESULTS)}

RESOURCES: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond", "water", "cow")
COW_CODE = RESOURCES.index("cow")
RESOURCE_MATERIALS: tuple[Material, ...] = (
    Material.TREE,
    Material.STONE,
    Material.COAL,
    Material.IRON,
    Material.DIAMOND,
    Material.WATER,
)
SCORED_ITEMS: tuple[str, ...] = ("wood", "stone", "coal", "iron", "diamond")
# Inside the JAX step a live cow's cell holds this bit over its material (materials stay below it),
# so one read of a cell tells its material and whether a cow stands there; no state holds it.
COW_MARK = 64
COUNTERS: tuple[str, ...] = ("hunger", "thirst", "fatigue", "recover")  # stored as twice the value


def reach_offsets(distance: int) -> np.ndarray:
    """(K, 2) (dx, dy) within Manhattan ``distance``, dx outer then dy (EmCoop's scan order)."""
    return np.asarray(
        [
            (dx, dy)
            for dx in range(-distance, distance + 1)
            for dy in range(-distance, distance + 1)
            if abs(dx) + abs(dy) <= distance
        ],
        np.int32,
    ).reshape(-1, 2)


class CrafterState(NamedTuple):
    grid: Array  # (H, W) int8 Material (a quarter of the memory traffic of int32); cows are objects
    pos: Array  # (A, 2) int32 (x, y)
    facing: Array  # (A,) int32 index into rules.MOVES (left, right, up, down)
    active: Array  # (A,) bool, False for padding seats
    removed: Array  # (A,) bool, taken out of the world at health 0 (EmCoop's world.remove)
    sleeping: Array  # (A,) bool
    inventory: Array  # (A, NUM_ITEMS) int32
    vitals: Array  # (A, 4) int32 health, food, drink, energy
    counters: Array  # (A, 4) int32 hunger, thirst, fatigue, recover, each twice EmCoop's float
    last_health: Array  # (A,) int32 health after the seat's last update (a drop wakes a sleeper)
    achievements: Array  # (A, NUM_ACHIEVEMENTS) int32 rules.Achievement counters
    cow_pos: Array  # (C, 2) int32 (x, y), (-1, -1) for an empty slot
    cow_alive: Array  # (C,) bool
    order: Array  # (A + C,) int32 creation number of each object slot (seats, then cows); -1 empty
    next_order: Array  # () int32
    touched: Array  # (CH, CW) bool chunks that ever held an object (EmCoop balances only those)
    score: Array  # () float32 team score
    score_units: Array  # (5,) int32 scored units of wood, stone, coal, iron, diamond
    step: Array  # () int32
    done: Array  # () bool
    last_action: Array  # (A,) int32 the action each seat took last step (noop for padding)
    result: Array  # (A,) int32 RESULTS index of each seat's own action last step
    do_pos: Array  # (A, 2) int32 where each seat stood when the step's collections ran
    do_tools: Array  # (A, 3) bool the pickaxes (wood, stone, iron) it held then
    tgt_res: Array  # (A, K) int32 resource code in reach of each DO seat (reach_offsets order), -1 none
    share_to: Array  # (A,) int32 the seat a completed share went to, -1 when none
    share_good: Array  # (A,) int32 index into rules.SHARE_GOODS
    share_qty: Array  # (A,) int32 how much it handed over


def blank_state(settings: CrafterSettings, capacity: int) -> CrafterState:
    """An empty world of ``settings``' size: all grass, no seat, no cow (NumPy arrays)."""
    a, c, h, w = capacity, settings.cow_capacity, settings.height, settings.width
    k = len(reach_offsets(settings.collect_distance))
    return CrafterState(
        grid=np.full((h, w), int(Material.GRASS), np.int8),
        pos=np.full((a, 2), -1, np.int32),
        facing=np.full(a, 3, np.int32),
        active=np.zeros(a, bool),
        removed=np.zeros(a, bool),
        sleeping=np.zeros(a, bool),
        inventory=np.zeros((a, NUM_ITEMS), np.int32),
        vitals=np.zeros((a, len(Vital)), np.int32),
        counters=np.zeros((a, len(COUNTERS)), np.int32),
        last_health=np.zeros(a, np.int32),
        achievements=np.zeros((a, NUM_ACHIEVEMENTS), np.int32),
        cow_pos=np.full((c, 2), -1, np.int32),
        cow_alive=np.zeros(c, bool),
        order=np.full(a + c, -1, np.int32),
        next_order=np.int32(0),
        touched=np.zeros(settings.chunks, bool),
        score=np.float32(0),
        score_units=np.zeros(5, np.int32),
        step=np.int32(0),
        done=np.bool_(False),
        last_action=np.zeros(a, np.int32),
        result=np.zeros(a, np.int32),
        do_pos=np.full((a, 2), -1, np.int32),
        do_tools=np.zeros((a, 3), bool),
        tgt_res=np.full((a, k), -1, np.int32),
        share_to=np.full(a, -1, np.int32),
        share_good=np.zeros(a, np.int32),
        share_qty=np.zeros(a, np.int32),
    )


def populate(
    settings: CrafterSettings,
    capacity: int,
    grid: np.ndarray,
    agents: np.ndarray,
    cows: np.ndarray,
) -> CrafterState:
    """A start state: ``grid``, cows at ``cows`` (created first, in the given order), then the
    agents at ``agents`` with full vitals, empty bags, facing down (EmCoop's reset)."""
    s = blank_state(settings, capacity)
    n, m = len(agents), len(cows)
    if m > settings.cow_capacity:
        raise ValueError(f"{m} cows exceed cow_capacity {settings.cow_capacity}")
    pos, cow_pos, order = s.pos.copy(), s.cow_pos.copy(), s.order.copy()
    pos[:n] = np.asarray(agents, np.int32).reshape(-1, 2)
    cow_pos[:m] = np.asarray(cows, np.int32).reshape(-1, 2)
    cow_alive = np.arange(settings.cow_capacity) < m
    order[capacity : capacity + m] = np.arange(m)
    order[:n] = m + np.arange(n)
    active = np.arange(capacity) < n
    vitals = np.where(active[:, None], settings.vital_max, s.vitals).astype(np.int32)
    touched = s.touched.copy()
    for x, y in [*pos[:n].tolist(), *cow_pos[:m].tolist()]:
        touched[y // settings.chunk_size, x // settings.chunk_size] = True
    return s._replace(
        grid=np.asarray(grid, np.int8),
        pos=pos,
        active=active,
        vitals=vitals,
        last_health=vitals[:, 0].copy(),
        cow_pos=cow_pos,
        cow_alive=cow_alive,
        order=order,
        next_order=np.int32(m + n),
        touched=touched,
    )


__all__ = [
    "COUNTERS",
    "COW_CODE",
    "COW_MARK",
    "RESOURCES",
    "RESOURCE_MATERIALS",
    "RESULT",
    "RESULTS",
    "SCORED_ITEMS",
    "CrafterState",
    "blank_state",
    "populate",
    "reach_offsets",
]
