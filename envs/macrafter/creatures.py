"""Hostile creatures (Crafter's zombies and skeletons) for MA-Crafter, pure JAX over fixed slots.

Only `envs.macrafter.env` calls these, and only when ``settings.hostile_creatures`` is on, so a
world without creatures neither draws random numbers nor changes any state here. The slots are
fixed-size arrays (the settings' ``max_zombies`` zombies, then ``max_skeletons`` skeletons) with an
``alive`` mask, so the step keeps static shapes under jit and vmap.

One creature phase, after the agents acted: creatures move (a zombie toward the nearest live agent
within ``chase_distance``, else it wanders; a skeleton wanders along path cells), then attack (a
zombie beside an agent hits it, harder when it sleeps; a skeleton shoots the first agent along a
clear row or column within ``skeleton_reach``, an instant arrow), each with a cooldown; then one
spawn try per kind on a random cell (grass for zombies, path for skeletons) at a Chebyshev distance
from the nearest live agent between ``spawn_min_distance`` and ``spawn_max_distance``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from envs.macrafter.dynamics import Tables, material_at, move
from envs.macrafter.phases import Acted
from envs.macrafter.rules import Action, Item, Material, Vital
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import RESULT, SKELETON, ZOMBIE, creature_kinds

_FAR = 1 << 20  # a distance larger than any world


class Creatures(NamedTuple):
    """The creature slots (state fields ``creature_*``)."""

    pos: jax.Array  # (K, 2) int32
    alive: jax.Array  # (K,) bool
    health: jax.Array  # (K,) int32
    cooldown: jax.Array  # (K,) int32


class Strikes(NamedTuple):
    """What the agents' DO did to the creatures this step."""

    creatures: Creatures
    striking: jax.Array  # (A,) bool the seat's DO hit a creature (its DO does nothing else)
    killed: jax.Array  # (A,) bool the creature it hit died this step
    hit_kind: jax.Array  # (A,) int32 that creature's kind, -1 when none


def weapon_damage(cfg: CrafterSettings, inventory: jax.Array) -> jax.Array:
    """Each agent's blow: its best sword's damage (bare hands without one)."""
    c = cfg.creatures
    return jnp.where(
        inventory[:, Item.IRON_SWORD] > 0,
        c.iron_sword_damage,
        jnp.where(
            inventory[:, Item.STONE_SWORD] > 0,
            c.stone_sword_damage,
            jnp.where(inventory[:, Item.WOOD_SWORD] > 0, c.wood_sword_damage, c.hand_damage),
        ),
    ).astype(jnp.int32)


def occupant(cr: Creatures, cells: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(a live creature stands on each cell, the lowest such slot) for cells (..., 2)."""
    same = cr.alive & jnp.all(cells[..., None, :] == cr.pos, axis=-1)  # (..., K)
    return jnp.any(same, axis=-1), jnp.argmax(same, axis=-1)


def strike(
    t: Tables,
    cfg: CrafterSettings,
    cr: Creatures,
    pos: jax.Array,
    facing: jax.Array,
    live: jax.Array,
    acts: jax.Array,
    inventory: jax.Array,
) -> Strikes:
    """DO on a faced creature hits it for the agent's weapon damage (blows of one step add up); a
    creature at 0 health dies, and every agent that hit it this step is credited with the kill."""
    faced = pos + jnp.asarray(t.vec)[facing]
    there, slot = occupant(cr, faced)
    striking = live & (acts == Action.DO) & there
    blows = jnp.where(striking, weapon_damage(cfg, inventory), 0)
    per_slot = jax.ops.segment_sum(blows, jnp.where(striking, slot, cr.alive.shape[0]), cr.alive.shape[0] + 1)[:-1]
    health = cr.health - per_slot
    died = cr.alive & (per_slot > 0) & (health <= 0)
    kinds = jnp.asarray(creature_kinds(cfg))
    return Strikes(
        creatures=cr._replace(alive=cr.alive & ~died, health=jnp.maximum(health, 0)),
        striking=striking,
        killed=striking & died[slot],
        hit_kind=jnp.where(striking, kinds[slot], -1).astype(jnp.int32),
    )


def _nearest(cr: Creatures, pos: jax.Array, live: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(Manhattan distance to the nearest live agent, that agent) per creature."""
    gap = jnp.abs(cr.pos[:, None, :] - pos[None, :, :]).sum(-1)
    gap = jnp.where(live[None, :], gap, _FAR)
    return jnp.min(gap, axis=1), jnp.argmin(gap, axis=1)


def move_creatures(
    t: Tables, cfg: CrafterSettings, key: jax.Array, grid: jax.Array, cr: Creatures, pos: jax.Array, live: jax.Array
) -> Creatures:
    """One step per moving creature, in slot order, onto a free cell it may stand on (a zombie:
    any walkable cell; a skeleton: path only); a zombie beside an agent stays to attack."""
    c = cfg.creatures
    kinds = jnp.asarray(creature_kinds(cfg))
    k_go, k_dir = jax.random.split(key)
    k = kinds.shape[0]
    dist, target = _nearest(cr, pos, live)
    chase = (kinds == ZOMBIE) & (dist > 1) & (dist <= c.chase_distance)
    prob = jnp.where(kinds == ZOMBIE, c.zombie_move_probability, c.skeleton_move_probability)
    moving = cr.alive & (jax.random.uniform(k_go, (k,)) < prob) & ~((kinds == ZOMBIE) & (dist <= 1))
    vec = jnp.asarray(t.vec)
    wander = vec[jax.random.randint(k_dir, (k,), 0, 4)]
    d = pos[target] - cr.pos
    toward = jnp.where(
        (jnp.abs(d[:, 0]) >= jnp.abs(d[:, 1]))[:, None], d * jnp.asarray([1, 0]), d * jnp.asarray([0, 1])
    )
    step = jnp.where(chase[:, None], jnp.sign(toward), wander) * moving[:, None]
    walk = jnp.asarray(t.walkable)

    def one(i: jax.Array, cells: jax.Array) -> jax.Array:
        cell = cells[i] + step[i]
        m, inb = material_at(grid, cell[0], cell[1])
        stands = jnp.where(kinds[i] == SKELETON, m == Material.PATH, walk[jnp.maximum(m, 0)])
        agent = jnp.any(live & jnp.all(pos == cell, axis=-1))
        other = jnp.any(cr.alive & jnp.all(cells == cell, axis=-1))
        ok = moving[i] & inb & stands & ~agent & ~other
        return cells.at[i].set(jnp.where(ok, cell, cells[i]))

    return cr._replace(pos=jax.lax.fori_loop(0, k, one, cr.pos))


def _arrow_targets(
    t: Tables, cfg: CrafterSettings, grid: jax.Array, cr: Creatures, pos: jax.Array, live: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(a clear shot, the agent it hits) per creature: the first live agent along one of the four
    lines within ``skeleton_reach``, every cell before it walkable (directions in facing order)."""
    reach = cfg.creatures.skeleton_reach
    vec = jnp.asarray(t.vec)  # (4, 2)
    steps = jnp.arange(1, reach + 1)
    cells = cr.pos[:, None, None, :] + vec[None, :, None, :] * steps[None, None, :, None]  # (K, 4, R, 2)
    m, inb = material_at(grid, cells[..., 0], cells[..., 1])
    clear = inb & jnp.asarray(t.walkable)[jnp.maximum(m, 0)]
    at = live & jnp.all(cells[..., None, :] == pos, axis=-1)  # (K, 4, R, A)
    has = jnp.any(at, axis=-1)
    open_before = jnp.cumprod(jnp.concatenate([jnp.ones_like(clear[..., :1]), clear[..., :-1]], axis=-1), axis=-1)
    open_before = open_before.astype(bool) & ~(jnp.cumsum(has, axis=-1) - has > 0)
    hit = has & open_before  # (K, 4, R): at most one per line
    agent = jnp.argmax(at, axis=-1)  # (K, 4, R)
    flat_hit = hit.reshape(hit.shape[0], -1)
    first = jnp.argmax(flat_hit, axis=-1)
    return jnp.any(flat_hit, axis=-1), agent.reshape(hit.shape[0], -1)[jnp.arange(hit.shape[0]), first]


def attack(
    t: Tables,
    cfg: CrafterSettings,
    grid: jax.Array,
    cr: Creatures,
    pos: jax.Array,
    live: jax.Array,
    sleeping: jax.Array,
) -> tuple[Creatures, jax.Array]:
    """Ready creatures attack: a zombie the lowest live seat beside it (``zombie_sleep_damage`` on
    a sleeper), a skeleton the agent its arrow reaches; each attack restarts its cooldown.
    Returns (creatures, health each agent loses)."""
    c = cfg.creatures
    kinds = jnp.asarray(creature_kinds(cfg))
    na = pos.shape[0]
    beside = live & (jnp.abs(cr.pos[:, None, :] - pos[None, :, :]).sum(-1) == 1)  # (K, A)
    shot, shot_at = _arrow_targets(t, cfg, grid, cr, pos, live)
    is_zombie = kinds == ZOMBIE
    sees = jnp.where(is_zombie, jnp.any(beside, axis=1), shot)
    victim = jnp.where(is_zombie, jnp.argmax(beside, axis=1), shot_at)
    fires = cr.alive & sees & (cr.cooldown <= 0)
    blow = jnp.where(is_zombie, jnp.where(sleeping[victim], c.zombie_sleep_damage, c.zombie_damage), c.skeleton_damage)
    damage = jax.ops.segment_sum(jnp.where(fires, blow, 0), jnp.where(fires, victim, na), na + 1)[:-1]
    rest = jnp.where(is_zombie, c.zombie_cooldown, c.skeleton_cooldown)
    cooldown = jnp.where(fires, rest, jnp.maximum(cr.cooldown - 1, 0))
    return cr._replace(cooldown=cooldown.astype(jnp.int32)), damage.astype(jnp.int32)


def spawn(
    cfg: CrafterSettings, key: jax.Array, grid: jax.Array, cr: Creatures, pos: jax.Array, live: jax.Array
) -> Creatures:
    """One try per kind: a random cell of the kind's ground (grass for zombies, path for
    skeletons), free of agents and creatures, within the spawn distances of the nearest live agent,
    taken with the kind's spawn probability into its first empty slot."""
    c = cfg.creatures
    kinds = jnp.asarray(creature_kinds(cfg))
    h, w = grid.shape
    for kind, ground, prob, health in (
        (ZOMBIE, Material.GRASS, c.zombie_spawn_probability, c.zombie_health),
        (SKELETON, Material.PATH, c.skeleton_spawn_probability, c.skeleton_health),
    ):
        key, k_cell, k_luck = jax.random.split(key, 3)
        cell = jax.random.randint(k_cell, (2,), 0, jnp.asarray([w, h]))
        gap = jnp.max(jnp.abs(pos - cell), axis=-1)
        near = jnp.min(jnp.where(live, gap, _FAR))
        taken, _ = occupant(cr, cell)
        free = (kinds == kind) & ~cr.alive
        ok = (
            (grid[cell[1], cell[0]] == ground)
            & (near >= c.spawn_min_distance)
            & (near <= c.spawn_max_distance)
            & ~taken
            & jnp.any(free)
            & (jax.random.uniform(k_luck) < prob)
        )
        slot = (jnp.arange(kinds.shape[0]) == jnp.argmax(free)) & ok
        cr = Creatures(
            pos=jnp.where(slot[:, None], cell, cr.pos),
            alive=cr.alive | slot,
            health=jnp.where(slot, health, cr.health),
            cooldown=jnp.where(slot, 0, cr.cooldown),
        )
    return cr


def creatures_act(
    t: Tables,
    cfg: CrafterSettings,
    key: jax.Array,
    grid: jax.Array,
    cr: Creatures,
    pos: jax.Array,
    live: jax.Array,
    sleeping: jax.Array,
) -> tuple[Creatures, jax.Array]:
    """The creature phase (move, attack, spawn): returns (creatures, health each agent loses)."""
    k_move, k_spawn = jax.random.split(key)
    cr = move_creatures(t, cfg, k_move, grid, cr, pos, live)
    cr, damage = attack(t, cfg, grid, cr, pos, live, sleeping)
    return spawn(cfg, k_spawn, grid, cr, pos, live), damage


class Engaged(NamedTuple):
    """The agents' moves and blows against the creatures (the env's steps 3-4 with creatures on)."""

    pos: jax.Array
    facing: jax.Array
    moved: jax.Array
    strikes: Strikes
    crowded: jax.Array  # (A,) a PLACE_* whose faced cell holds a creature (it fails as occupied)
    acting: jax.Array  # (A,) the actions left for DO and PLACE_* (NOOP for blows and crowded places)


def engage(
    t: Tables,
    cfg: CrafterSettings,
    grid: jax.Array,
    cr: Creatures,
    pos: jax.Array,
    facing: jax.Array,
    live: jax.Array,
    acts: jax.Array,
    inventory: jax.Array,
) -> Engaged:
    """Moves that creatures block, then the blows of DO on faced creatures; what remains of DO and
    PLACE_* is left to the usual phases."""
    pos, facing, moved = move(t, grid, pos, facing, live, acts, jnp.where(cr.alive[:, None], cr.pos, -1))
    strikes = strike(t, cfg, cr, pos, facing, live, acts, inventory)
    faced, _ = occupant(cr, pos + jnp.asarray(t.vec)[facing])
    crowded = (acts >= Action.PLACE_STONE) & (acts <= Action.PLACE_PLANT) & faced
    acting = jnp.where(strikes.striking | crowded, int(Action.NOOP), acts)
    return Engaged(pos, facing, moved, strikes, crowded, acting)


def after_agents(
    t: Tables,
    cfg: CrafterSettings,
    key: jax.Array,
    acted: Acted,
    engaged: Engaged,
    live: jax.Array,
    sleeping: jax.Array,
) -> tuple[Acted, Creatures, jax.Array, jax.Array]:
    """The creature phase on what the agents did: the health it costs them (a blow wakes a
    sleeper) and the blows' results. Returns (acted, creatures, damage, sleeping)."""
    strikes = engaged.strikes
    cr, damage = creatures_act(t, cfg, key, acted.grid, strikes.creatures, engaged.pos, live, sleeping)
    health = jnp.maximum(acted.vitals[:, Vital.HEALTH] - damage, 0)
    hit = jnp.where(strikes.killed, RESULT["kill"], RESULT["hit"])
    result = jnp.where(strikes.striking, hit, jnp.where(engaged.crowded, RESULT["occupied"], acted.result))
    acted = acted._replace(vitals=acted.vitals.at[:, Vital.HEALTH].set(health), result=result.astype(jnp.int32))
    return acted, cr, damage, sleeping & (damage == 0)


__all__ = [
    "Creatures",
    "Engaged",
    "Strikes",
    "after_agents",
    "attack",
    "creatures_act",
    "engage",
    "move_creatures",
    "occupant",
    "spawn",
    "strike",
    "weapon_damage",
]
