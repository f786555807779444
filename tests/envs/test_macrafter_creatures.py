"""MA-Crafter's hostile creatures on hand-made 9x9 worlds: spawning only when on, zombies chasing and
biting (harder on a sleeper, with a cooldown), skeletons shooting along clear lines, swords ordering
the agents' blows, kills as events, the batched step, and a creature-free world unchanged.

Coordinates are (x, y), y grows downwards; facing indexes rules.MOVES (left, right, up, down).
"""

from __future__ import annotations

import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.macrafter import Action, CrafterEnv, CrafterSettings, CrafterState, Item, Scenario, decode, make
from envs.macrafter.events import CrafterEventKind
from envs.macrafter.scenario import from_text
from envs.macrafter.settings import CreatureRules
from envs.macrafter.state import SKELETON, ZOMBIE

N, L, R, U, D, DO, SLEEP = Action.NOOP, Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN, Action.DO, Action.SLEEP
CAP = 2
QUIET = CreatureRules(
    max_zombies=2,
    max_skeletons=1,
    zombie_spawn_probability=0.0,
    skeleton_spawn_probability=0.0,
    zombie_move_probability=1.0,
    skeleton_move_probability=0.0,
    zombie_cooldown=3,
)
SETTINGS = CrafterSettings(horizon=30, sapling_probability=0.0, hostile_creatures=True, creatures=QUIET)


def world(*rows: str, settings: CrafterSettings = SETTINGS) -> Scenario:
    padded = [row.ljust(9, ".") for row in rows] + ["." * 9] * (9 - len(rows))
    return from_text("case", padded, settings, max_agents=CAP)


@pytest.fixture(scope="module")
def env() -> CrafterEnv:
    return CrafterEnv(world("0", ".1"))


def put(state: CrafterState, *creatures: tuple[int, tuple[int, int], int]) -> CrafterState:
    """Fill slots: (slot, (x, y), health); slots 0-1 are zombies, slot 2 a skeleton."""
    pos, alive, health = (
        np.asarray(a).copy() for a in (state.creature_pos, state.creature_alive, state.creature_health)
    )
    for slot, cell, hp in creatures:
        pos[slot], alive[slot], health[slot] = cell, True, hp
    return state._replace(
        creature_pos=jnp.asarray(pos), creature_alive=jnp.asarray(alive), creature_health=jnp.asarray(health)
    )


def step(env: CrafterEnv, state: CrafterState, *acts: int, t: int = 0) -> CrafterState:
    return env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(list(acts), jnp.int32)).state


def test_off_by_default_the_state_carries_no_creature_slots():
    state = make("easy_2a").reset(jax.random.PRNGKey(0))
    assert not CrafterSettings().hostile_creatures
    assert state.creature_alive.shape == (0,) and decode(make("easy_2a").settings, state).creatures == ()


def test_zombies_spawn_on_grass_and_skeletons_on_path_only_when_on():
    rules = QUIET.model_copy(update={"zombie_spawn_probability": 1.0, "skeleton_spawn_probability": 1.0})
    rows = ("0", "", "", "", "", "", "", "", "_________")
    on = CrafterSettings(horizon=30, hostile_creatures=True, creatures=rules)
    sc = world(*rows, settings=on)
    env = CrafterEnv(sc)
    state = env.state_for(sc)
    for t in range(40):
        state = step(env, state, N, N, t=t)
    view = decode(sc.settings, state)
    kinds = {c.kind for c in view.creatures}
    assert kinds == {"zombie", "skeleton"}
    for c in view.creatures:
        assert view.grid[c.position[1]][c.position[0]] == (0 if c.kind == "zombie" else 9)  # grass / path
        assert max(abs(c.position[0]), abs(c.position[1])) >= rules.spawn_min_distance or c.kind == "zombie"


def test_a_zombie_steps_toward_the_nearest_agent(env):
    sc = world("0")
    state = put(env.state_for(sc), (0, (4, 3), 5))
    for t in range(3):
        state = step(env, state, N, N, t=t)
    x, y = np.asarray(state.creature_pos[0])
    assert x + y == 7 - 3


def test_a_zombie_bites_beside_an_agent_harder_when_it_sleeps_then_cools_down(env):
    sc = world("0", ".1")
    start = put(env.state_for(sc), (0, (1, 0), 5))
    awake = step(env, start, N, N)
    assert int(awake.vitals[0, 0]) == 9 - QUIET.zombie_damage and int(awake.damage[0]) == QUIET.zombie_damage
    assert int(step(env, awake, N, N).vitals[0, 0]) == 9 - QUIET.zombie_damage  # cooling down
    asleep = step(env, start._replace(sleeping=jnp.asarray([True, False])), N, N)
    assert int(asleep.vitals[0, 0]) == max(9 - QUIET.zombie_sleep_damage, 0)
    assert not bool(asleep.sleeping[0])  # the bite woke it
    events = env.events(decode(sc.settings, start), [N, N], decode(sc.settings, awake))
    assert [(e.agent, e.kind, e.qty) for e in events] == [(0, CrafterEventKind.AGENT_DAMAGED, 2)]


def test_a_skeleton_shoots_along_a_clear_line_and_not_through_stone(env):
    sc = world("0..._", "", "", "", "....#_")
    clear = step(env, put(env.state_for(sc), (2, (4, 0), 3)), N, N)
    assert int(clear.vitals[0, 0]) == 9 - QUIET.skeleton_damage
    walled = world("0.#._")
    assert int(step(env, put(env.state_for(walled), (2, (4, 0), 3)), N, N).vitals[0, 0]) == 9


@pytest.mark.parametrize(("sword", "blow"), [(None, 1), ("wood_sword", 2), ("stone_sword", 3), ("iron_sword", 5)])
def test_swords_order_the_damage_of_a_blow(env, sword, blow):
    sc = world("0", ".1")
    state = put(env.state_for(sc), (0, (0, 1), 50))  # below seat 0, which faces down at the start
    if sword:
        state = state._replace(inventory=state.inventory.at[0, Item[sword.upper()]].set(1))
    after = step(env, state, DO, N)
    assert int(after.creature_health[0]) == 50 - blow
    assert decode(sc.settings, after).results[0] == "hit"


def test_enough_blows_kill_a_creature_and_the_events_say_so(env):
    sc = world("0", ".1")
    state = put(env.state_for(sc), (0, (0, 1), 3))
    state = state._replace(inventory=state.inventory.at[0, Item.WOOD_SWORD].set(1))
    views = [decode(sc.settings, state)]
    for t in range(2):
        state = step(env, state, DO, N, t=t)
        views.append(decode(sc.settings, state))
    kinds = [[e.kind for e in env.events(views[t], [DO, N], views[t + 1]) if e.agent == 0] for t in range(2)]
    assert CrafterEventKind.ATTACKED in kinds[0] and CrafterEventKind.CREATURE_KILLED in kinds[1]
    assert views[-1].creatures == () and not bool(state.creature_alive[0])
    assert views[1].struck[0] == "zombie"


def test_creatures_block_moves_and_placing(env):
    sc = world("0", ".1")
    state = put(env.state_for(sc), (0, (1, 0), 50))
    state = state._replace(inventory=state.inventory.at[0, Item.STONE].set(1))
    moved = step(env, state, R, N)
    assert tuple(np.asarray(moved.pos[0])) == (0, 0) and decode(sc.settings, moved).results[0] == "blocked"
    placed = step(env, moved, Action.PLACE_STONE, N)
    assert decode(sc.settings, placed).results[0] == "occupied" and int(placed.inventory[0, Item.STONE]) == 1


def test_the_batched_jitted_step_runs_with_creatures(env):
    sc = world("0", ".1")
    states = [put(env.state_for(sc), (0, (4, 4), 5)), put(env.state_for(sc), (1, (1, 0), 5), (2, (5, 5), 3))]
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    acts = jnp.asarray([[N, N], [N, N]], jnp.int32)
    out = env.step_batch(keys, batch, acts).state
    for i, single in enumerate(states):
        alone = env.jit_step(keys[i], single, acts[i]).state
        assert all(np.array_equal(np.asarray(a)[i], np.asarray(b)) for a, b in zip(out, alone, strict=True))
    assert int(out.vitals[1, 0, 0]) == 9 - QUIET.zombie_damage


def test_kinds_fill_the_slots_zombies_first():
    from envs.macrafter.state import creature_kinds

    assert list(creature_kinds(SETTINGS)) == [ZOMBIE, ZOMBIE, SKELETON]
    assert list(creature_kinds(SETTINGS.model_copy(update={"hostile_creatures": False}))) == []


# Digests of 40-step rollouts (random actions, keys 0..39) taken before hostile creatures existed:
# with the flag off every state field the env had then, and every reward, must stay bit-identical.
OLD_FIELDS = [
    "grid",
    "plant_age",
    "pos",
    "facing",
    "active",
    "alive",
    "sleeping",
    "inventory",
    "vitals",
    "counters",
    "score",
    "step",
    "done",
    "result",
    "att_kind",
    "att_target",
    "att_cell",
    "att_capable",
    "att_member",
    "att_leader",
    "share_to",
    "share_item",
]
BEFORE = {
    "easy_2a": "881ed4c80412d9253ede162810fc67e5953579880fed8a4626b632aaca74b26c",
    "random:easy:1": "5ed5a8d473b3a0a848928d6ed07265ad02e190469dea0d265dec89b636ac14f7",
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_with_the_flag_off_trajectories_are_unchanged(name):
    env = make(name)
    rng = np.random.default_rng(0)
    state = env.reset(jax.random.PRNGKey(0))
    digest = hashlib.sha256()
    for t in range(40):
        acts = rng.integers(0, 17, size=state.pos.shape[0]).astype(np.int32)
        tr = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(acts))
        state = tr.state
        fields = state._asdict()
        for f in OLD_FIELDS:
            digest.update(np.asarray(fields[f]).tobytes())
        digest.update(np.asarray(tr.reward).tobytes())
    assert digest.hexdigest() == BEFORE[name]
