"""The MA-Crafter state layout, shared by the JAX env and the decoder (no JAX needed here).

Fixed-size arrays make shapes static under jit: H x W = the map, A = the scenario's agent
capacity; padding seats are masked off (``active`` False), so scenarios with equal sizes,
capacities and settings (all random worlds of one difficulty, say) stack into one batch and share
one compiled step. The last step's records (each seat's result, its collection or craft attempt,
its completed share) ride in the state, so the typed view and the events need nothing else.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from envs.macrafter.rules import NUM_ITEMS, Vital
from envs.macrafter.scenario import Scenario
from envs.macrafter.settings import CrafterSettings

Array = Any  # jax.Array in the env, np.ndarray at the start and in the decoder

# What a seat's own action did in the last step (``CrafterView.results``). The attempt outcomes
# (ok, too_few, no_tool, no_station, missing_items) double as results of DO and MAKE_*.
RESULTS: tuple[str, ...] = (
    "none",  # noop, asleep, down, or padding
    "ok",  # moved, collected, placed, crafted, shared
    "too_few",
    "no_tool",
    "no_station",
    "missing_items",
    "blocked",  # a move into a wall, a non-walkable cell or an agent (it still turned)
    "occupied",  # a place on a cell that does not take it, holds an agent, or another seat took
    "no_table",  # a furnace placed with no table within station_radius
    "out_of_reach",  # a share beyond share_distance
    "receiver_down",  # a share to a seat that is down, absent, or oneself
    "drink",
    "eat_cow",
    "eat_plant",
    "sapling",  # DO on grass found a sapling
    "nothing",  # DO with nothing to act on (or grass without luck)
    "sleep",  # SLEEP: asleep (or stays asleep)
    "hit",  # DO on a creature that survived the blow (hostile creatures on)
    "kill",  # DO on a creature that the blows of this step killed
)
RESULT = {name: i for i, name in enumerate(RESULTS)}

# The resources in ``settings.resources`` order, and what each gives and becomes.
RESOURCES: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond")
NO_ATTEMPT, COLLECT, CRAFT = 0, 1, 2
# Hostile creatures, by kind index; a settings' slots hold its zombies first, then its skeletons.
CREATURES: tuple[str, ...] = ("zombie", "skeleton")
ZOMBIE, SKELETON = 0, 1


def creature_kinds(settings: CrafterSettings) -> np.ndarray:
    """Each creature slot's kind (empty with hostile creatures off): fixed by the settings."""
    return np.asarray([ZOMBIE] * settings.zombie_slots + [SKELETON] * settings.skeleton_slots, np.int32)


class CrafterState(NamedTuple):
    grid: Array  # (H, W) int32 Material
    plant_age: Array  # (H, W) int32 steps since a sapling was placed (0 elsewhere)
    pos: Array  # (A, 2) int32 (x, y)
    facing: Array  # (A,) int32 index into rules.MOVES (left, right, up, down)
    active: Array  # (A,) bool, False for padding seats
    alive: Array  # (A,) bool, health above 0
    sleeping: Array  # (A,) bool
    inventory: Array  # (A, NUM_ITEMS) int32
    vitals: Array  # (A, 4) int32 health, food, drink, energy
    counters: Array  # (A, 4) int32 progress toward each vital's next change (health: signed)
    score: Array  # () float32 team score
    step: Array  # () int32
    done: Array  # () bool
    result: Array  # (A,) int32 RESULTS index of each seat's own action last step
    att_kind: Array  # (A,) int32 NO_ATTEMPT | COLLECT | CRAFT
    att_target: Array  # (A,) int32 resource index (RESOURCES) or craft index (rules.CRAFTS order)
    att_cell: Array  # (A, 2) int32 the resource cell, or the station used (-1, -1 when none)
    att_capable: Array  # (A,) bool holds the tool (collect) / the ingredients (craft)
    att_member: Array  # (A,) bool a craft participant (station in reach); always True for collects
    att_leader: Array  # (A,) int32 the craft's leader, -1 when nothing was consumed
    share_to: Array  # (A,) int32 the seat a completed share went to, -1 when none
    share_item: Array  # (A,) int32 the Item shared
    # Hostile creatures: K = the settings' zombie + skeleton slots (0 when off: empty arrays).
    creature_pos: Array  # (K, 2) int32 (x, y), (-1, -1) for an empty slot
    creature_alive: Array  # (K,) bool the slot holds a creature
    creature_health: Array  # (K,) int32
    creature_cooldown: Array  # (K,) int32 steps until its next attack
    damage: Array  # (A,) int32 health each seat lost to creatures last step
    hit_kind: Array  # (A,) int32 the creature kind each seat's DO struck last step (-1 none)


def initial_state(scenario: Scenario) -> CrafterState:
    """The scenario's start as NumPy arrays: full vitals, empty bags, everyone facing down."""
    na, n = scenario.agent_capacity, scenario.num_agents
    cfg = scenario.settings
    pos = np.full((na, 2), -1, np.int32)
    pos[:n] = scenario.agents
    active = np.arange(na) < n
    vitals = np.zeros((na, len(Vital)), np.int32)
    vitals[:n] = cfg.vital_max
    return CrafterState(
        grid=scenario.grid_array(),
        plant_age=np.zeros((cfg.height, cfg.width), np.int32),
        pos=pos,
        facing=np.full(na, 3, np.int32),
        active=active,
        alive=active.copy(),
        sleeping=np.zeros(na, bool),
        inventory=np.zeros((na, NUM_ITEMS), np.int32),
        vitals=vitals,
        counters=np.zeros((na, len(Vital)), np.int32),
        score=np.float32(0),
        step=np.int32(0),
        done=np.bool_(False),
        result=np.zeros(na, np.int32),
        att_kind=np.zeros(na, np.int32),
        att_target=np.zeros(na, np.int32),
        att_cell=np.full((na, 2), -1, np.int32),
        att_capable=np.zeros(na, bool),
        att_member=np.zeros(na, bool),
        att_leader=np.full(na, -1, np.int32),
        share_to=np.full(na, -1, np.int32),
        share_item=np.zeros(na, np.int32),
        creature_pos=np.full((len(creature_kinds(cfg)), 2), -1, np.int32),
        creature_alive=np.zeros(len(creature_kinds(cfg)), bool),
        creature_health=np.zeros(len(creature_kinds(cfg)), np.int32),
        creature_cooldown=np.zeros(len(creature_kinds(cfg)), np.int32),
        damage=np.zeros(na, np.int32),
        hit_kind=np.full(na, -1, np.int32),
    )


__all__ = [
    "COLLECT",
    "CRAFT",
    "CREATURES",
    "NO_ATTEMPT",
    "RESOURCES",
    "RESULT",
    "RESULTS",
    "SKELETON",
    "ZOMBIE",
    "CrafterState",
    "creature_kinds",
    "initial_state",
]
