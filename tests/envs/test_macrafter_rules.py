"""MA-Crafter's rules on hand-made 9x9 worlds, through the JAX step, the typed view and the events.

Every world has the arena's settings and agent capacity, so one compiled step (``state_for``)
serves them all. ``play`` also holds the events to what the states show (moves land where the
events say, collected/crafted/shared units appear in the bags, the score rises by the collected
cells' unit values). Coordinates are (x, y), y grows downwards; facing indexes rules.MOVES.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.macrafter import (
    Action,
    CrafterEnv,
    CrafterSettings,
    CrafterState,
    CrafterView,
    Item,
    Material,
    Scenario,
    decode,
    share_action,
)
from envs.macrafter.events import CrafterEvent, CrafterEventKind
from envs.macrafter.scenario import from_text

N, L, R, U, D, DO = Action.NOOP, Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN, Action.DO
FACE = {"left": 0, "right": 1, "up": 2, "down": 3}
CAP = 4
SETTINGS = CrafterSettings(horizon=30, sapling_probability=1.0, ripen_steps=2)


def world(*rows: str) -> Scenario:
    """A 9x9 world: ``rows`` padded with grass (digits are the agents' starts)."""
    padded = [row.ljust(9, ".") for row in rows] + ["." * 9] * (9 - len(rows))
    return from_text("case", padded, SETTINGS, max_agents=CAP)


@pytest.fixture(scope="module")
def env() -> CrafterEnv:
    return CrafterEnv(world("0", ".1"))


@dataclass
class Played:
    views: list[CrafterView]
    events: list[list[CrafterEvent]]
    rewards: list[float]
    states: list[CrafterState]

    @property
    def last(self) -> CrafterView:
        return self.views[-1]

    def kinds(self, t: int = 0) -> list[tuple[int, str, str | None]]:
        return [(e.agent, e.kind.value, e.reason) for e in self.events[t]]


def setup(state: CrafterState, facing: dict[int, str] | None = None, **bags: dict[str, int]) -> CrafterState:
    """Turn seats (``{seat: "right"}``) and fill bags (``seat0={"wood": 2}``)."""
    face = np.asarray(state.facing).copy()
    for seat, way in (facing or {}).items():
        face[seat] = FACE[way]
    inv = np.asarray(state.inventory).copy()
    for key, items in bags.items():
        for name, qty in items.items():
            inv[int(key.removeprefix("seat")), Item[name.upper()]] = qty
    return state._replace(facing=jnp.asarray(face), inventory=jnp.asarray(inv))


def play(
    env: CrafterEnv, sc: Scenario, *rows: list[int], prepare: Callable[[CrafterState], CrafterState] | None = None
) -> Played:
    state = env.state_for(sc)
    state = prepare(state) if prepare else state
    out = Played([decode(sc.settings, state)], [], [], [state])
    for t, row in enumerate(rows):
        actions = [int(a) for a in row] + [int(N)] * (CAP - len(row))
        tr = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(actions, jnp.int32))
        after = decode(sc.settings, tr.state)
        events = env.events(out.views[-1], actions, after)
        check_consistent(sc.settings, out.views[-1], after, events, float(tr.reward))
        out.views.append(after)
        out.events.append(events)
        out.rewards.append(float(tr.reward))
        out.states.append(tr.state)
        state = tr.state
    return out


def check_consistent(cfg: CrafterSettings, before: CrafterView, after: CrafterView, events, reward: float) -> None:
    """The events agree with the two views."""
    moved = {e.agent: e.target for e in events if e.kind == CrafterEventKind.MOVE}
    for a, b in zip(before.agents, after.agents, strict=True):
        assert b.position == moved.get(a.seat, a.position)
    gained: dict[tuple[int, str], int] = {}
    busy = {a.leader for a in after.attempts if a.leader is not None}  # paid ingredients too
    for e in events:
        if e.kind in (CrafterEventKind.COLLECT, CrafterEventKind.CRAFT):
            gained[(e.agent, e.item)] = gained.get((e.agent, e.item), 0) + 1
        if e.kind == CrafterEventKind.SHARE:
            gained[(e.agent, e.item)] = gained.get((e.agent, e.item), 0) - 1
            gained[(e.other, e.item)] = gained.get((e.other, e.item), 0) + 1
        if e.kind == CrafterEventKind.PLACE:
            placed = {"table": Material.TABLE, "furnace": Material.FURNACE, "stone": Material.STONE}
            assert after.material(e.target) == placed.get(e.item, Material.PLANT)
            busy.add(e.agent)
    for a, b in zip(before.agents, after.agents, strict=True):
        if a.seat in busy:
            continue
        for item in a.inventory:
            assert b.count(item) - a.count(item) == gained.get((a.seat, item), 0), (a.seat, item)
    scored = sum(cfg.unit_value(a.target) for a in after.attempts if a.kind == "collect" and a.outcome == "ok")
    assert reward == pytest.approx(scored) and after.score == pytest.approx(before.score + reward)


# ---- moves ----


def test_move_steps_onto_grass_and_turns_when_blocked(env):
    p = play(env, world("0T", "1"), [D, N], [U, N], [R, N])
    assert p.kinds(0) == [(0, "blocked_move", "agent")]  # seat 1 stands below
    assert p.kinds(2) == [(0, "blocked_move", "tree")] and p.last.agents[0].facing == (1, 0)
    assert p.last.agents[0].position == (0, 0)
    q = play(env, world("0.", "..", ".1"), [R, U])
    assert q.kinds() == [(0, "move", None), (1, "move", None)] and q.last.agents[0].position == (1, 0)


def test_two_agents_aiming_at_one_cell_lower_seat_wins(env):
    p = play(env, world("0.1"), [R, L])
    assert p.last.agents[0].position == (1, 0) and p.last.agents[1].position == (2, 0)
    assert p.kinds() == [(0, "move", None), (1, "blocked_move", "agent")]
    wall = play(env, world("0"), [U])
    assert wall.kinds() == [(0, "blocked_move", "wall")]


# ---- collection ----


def test_tree_alone_gives_wood_and_stays_a_tree(env):
    p = play(env, world("0T", "...1"), [DO], prepare=lambda s: setup(s, {0: "right"}))
    assert p.last.agents[0].count("wood") == 1 and p.rewards == [1.0]
    assert p.last.material((1, 0)) == Material.TREE
    (e,) = p.events[0]
    assert (e.kind, e.item, e.qty, e.target, e.participants) == (CrafterEventKind.COLLECT, "wood", 1, (1, 0), (0,))


def test_stone_needs_a_wood_pickaxe_and_becomes_path(env):
    bare = play(env, world("0#", "...1"), [DO], prepare=lambda s: setup(s, {0: "right"}))
    assert bare.kinds() == [(0, "collect_failed", "no_tool")] and bare.rewards == [0.0]
    (att,) = bare.last.attempts
    assert (att.kind, att.target, att.participants, att.capable, att.required, att.tool, att.outcome) == (
        "collect",
        "stone",
        (0,),
        (),
        1,
        "wood_pickaxe",
        "no_tool",
    )
    tooled = play(env, world("0#", "...1"), [DO], prepare=lambda s: setup(s, {0: "right"}, seat0={"wood_pickaxe": 1}))
    assert tooled.last.agents[0].count("stone") == 1 and tooled.last.material((1, 0)) == Material.PATH
    assert tooled.rewards == [SETTINGS.unit_value("stone")] == [15.0]


def test_coal_needs_two_agents_each_gets_a_unit_team_scores_once(env):
    tools = {"wood_pickaxe": 1}
    face = {0: "right", 1: "left"}
    alone = play(env, world("0c1"), [DO, N], prepare=lambda s: setup(s, face, seat0=tools, seat1=tools))
    assert alone.kinds() == [(0, "collect_failed", "too_few")] and alone.last.material((1, 0)) == Material.COAL
    pair = play(env, world("0c1"), [DO, DO], prepare=lambda s: setup(s, face, seat0=tools, seat1=tools))
    assert [a.count("coal") for a in pair.last.agents] == [1, 1]
    assert pair.rewards == [25 * 2 * 1.5] and pair.last.material((1, 0)) == Material.PATH
    assert [(e.agent, e.kind.value, e.participants) for e in pair.events[0]] == [
        (0, "collect", (0, 1)),
        (1, "collect", (0, 1)),
    ]


IRON = ("0i1", ".2", "", "", "", "", "", "...3")
IRON_FACE = {0: "right", 1: "left", 2: "up"}


def test_three_agents_mine_iron_together(env):
    tools = {"stone_pickaxe": 1}
    p = play(
        env, world(*IRON), [DO, DO, DO], prepare=lambda s: setup(s, IRON_FACE, seat0=tools, seat1=tools, seat2=tools)
    )
    assert [a.count("iron") for a in p.last.agents] == [1, 1, 1, 0]
    assert p.rewards == [25 * 3 * 2.0] and p.last.material((1, 0)) == Material.PATH
    (att,) = p.last.attempts
    assert (att.participants, att.capable, att.required, att.outcome) == ((0, 1, 2), (0, 1, 2), 3, "ok")


def test_two_agents_fail_iron_as_too_few(env):
    tools = {"stone_pickaxe": 1}
    p = play(env, world(*IRON), [DO, DO, N], prepare=lambda s: setup(s, IRON_FACE, seat0=tools, seat1=tools))
    assert p.kinds() == [(0, "collect_failed", "too_few"), (1, "collect_failed", "too_few")]
    assert p.last.material((1, 0)) == Material.IRON and p.rewards == [0.0]
    assert p.last.attempts[0].outcome == "too_few"


def test_iron_quorum_without_the_tool_fails_no_tool_and_extra_bare_hands_get_nothing(env):
    stone, wood = {"stone_pickaxe": 1}, {"wood_pickaxe": 1}
    weak = play(
        env, world(*IRON), [DO, DO, DO], prepare=lambda s: setup(s, IRON_FACE, seat0=stone, seat1=stone, seat2=wood)
    )
    assert {r for _, _, r in weak.kinds()} == {"no_tool"} and weak.last.attempts[0].capable == (0, 1)
    ring = from_text("case", [".3.......", "0i1......", ".2......."] + ["." * 9] * 6, SETTINGS, max_agents=CAP)
    face = {0: "right", 1: "left", 2: "up", 3: "down"}
    p = play(env, ring, [DO, DO, DO, DO], prepare=lambda s: setup(s, face, seat0=stone, seat1=stone, seat2=stone))
    assert [a.count("iron") for a in p.last.agents] == [1, 1, 1, 0]
    assert p.kinds()[3] == (3, "collect_failed", "no_tool") and p.last.attempts[0].outcome == "ok"
    assert p.rewards == [150.0]


# ---- crafting ----

TABLE = ("0t1", "", "", "", "", "", "", "", "2")


def test_stone_pickaxe_with_quorum_two_consumes_from_the_leader_only(env):
    bag = {"wood": 1, "stone": 1}
    p = play(env, world(*TABLE), [Action.MAKE_STONE_PICKAXE] * 2, prepare=lambda s: setup(s, seat1=bag))
    assert [a.count("stone_pickaxe") for a in p.last.agents] == [1, 1, 0]
    assert (p.last.agents[1].count("wood"), p.last.agents[1].count("stone")) == (0, 0)
    (att,) = p.last.attempts
    assert (att.kind, att.target, att.participants, att.leader, att.outcome, att.cell) == (
        "craft",
        "stone_pickaxe",
        (0, 1),
        1,
        "ok",
        (1, 0),
    )
    both = play(env, world(*TABLE), [Action.MAKE_STONE_PICKAXE] * 2, prepare=lambda s: setup(s, seat0=bag, seat1=bag))
    assert both.last.attempts[0].leader == 0 and both.last.agents[1].count("wood") == 1
    assert [(e.agent, e.kind.value, e.participants) for e in both.events[0]] == [
        (0, "craft", (0, 1)),
        (1, "craft", (0, 1)),
    ]


def test_craft_failures_too_few_no_station_missing_items(env):
    bag = {"wood": 1, "stone": 1}
    make = Action.MAKE_STONE_PICKAXE
    p = play(env, world(*TABLE), [make, N, make], prepare=lambda s: setup(s, seat0=bag, seat2=bag))
    assert p.kinds() == [(0, "craft_failed", "too_few"), (2, "craft_failed", "no_station")]
    assert [a.outcome for a in p.last.attempts] == ["too_few", "no_station"]
    empty = play(env, world(*TABLE), [make, make])
    assert {r for _, _, r in empty.kinds()} == {"missing_items"} and empty.last.attempts[0].leader is None
    solo = play(env, world(*TABLE), [Action.MAKE_WOOD_PICKAXE], prepare=lambda s: setup(s, seat0={"wood": 2}))
    assert solo.last.agents[0].count("wood_pickaxe") == 1 and solo.last.agents[0].count("wood") == 1


def test_iron_pickaxe_needs_table_and_furnace(env):
    bag = {"wood": 1, "coal": 1, "iron": 1}
    make = Action.MAKE_IRON_PICKAXE
    no_furnace = play(env, world(*TABLE), [make, make], prepare=lambda s: setup(s, seat0=bag))
    assert {r for _, _, r in no_furnace.kinds()} == {"no_station"}
    ok = play(env, world("0t1", ".f"), [make, make], prepare=lambda s: setup(s, seat0=bag))
    assert [a.count("iron_pickaxe") for a in ok.last.agents] == [1, 1] and ok.last.agents[0].count("iron") == 0


# ---- placing ----


def test_place_table_costs_wood_and_needs_a_free_cell(env):
    sc = world("0.", "", "", "", "", "", "", "", "1")
    p = play(env, sc, [Action.PLACE_TABLE], prepare=lambda s: setup(s, {0: "right"}, seat0={"wood": 2}))
    assert p.last.material((1, 0)) == Material.TABLE and p.last.agents[0].count("wood") == 2 - SETTINGS.table_wood
    assert p.kinds() == [(0, "place", None)]
    broke = play(env, sc, [Action.PLACE_TABLE], prepare=lambda s: setup(s, {0: "right"}))
    assert broke.kinds() == [(0, "place_failed", "missing_items")]
    tree = play(
        env,
        world("0T", "", "", "", "", "", "", "", "1"),
        [Action.PLACE_TABLE],
        prepare=lambda s: setup(s, {0: "right"}, seat0={"wood": 1}),
    )
    assert tree.kinds() == [(0, "place_failed", "occupied")]


def test_furnace_needs_a_table_nearby_and_two_placers_lower_seat_wins(env):
    sc = world("0.1", "", "", "", "", "", "", "", "2")
    alone = play(env, sc, [Action.PLACE_FURNACE], prepare=lambda s: setup(s, {0: "right"}, seat0={"stone": 1}))
    assert alone.kinds() == [(0, "place_failed", "no_table")]
    both = play(
        env,
        sc,
        [Action.PLACE_STONE, Action.PLACE_STONE],
        prepare=lambda s: setup(s, {0: "right", 1: "left"}, seat0={"stone": 1}, seat1={"stone": 1}),
    )
    assert both.kinds() == [(0, "place", None), (1, "place_failed", "occupied")]
    assert [a.count("stone") for a in both.last.agents[:2]] == [0, 1]
    near = play(
        env,
        world("0.", "t", "", "", "", "", "", "", "1"),
        [Action.PLACE_FURNACE],
        prepare=lambda s: setup(s, {0: "right"}, seat0={"stone": 1}),
    )
    assert near.last.material((1, 0)) == Material.FURNACE


# ---- sharing ----


def test_share_moves_one_unit_to_a_neighbour(env):
    sc = world("01", "", "", "", "", "", "", "", "2")
    give = share_action(1, Item.WOOD)
    p = play(env, sc, [give], prepare=lambda s: setup(s, seat0={"wood": 2}))
    assert [a.count("wood") for a in p.last.agents] == [1, 1, 0] and p.last.shares == ((0, 1, "wood", 1),)
    (e,) = p.events[0]
    assert (e.kind, e.item, e.qty, e.other) == (CrafterEventKind.SHARE, "wood", 1, 1)
    fails = play(
        env,
        sc,
        [share_action(2, Item.WOOD), share_action(0, Item.STONE), share_action(2, Item.WOOD)],
        prepare=lambda s: setup(s, seat0={"wood": 1}),
    )
    assert fails.kinds() == [
        (0, "share_failed", "out_of_reach"),
        (1, "share_failed", "missing_items"),
        (2, "share_failed", "missing_items"),
    ]
    own = play(
        env,
        sc,
        [share_action(0, Item.WOOD), share_action(3, Item.WOOD)],
        prepare=lambda s: setup(s, seat0={"wood": 1}, seat1={"wood": 1}),
    )
    assert {r for _, _, r in own.kinds()} == {"receiver_down"} and own.last.agents[0].count("wood") == 1


# ---- food, drink, sleep, health ----


def _vitals(state: CrafterState, seat: int, **values: int) -> CrafterState:
    vit = np.asarray(state.vitals).copy()
    for name, v in values.items():
        vit[seat, ["health", "food", "drink", "energy"].index(name)] = v
    return state._replace(vitals=jnp.asarray(vit))


def test_drink_eat_cow_and_sapling(env):
    sc = world("0~", "1C", "2.", "", "", "", "", "", "")
    face = {0: "right", 1: "right", 2: "right"}
    prep = lambda s: _vitals(_vitals(setup(s, face), 0, drink=3), 1, food=2)
    p = play(env, sc, [DO, DO, DO], prepare=prep)
    assert p.last.agents[0].vitals["drink"] == 4
    assert p.last.agents[1].vitals["food"] == 2 + SETTINGS.cow_food and p.last.material((1, 1)) == Material.GRASS
    assert p.last.agents[2].count("sapling") == 1
    assert [(e.kind.value, e.item) for e in p.events[0]] == [("drink", "water"), ("eat", "cow"), ("collect", "sapling")]


def test_plant_ripens_and_feeds(env):
    sc = world("0.", "", "", "", "", "", "", "", "1")
    prep = lambda s: _vitals(setup(s, {0: "right"}, seat0={"sapling": 1}), 0, food=1)
    p = play(env, sc, [Action.PLACE_PLANT], [N], [N], [DO], prepare=prep)
    assert p.views[1].material((1, 0)) == Material.PLANT and p.views[3].material((1, 0)) == Material.RIPE_PLANT
    assert p.last.agents[0].vitals["food"] == 1 + SETTINGS.plant_food and p.last.material((1, 0)) == Material.GRASS


def test_sleep_restores_energy_and_an_action_wakes(env):
    sc = world("0.", "", "", "", "", "", "", "", "1")
    steps = SETTINGS.energy_every // 3
    p = play(env, sc, [Action.SLEEP], *([[N]] * steps), [R], prepare=lambda s: _vitals(s, 0, energy=2))
    assert p.kinds(0) == [(0, "sleep", None)] and p.views[1].agents[0].sleeping
    assert p.views[-2].agents[0].vitals["energy"] == 3 and p.views[-2].agents[0].sleeping
    assert p.kinds(steps + 1) == [(0, "wake", None), (0, "move", None)] and not p.last.agents[0].sleeping


def test_health_runs_out_and_the_team_goes_down(env):
    sc = world("0", "", "", "", "", "", "", "", "1")

    def starving(s: CrafterState) -> CrafterState:
        for seat in (0, 1):
            s = _vitals(s, seat, health=1, food=0, drink=0)
        counters = np.zeros((CAP, 4), np.int32)
        counters[:, 0] = -(SETTINGS.health_every - 1)
        return s._replace(counters=jnp.asarray(counters))

    p = play(env, sc, [N, N], [N, N], prepare=starving)
    assert p.kinds() == [(0, "down", None), (1, "down", None)]
    assert p.last.done and not any(a.alive for a in p.last.agents) and p.events[1] == []


def test_vitals_decay_on_their_clocks(env):
    sc = world("0", "", "", "", "", "", "", "", "1")
    p = play(env, sc, *([[N]] * SETTINGS.drink_every))
    assert p.last.agents[0].vitals == {"health": 9, "food": 9, "drink": 8, "energy": 9}


def test_horizon_ends_the_episode_and_done_freezes(env):
    sc = world("0.", "", "", "", "", "", "", "", "1")
    late = lambda s: s._replace(step=jnp.int32(SETTINGS.horizon - 1))
    p = play(env, sc, [R], [D], prepare=late)
    assert p.views[1].done and p.last == p.views[1] and p.events[1] == [] and p.rewards == [0.0, 0.0]


# ---- collect distance d = 2 (a second compiled step) ----

FAR = SETTINGS.model_copy(update={"collect_distance": 2})


def far_world(*rows: str) -> Scenario:
    padded = [row.ljust(9, ".") for row in rows] + ["." * 9] * (9 - len(rows))
    return from_text("far", padded, FAR, max_agents=CAP)


@pytest.fixture(scope="module")
def far_env() -> CrafterEnv:
    return CrafterEnv(far_world("0", ".1"))


def test_distance_two_reaches_along_the_line_and_stops_at_the_first_solid_cell(far_env):
    tools = {"wood_pickaxe": 1}
    face = {0: "right", 1: "left"}
    pair = play(far_env, far_world("0.c1"), [DO, DO], prepare=lambda s: setup(s, face, seat0=tools, seat1=tools))
    assert [a.count("coal") for a in pair.last.agents] == [1, 1] and pair.rewards == [75.0]
    assert pair.last.attempts[0].cell == (2, 0)
    shielded = play(far_env, far_world("0#c1"), [DO, N], prepare=lambda s: setup(s, face, seat0=tools, seat1=tools))
    assert shielded.last.attempts[0].target == "stone" and shielded.last.agents[0].count("stone") == 1
    # A tree three cells away is out of reach: DO acts on the faced grass (a sapling, p = 1 here).
    beyond = play(
        far_env, far_world("0..T", "", "", "", "", "", "", "", "1"), [DO], prepare=lambda s: setup(s, {0: "right"})
    )
    assert beyond.last.agents[0].count("wood") == 0 and beyond.last.agents[0].count("sapling") == 1
