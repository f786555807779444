"""EmCoop's MA-Crafter step, one rule per test on hand-made 9x9 maps, in the NumPy reference and
in the JAX env alike: every step a test takes runs through both (`step`), which must agree on every
world field, and the test then checks the exact outcome EmCoop's code gives.

Each test builds a tiny world with ``populate`` (cows are created first, then the seats), edits
fields with ``_replace`` and checks the exact outcome EmCoop's code gives (``coop_env.py``,
``env.py``, ``objects.py``, ``engine.py``). Coordinates are (x, y) with ``grid[y, x]``; facing
indexes rules.MOVES (0 left, 1 right, 2 up, 3 down). Draws default to "nothing random happens".
"""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

from envs.macrafter.draws import StepDraws, threshold
from envs.macrafter.reference import reference_step
from envs.macrafter.reference_balance import daylight
from envs.macrafter.rules import Achievement, Action, Item, Material, Vital, share_action
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import CrafterState, populate, reach_offsets
from envs.macrafter.step import CrafterStep

N, L, R, U, D, DO, SLEEP = Action.NOOP, Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN, Action.DO, Action.SLEEP
S = CrafterSettings(width=9, height=9, cow_capacity=4)
NEVER = 2**32 - 1  # a draw that meets no probability below 1


def world(
    agents: list[tuple[int, int]],
    cells: dict[tuple[int, int], Material] | None = None,
    cows: list[tuple[int, int]] | None = None,
    settings: CrafterSettings = S,
    capacity: int | None = None,
) -> CrafterState:
    """A grass map with ``cells`` drawn in, the cows, then the seats (full vitals, facing down)."""
    grid = np.full((settings.height, settings.width), int(Material.GRASS), np.int32)
    for (x, y), material in (cells or {}).items():
        grid[y, x] = material
    state = populate(
        settings,
        capacity or len(agents),
        grid,
        np.asarray(agents, np.int32).reshape(-1, 2),
        np.asarray(cows or [], np.int32).reshape(-1, 2),
    )
    # Every active seat's four vitals full, built here as (A, 4) whatever shape populate returns.
    vitals = np.zeros((len(state.active), len(Vital)), np.int32)
    vitals[state.active] = settings.vital_max
    return state._replace(vitals=vitals, last_health=vitals[:, Vital.HEALTH].copy())


def give(state: CrafterState, seat: int, **goods: int) -> CrafterState:
    """Set a seat's bag items and vitals (``wood=2``, ``energy=5``)."""
    inventory, vitals = state.inventory.copy(), state.vitals.copy()
    for name, count in goods.items():
        if name.upper() in Vital.__members__:
            vitals[seat, Vital[name.upper()]] = count
        else:
            inventory[seat, Item[name.upper()]] = count
    return state._replace(inventory=inventory, vitals=vitals, last_health=vitals[:, Vital.HEALTH].copy())


def quiet(settings: CrafterSettings = S) -> StepDraws:
    """Draws under which no cow moves and no chunk spawns or despawns."""
    c, nc = settings.cow_capacity, math.prod(settings.chunks)
    return StepDraws(
        cow_move=np.full(c, NEVER, np.uint32),
        cow_dir=np.zeros(c, np.uint32),
        chunk_roll=np.full(nc, NEVER, np.uint32),
        chunk_pick=np.zeros(nc, np.uint32),
    )


WORLD_FIELDS = (
    "grid", "pos", "facing", "removed", "sleeping", "inventory", "vitals", "counters", "last_health",
    "achievements", "cow_pos", "cow_alive", "order", "next_order", "touched", "score", "score_units",
    "step", "done", "do_pos", "do_tools", "tgt_res", "share_to", "share_good", "share_qty",
)  # fmt: skip
_JAX_STEPS: dict[str, object] = {}  # one compiled JAX step per settings, shared by the tests


def jax_step(settings: CrafterSettings):
    key = settings.model_dump_json()
    if key not in _JAX_STEPS:
        _JAX_STEPS[key] = jax.jit(CrafterStep(settings).advance)
    return _JAX_STEPS[key]


def _reset_order(state: CrafterState) -> bool:
    """Whether the seats were created in seat order, as EmCoop's reset creates them (the JAX step
    relies on it; the reference takes any order, which some tests use to show the rule)."""
    seats = [int(o) for o in np.asarray(state.order)[: len(state.active)] if o >= 0]
    return seats == sorted(seats) and seats == list(range(seats[0], seats[0] + len(seats))) if seats else True


def step(
    state: CrafterState, *actions: int, settings: CrafterSettings = S, draws: StepDraws | None = None
) -> tuple[CrafterState, float]:
    """The reference's step, checked field by field against the JAX env's on the same draws."""
    draws = draws or quiet(settings)
    acts = np.asarray(actions, np.int32)
    new, reward = reference_step(settings, state, acts, draws)
    if not bool(state.done) and all(rule.quorum == 1 for rule in settings.recipes.values()) and _reset_order(state):
        got = jax_step(settings)(state, acts, draws)
        for name in WORLD_FIELDS:
            mine, theirs = np.asarray(getattr(got, name)), np.asarray(getattr(new, name))
            assert np.array_equal(mine, theirs), f"JAX and reference differ on {name}:\n{mine}\nvs\n{theirs}"
    return new, reward


def run(state: CrafterState, steps: int, *actions: int) -> list[CrafterState]:
    """The states after each of ``steps`` steps of the same actions."""
    states = []
    for _ in range(steps):
        state, _ = step(state, *actions)
        states.append(state)
    return states


def cell(state: CrafterState, x: int, y: int) -> Material:
    return Material(int(state.grid[y, x]))


# --- collection (coop_env._process_cooperative_collections) ---------------------------------------


def test_do_collects_every_resource_within_reach_without_facing() -> None:
    trees = {(3, 4): Material.TREE, (4, 3): Material.TREE, (6, 4): Material.TREE}
    new, reward = step(world([(4, 4)], trees), DO)  # facing down, trees left and up: both taken
    assert new.inventory[0, Item.WOOD] == 2 and new.achievements[0, Achievement.COLLECT_WOOD] == 2
    assert cell(new, 3, 4) == cell(new, 4, 3) == Material.GRASS
    assert cell(new, 6, 4) == Material.TREE  # Manhattan 2 > collect_distance 1
    assert reward == 2.0 and new.score == 2.0 and new.score_units.tolist() == [2, 0, 0, 0, 0]
    far = S.model_copy(update={"collect_distance": 2})
    new, reward = reference_step(far, world([(4, 4)], trees, settings=far), np.array([DO]), quiet(far))
    assert new.inventory[0, Item.WOOD] == 3 and reward == 3.0


def test_tree_leaves_grass_and_stone_leaves_path() -> None:
    state = give(world([(4, 4)], {(5, 4): Material.STONE, (3, 4): Material.TREE}), 0, wood_pickaxe=1)
    new, reward = step(state, DO)
    assert cell(new, 5, 4) == Material.PATH and cell(new, 3, 4) == Material.GRASS
    assert new.inventory[0, Item.STONE] == 1 and new.achievements[0, Achievement.COLLECT_STONE] == 1
    assert reward == 15.0 + 1.0 and new.score_units.tolist() == [1, 1, 0, 0, 0]


def test_water_stays_water_and_gives_drink() -> None:
    new, reward = step(give(world([(4, 4)], {(4, 5): Material.WATER}), 0, drink=5), DO)
    assert cell(new, 4, 5) == Material.WATER
    assert new.vitals[0, Vital.DRINK] == 6 and new.achievements[0, Achievement.COLLECT_DRINK] == 1
    assert reward == 0.0 and new.score_units.sum() == 0


def test_cow_within_reach_is_removed_and_gives_six_food() -> None:
    state = give(world([(4, 4)], cows=[(5, 4), (7, 7)]), 0, food=2)
    new, reward = step(state, DO)
    assert new.cow_alive.tolist() == [False, True, False, False]
    assert new.cow_pos[0].tolist() == [-1, -1] and new.order[1] == -1  # the slot is empty again
    assert new.vitals[0, Vital.FOOD] == 8 and new.achievements[0, Achievement.EAT_COW] == 1
    assert reward == 0.0
    assert new.tgt_res[0].tolist() == [6 if (dx, dy) == (1, 0) else -1 for dx, dy in reach_offsets(1).tolist()]


def test_quorum_met_and_not_met() -> None:
    state = give(give(world([(4, 4), (6, 4)], {(5, 4): Material.COAL}), 0, wood_pickaxe=1), 1, wood_pickaxe=1)
    alone, reward = step(state, DO, N)
    assert cell(alone, 5, 4) == Material.COAL and alone.inventory[:, Item.COAL].sum() == 0 and reward == 0.0
    no_tool, _ = step(give(state, 1, wood_pickaxe=0), DO, DO)  # two reach it, one holds the tool
    assert cell(no_tool, 5, 4) == Material.COAL
    both, reward = step(state, DO, DO)
    assert cell(both, 5, 4) == Material.PATH and both.inventory[:, Item.COAL].tolist() == [1, 1]
    assert reward == 150.0 and both.score_units.tolist() == [0, 0, 2, 0, 0]  # 25 * 2 * 1.5, twice


@pytest.mark.parametrize(
    ("material", "tool", "item", "score"),
    [(Material.IRON, "stone_pickaxe", Item.IRON, 450.0), (Material.DIAMOND, "iron_pickaxe", Item.DIAMOND, 1800.0)],
)
def test_three_agents_score_the_unit_value_once_each(material: Material, tool: str, item: Item, score: float) -> None:
    state = world([(3, 4), (5, 4), (4, 5)], {(4, 4): material})
    for seat in range(3):
        state = give(state, seat, **{tool: 1})
    two, _ = step(state, DO, DO, N)
    assert cell(two, 4, 4) == material
    new, reward = step(state, DO, DO, DO)
    assert cell(new, 4, 4) == Material.PATH and new.inventory[:, item].tolist() == [1, 1, 1]
    assert reward == score and new.score_units[int(item)] == 3


def test_the_exact_tool_is_needed() -> None:
    state = give(world([(4, 4)], {(5, 4): Material.STONE}), 0, stone_pickaxe=1)
    new, _ = step(state, DO)  # a stone pickaxe without a wood pickaxe does not mine stone
    assert cell(new, 5, 4) == Material.STONE and new.inventory[0, Item.STONE] == 0
    assert new.tgt_res[0].tolist().count(1) == 1 and new.do_tools[0].tolist() == [False, True, False]


def test_grass_gives_no_sapling() -> None:
    state = world([(4, 4)])
    new, _ = step(state, DO)
    assert new.inventory.sum() == 0 and new.achievements.sum() == 0
    assert (new.grid == state.grid).all() and (new.tgt_res == -1).all()


def test_a_sleeper_collects_too() -> None:
    state = give(world([(4, 4)], {(5, 4): Material.TREE}), 0, energy=3)._replace(sleeping=np.array([True]))
    new, _ = step(state, DO)
    assert new.inventory[0, Item.WOOD] == 1 and new.sleeping[0]


# --- shares (coop_env._execute_shares) -------------------------------------------------------------


def test_a_share_runs_before_crafting() -> None:
    state = give(world([(8, 8), (4, 4)], {(5, 4): Material.TABLE}), 0, wood=1)
    new, _ = step(state, share_action(1, "wood"), Action.MAKE_WOOD_PICKAXE)
    assert new.inventory[1, Item.WOOD_PICKAXE] == 1 and new.inventory[:, Item.WOOD].tolist() == [0, 0]
    assert new.share_to.tolist() == [1, -1] and new.share_qty.tolist() == [1, 0]
    assert new.share_good[0] == Item.WOOD


def test_a_share_hands_over_its_quantity_at_once_at_any_distance() -> None:
    state = give(give(world([(0, 0), (8, 8)]), 0, stone=7), 1, stone=3)
    new, _ = step(state, share_action(1, Item.STONE, 5), N)
    assert new.inventory[:, Item.STONE].tolist() == [2, 8] and new.share_qty[0] == 5


def test_a_share_of_more_than_held_hands_over_what_is_held() -> None:
    state = give(give(world([(0, 0), (8, 8)]), 0, stone=7), 1, stone=3)
    new, _ = step(state, share_action(1, Item.STONE, 20), N)
    assert new.inventory[:, Item.STONE].tolist() == [0, 10] and new.share_qty[0] == 7


@pytest.mark.parametrize("good", ["food", "drink", "energy"])
def test_food_drink_and_energy_can_be_shared(good: str) -> None:
    state = give(give(world([(0, 0), (8, 8)]), 0, **{good: 4}), 1, **{good: 3})
    new, _ = step(state, share_action(1, good, 4), N)
    assert new.vitals[:, Vital[good.upper()]].tolist() == [0, 7]


def test_the_bag_cap_is_applied_at_the_receivers_update() -> None:
    state = give(give(world([(0, 0), (8, 8)]), 0, wood=10, energy=5), 1, wood=15, energy=8)
    new, _ = step(state, share_action(1, "wood", 10), N)
    assert new.inventory[:, Item.WOOD].tolist() == [0, 20]
    new, _ = step(state, share_action(1, "energy", 5), N)
    assert new.vitals[:, Vital.ENERGY].tolist() == [0, 9]


def test_a_share_of_nothing_to_oneself_or_to_a_removed_seat_moves_nothing() -> None:
    state = give(world([(0, 0), (8, 8)]), 0, wood=2)
    for acts in [(share_action(1, "stone"), N), (share_action(0, "wood"), N), (share_action(5, "wood"), N)]:
        new, _ = step(state, *acts)
        assert new.inventory[:, Item.WOOD].tolist() == [2, 0] and new.share_to[0] == -1
    new, _ = step(state._replace(removed=np.array([False, True])), share_action(1, "wood"), N)
    assert new.inventory[:, Item.WOOD].tolist() == [2, 0]


# --- the update order (engine.World.objects: creation order) ---------------------------------------


def test_an_earlier_seat_places_a_table_where_a_later_seat_moves() -> None:
    state = give(world([(3, 4), (5, 4)]), 0, wood=2)._replace(facing=np.array([1, 3], np.int32))
    new, _ = step(state, Action.PLACE_TABLE, L)
    assert cell(new, 4, 4) == Material.TABLE and new.pos[1].tolist() == [5, 4] and new.facing[1] == 0
    first = state._replace(order=np.array([1, 0, -1, -1, -1, -1], np.int32))  # seat 1 created first
    new, _ = step(first, Action.PLACE_TABLE, L)
    assert cell(new, 4, 4) == Material.GRASS and new.pos[1].tolist() == [4, 4]
    assert new.inventory[0, Item.WOOD] == 2


def test_cows_created_first_update_before_seats() -> None:
    state = world([(4, 4)], cows=[(5, 4)])  # the cow was created first (worldgen)
    draws = quiet()._replace(cow_move=np.zeros(4, np.uint32), cow_dir=np.full(4, 1, np.uint32))
    new, _ = step(state, R, draws=draws)
    assert new.cow_pos[0].tolist() == [6, 4] and new.pos[0].tolist() == [5, 4]
    later = state._replace(order=np.array([0, 1, -1, -1, -1], np.int32))  # the cow came after the seat
    new, _ = step(later, R, draws=draws)
    assert new.cow_pos[0].tolist() == [6, 4] and new.pos[0].tolist() == [4, 4]


@pytest.mark.parametrize(
    ("direction", "blocker", "expected"),
    [
        (0, None, (3, 4)),
        (1, None, (5, 4)),
        (2, None, (4, 3)),
        (3, None, (4, 5)),
        (1, "agent", (4, 4)),
        (1, Material.TREE, (4, 4)),
        (1, Material.WATER, (4, 4)),
        (1, Material.LAVA, (4, 4)),
        (1, Material.SAND, (5, 4)),
        (1, Material.PATH, (5, 4)),
    ],
)
def test_cow_random_walk(direction: int, blocker: Material | str | None, expected: tuple[int, int]) -> None:
    agents = [(5, 4)] if blocker == "agent" else [(0, 0)]
    cells = {(5, 4): blocker} if isinstance(blocker, Material) else {}
    state = world(agents, cells, cows=[(4, 4)])
    moves = quiet()._replace(
        cow_move=np.full(4, threshold(0.5) - 1, np.uint32), cow_dir=np.full(4, direction + 4, np.uint32)
    )
    new, _ = step(state, N, draws=moves)
    assert tuple(new.cow_pos[0].tolist()) == expected
    stays = moves._replace(cow_move=np.full(4, threshold(0.5), np.uint32))
    assert step(state, N, draws=stays)[0].cow_pos[0].tolist() == [4, 4]


def test_a_cow_cannot_leave_the_map() -> None:
    draws = quiet()._replace(cow_move=np.zeros(4, np.uint32), cow_dir=np.zeros(4, np.uint32))
    new, _ = step(world([(4, 4)], cows=[(0, 3)]), N, draws=draws)
    assert new.cow_pos[0].tolist() == [0, 3]


# --- moves, lava and removal (Player._move, env.step_one_player) -----------------------------------


def test_moves_need_a_walkable_free_cell() -> None:
    state = world([(4, 4), (4, 5)], {(3, 4): Material.TREE, (4, 3): Material.TABLE})
    for action, facing in [(L, 0), (U, 2), (D, 3)]:
        new, _ = step(state, action, N)
        assert new.pos[0].tolist() == [4, 4] and new.facing[0] == facing
    new, _ = step(world([(0, 0)]), L)
    assert new.pos[0].tolist() == [0, 0] and new.facing[0] == 0


def test_lava_is_walkable_kills_and_the_seat_leaves_at_the_next_step() -> None:
    state = world([(4, 4), (0, 0)], {(5, 4): Material.LAVA})
    dead, _ = step(state, R, N)
    assert dead.pos[0].tolist() == [5, 4] and dead.vitals[0, Vital.HEALTH] == 0
    assert not dead.removed[0] and not dead.done
    gone, _ = step(dead, N, N)
    assert gone.removed.tolist() == [True, False] and gone.done
    assert (gone.counters[0] == dead.counters[0]).all()  # a removed seat no longer updates
    kept, _ = step(dead, DO, N)  # a DO seat skips step_one_player's removal
    assert not kept.removed[0] and not kept.done


def test_a_lava_death_is_undone_when_the_same_update_regenerates() -> None:
    state = world([(4, 4)], {(5, 4): Material.LAVA})._replace(counters=np.array([[0, 0, 0, 50]], np.int32))
    new, _ = step(state, R)  # health 0, then recover passes 25 in the same update: health 1
    assert new.pos[0].tolist() == [5, 4] and new.vitals[0, Vital.HEALTH] == 1
    assert not step(new, N)[0].removed[0]


def test_a_removed_seat_neither_acts_nor_blocks() -> None:
    state = world([(4, 4), (5, 4)])._replace(removed=np.array([False, True]))
    new, _ = step(state, R, L)
    assert new.pos.tolist() == [[5, 4], [5, 4]] and new.last_action.tolist() == [R, N]


# --- sleep (Player.update) ------------------------------------------------------------------------


def test_sleep_only_below_full_energy() -> None:
    assert not step(world([(4, 4)]), SLEEP)[0].sleeping[0]
    assert step(give(world([(4, 4)]), 0, energy=5), SLEEP)[0].sleeping[0]


def test_a_sleeper_ignores_its_actions_until_rested_then_wakes_and_acts() -> None:
    state = give(world([(4, 4)]), 0, energy=8)._replace(sleeping=np.array([True]))
    state = state._replace(counters=np.array([[0, 0, -20, 0]], np.int32))  # fatigue -10: rested next step
    rested, _ = step(state, R)
    assert rested.pos[0].tolist() == [4, 4] and rested.sleeping[0] and rested.vitals[0, Vital.ENERGY] == 9
    awake, _ = step(rested, R)
    assert awake.pos[0].tolist() == [5, 4] and not awake.sleeping[0]
    assert awake.achievements[0, Achievement.WAKE_UP] == 1


def test_a_sleeper_wakes_when_hurt() -> None:
    state = give(world([(4, 4)]), 0, energy=3, food=0)._replace(sleeping=np.array([True]))
    state = state._replace(counters=np.array([[0, 0, 0, -30]], np.int32))  # recover -15, unfed asleep: -0.5
    new, _ = step(state, N)
    assert new.vitals[0, Vital.HEALTH] == 8 and not new.sleeping[0] and new.last_health[0] == 8


# --- the vitals' clocks (Player._update_life_stats, _degen_or_regen_health) ------------------------


@pytest.mark.parametrize(
    ("vital", "asleep", "steps", "change"),
    [
        (Vital.FOOD, False, 26, -1),
        (Vital.DRINK, False, 21, -1),
        (Vital.ENERGY, False, 31, -1),
        (Vital.ENERGY, True, 11, +1),
        (Vital.FOOD, True, 51, -1),  # hunger at half rate: 0.5 per step passes 25 at step 51
        (Vital.DRINK, True, 41, -1),
    ],
)
def test_each_vital_clock(vital: Vital, asleep: bool, steps: int, change: int) -> None:
    start = 0 if asleep else 9  # a sleeper starts empty so it stays asleep
    state = give(world([(4, 4)]), 0, energy=start)._replace(sleeping=np.array([asleep]))
    before = int(state.vitals[0, vital])
    values = [int(s.vitals[0, vital]) for s in run(state, steps, N)]
    assert values[:-1] == [before] * (steps - 1) and values[-1] == before + change


@pytest.mark.parametrize(("food", "steps", "change"), [(9, 26, +1), (0, 16, -1)])
def test_the_health_clock(food: int, steps: int, change: int) -> None:
    state = give(world([(4, 4)]), 0, health=5, food=food)
    values = [int(s.vitals[0, Vital.HEALTH]) for s in run(state, steps, N)]
    assert values[:-1] == [5] * (steps - 1) and values[-1] == 5 + change


# --- place and make (Player._place, Player._make) -------------------------------------------------


def test_a_table_costs_two_wood() -> None:
    state = world([(4, 4)])
    new, _ = step(give(state, 0, wood=1), Action.PLACE_TABLE)
    assert cell(new, 4, 5) == Material.GRASS and new.inventory[0, Item.WOOD] == 1
    new, _ = step(give(state, 0, wood=3), Action.PLACE_TABLE)
    assert cell(new, 4, 5) == Material.TABLE and new.inventory[0, Item.WOOD] == 1
    assert new.achievements[0, Achievement.PLACE_TABLE] == 1


def test_a_furnace_costs_four_stone_and_needs_no_table() -> None:
    state = world([(4, 4)])
    assert cell(step(give(state, 0, stone=3), Action.PLACE_FURNACE)[0], 4, 5) == Material.GRASS
    new, _ = step(give(state, 0, stone=4), Action.PLACE_FURNACE)
    assert cell(new, 4, 5) == Material.FURNACE and new.inventory[0, Item.STONE] == 0


def test_places_need_a_free_cell_of_the_right_material() -> None:
    state = give(world([(4, 4), (4, 5)], {(4, 3): Material.WATER}), 0, stone=2, wood=2, sapling=1)
    assert step(state, Action.PLACE_STONE, N)[0].inventory[0, Item.STONE] == 2  # an agent is there
    up = state._replace(facing=np.array([2, 3], np.int32))
    assert cell(step(up, Action.PLACE_STONE, N)[0], 4, 3) == Material.STONE  # stone fills water
    assert cell(step(up, Action.PLACE_TABLE, N)[0], 4, 3) == Material.WATER
    plant, _ = step(state._replace(facing=np.array([1, 3], np.int32)), Action.PLACE_PLANT, N)
    assert cell(plant, 5, 4) == Material.PLANT and plant.inventory[0, Item.SAPLING] == 0


def test_make_needs_the_station_within_the_3x3() -> None:
    far = give(world([(4, 4)], {(6, 4): Material.TABLE}), 0, wood=1)
    assert step(far, Action.MAKE_WOOD_PICKAXE)[0].inventory[0, Item.WOOD_PICKAXE] == 0
    diagonal = give(world([(4, 4)], {(5, 5): Material.TABLE}), 0, wood=1)
    new, _ = step(diagonal, Action.MAKE_WOOD_PICKAXE)
    assert new.inventory[0].tolist()[: Item.IRON_SWORD + 1] == [0] * 6 + [1] + [0] * 5
    assert new.achievements[0, Achievement.MAKE_WOOD_PICKAXE] == 1


@pytest.mark.parametrize(
    ("agent", "table", "made"),
    [((0, 4), (1, 4), 0), ((4, 0), (4, 1), 0), ((1, 4), (0, 4), 1), ((4, 1), (4, 0), 1), ((8, 8), (7, 8), 1)],
)
def test_nothing_is_nearby_at_column_0_or_row_0(agent: tuple[int, int], table: tuple[int, int], made: int) -> None:
    state = give(world([agent], {table: Material.TABLE}), 0, wood=1)
    assert step(state, Action.MAKE_WOOD_SWORD)[0].inventory[0, Item.WOOD_SWORD] == made


def test_an_iron_pickaxe_needs_a_furnace_not_a_table() -> None:
    goods = {"wood": 1, "coal": 1, "iron": 1}
    table = give(world([(4, 4)], {(5, 4): Material.TABLE}), 0, **goods)
    assert step(table, Action.MAKE_IRON_PICKAXE)[0].inventory[0, Item.IRON_PICKAXE] == 0
    furnace = give(world([(4, 4)], {(5, 4): Material.FURNACE}), 0, **goods)
    new, _ = step(furnace, Action.MAKE_IRON_PICKAXE)
    assert new.inventory[0, Item.IRON_PICKAXE] == 1 and new.inventory[0, : Item.IRON + 1].sum() == 0
    missing = give(furnace, 0, coal=0)
    assert step(missing, Action.MAKE_IRON_PICKAXE)[0].inventory[0, Item.IRON_PICKAXE] == 0


# --- chunk balancing (env._balance_chunk, _balance_object) -----------------------------------------


def spawn_draws(roll: int, pick: int, settings: CrafterSettings = S) -> StepDraws:
    nc = math.prod(settings.chunks)
    return quiet(settings)._replace(chunk_roll=np.full(nc, roll, np.uint32), chunk_pick=np.full(nc, pick, np.uint32))


def test_a_cow_spawns_on_the_picked_grass_cell_away_from_every_agent() -> None:
    state = world([(0, 0)])._replace(step=np.int32(9))
    new, _ = step(state, N, draws=spawn_draws(0, 8 * 9 + 7))  # x-major: the 80 cells' (x=8, y=7)
    assert new.cow_alive.tolist() == [True, False, False, False] and new.cow_pos[0].tolist() == [8, 7]
    assert new.order[1] == 1 and new.next_order == 2
    near, _ = step(state, N, draws=spawn_draws(0, 3 * 9 + 1))  # (3, 1): Manhattan 4 from the agent
    assert not near.cow_alive.any()
    edge, _ = step(state, N, draws=spawn_draws(0, 4 * 9 + 1))  # (4, 1): Manhattan 5
    assert edge.cow_pos[0].tolist() == [4, 1]
    removed = state._replace(removed=np.array([True]))  # a removed player still keeps cows away
    assert not step(removed, N, draws=spawn_draws(0, 3 * 9 + 1))[0].cow_alive.any()


def test_spawning_needs_the_roll_the_balance_step_and_thirty_grass_cells() -> None:
    state = world([(0, 0)])._replace(step=np.int32(9))
    bound = threshold(S.cow_spawn_probability)
    assert step(state, N, draws=spawn_draws(bound - 1, 80))[0].cow_alive[0]
    assert not step(state, N, draws=spawn_draws(bound, 80))[0].cow_alive[0]
    assert not step(state._replace(step=np.int32(10)), N, draws=spawn_draws(0, 80))[0].cow_alive[0]
    trees = {(x, y): Material.TREE for x in range(9) for y in range(9) if x * 9 + y >= 29}
    sparse = world([(0, 0)], trees)._replace(step=np.int32(9))  # 29 grass cells (the agent's included)
    assert not step(sparse, N, draws=spawn_draws(0, 26))[0].cow_alive[0]
    grid = sparse.grid.copy()
    grid[8, 8] = Material.PLANT  # a plant is an object standing on grass: 30 grass cells, never empty
    planted = sparse._replace(grid=grid)
    assert step(planted, N, draws=spawn_draws(0, 26))[0].cow_pos[0].tolist() == [2, 8]
    assert not step(planted, N, draws=spawn_draws(0, 29))[0].cow_alive[0]  # pick 29: the plant's cell


def test_a_cow_despawns_when_a_chunk_has_too_many() -> None:
    assert daylight(10) > 0.5 > daylight(150)  # int(1.5 + daylight): at most 2 cows by day, 1 by night
    state = world([(0, 0)], cows=[(8, 8), (7, 8), (8, 7)])._replace(step=np.int32(9))
    bound = threshold(S.cow_despawn_probability)
    new, _ = step(state, N, draws=spawn_draws(bound - 1, 4))  # 4 % 3: the second cow
    assert new.cow_alive.tolist() == [True, False, True, False]
    assert step(state, N, draws=spawn_draws(bound, 4))[0].cow_alive[1]
    near = world([(6, 7)], cows=[(8, 8), (7, 8), (8, 7)])._replace(step=np.int32(9))  # (7, 8) is 2 away
    assert step(near, N, draws=spawn_draws(0, 4))[0].cow_alive.tolist() == [True, True, True, False]
    two = world([(0, 0)], cows=[(8, 8), (7, 8)])
    assert step(two._replace(step=np.int32(9)), N, draws=spawn_draws(0, 1))[0].cow_alive[:2].all()
    night = step(two._replace(step=np.int32(149)), N, draws=spawn_draws(0, 1))[0]
    assert night.cow_alive.tolist() == [True, False, False, False]


def test_only_chunks_that_held_an_object_are_balanced() -> None:
    small = S.model_copy(update={"chunk_size": 3, "chunk_min_grass": 5})
    state = world([(0, 0)], settings=small)._replace(step=np.int32(9))
    touched = state.touched.copy()
    touched[2, 2] = True
    assert not step(state, N, settings=small, draws=spawn_draws(0, 0, small))[0].cow_alive.any()
    new, _ = step(state._replace(touched=touched), N, settings=small, draws=spawn_draws(0, 0, small))
    assert new.cow_alive.tolist() == [True, False, False, False] and new.cow_pos[0].tolist() == [6, 6]


def test_objects_open_their_chunks() -> None:
    small = S.model_copy(update={"chunk_size": 3})
    state = give(world([(2, 4)], settings=small), 0, sapling=1)._replace(facing=np.array([1], np.int32))
    assert state.touched.tolist() == [[False] * 3, [True, False, False], [False] * 3]
    new, _ = step(state, Action.PLACE_PLANT, settings=small)  # a plant is an object (World.add)
    assert new.touched[1].tolist() == [True, True, False]
    moved, _ = step(state, R, settings=small)
    assert moved.touched[1].tolist() == [True, True, False]


# --- the episode and the records ------------------------------------------------------------------


def test_done_at_the_horizon() -> None:
    state = world([(4, 4)])._replace(step=np.int32(2))
    assert step(state, N, settings=S.model_copy(update={"horizon": 3}))[0].done
    assert not step(state, N, settings=S.model_copy(update={"horizon": 4}))[0].done
    assert reference_step(S, state, np.array([N]), quiet(), horizon=3)[0].done


def test_a_done_state_is_returned_unchanged() -> None:
    state = world([(4, 4)], {(5, 4): Material.TREE})._replace(done=np.bool_(True))
    new, reward = step(state, DO)
    assert new is state and reward == 0.0


def test_the_records_and_the_input_is_never_written() -> None:
    state = give(world([(4, 4), (6, 4)], {(5, 4): Material.TREE}, capacity=3), 1, wood_pickaxe=1)
    copy = state._replace(**{name: np.array(value, copy=True) for name, value in state._asdict().items()})
    new, _ = step(state, DO, 99_999, DO)
    for name, value in state._asdict().items():
        assert np.array_equal(value, getattr(copy, name)), name
    assert new.last_action.tolist() == [DO, N, N] and new.step == 1
    assert new.do_pos[:2].tolist() == [[4, 4], [6, 4]] and new.do_tools[1].tolist() == [True, False, False]
    assert new.tgt_res[0].tolist() == [0 if (dx, dy) == (1, 0) else -1 for dx, dy in reach_offsets(1).tolist()]
    assert (new.tgt_res[1:] == -1).all() and new.inventory[0, Item.WOOD] == 1
