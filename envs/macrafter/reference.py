"""A plain NumPy restatement of EmCoop's MA-Crafter step (COOP², HappyEureka/coop2-llm-mas).

``reference_step`` walks one step object by object, in the order EmCoop's ``CooperativeEnv.step``
(``ma_crafter/macrafter/coop_env.py``) does: shares, cooperative collection, the removal of fallen
players, every world object's ``update`` in creation order, then chunk balancing (in
``reference_balance``). It is written from EmCoop's code, not from our JAX env, so the two can be
checked against each other (the shared contract is the state layout in `envs.macrafter.state` and the
draws in `envs.macrafter.draws`; `docs/macrafter.md` states the rules). Speed is not a goal:
plain loops, one object at a time, with a position -> object map standing in for EmCoop's
``engine.World._obj_map``. Randomness comes from ``StepDraws`` (raw uint32 bits), as in the JAX env.

Coordinates are (x, y) and ``grid[y, x]``; EmCoop's ``world[x, y]`` is our ``grid[y, x]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envs.macrafter.draws import StepDraws, threshold
from envs.macrafter.reference_balance import balance_chunks
from envs.macrafter.rules import (
    AGENT_WALKABLE,
    CRAFTS,
    LEAVES,
    MOVES,
    NUM_ACTIONS,
    PICKAXES,
    PLACEABLE_ON,
    SHARE_VITALS,
    VECTORS,
    WALKABLE,
    Achievement,
    Action,
    Item,
    Material,
    Vital,
    decode_share,
    good_index,
)
from envs.macrafter.settings import RESOURCE_GIVES, SCORED, CrafterSettings
from envs.macrafter.state import COW_CODE, RESOURCE_MATERIALS, RESOURCES, CrafterState, reach_offsets

Cell = tuple[int, int]
Occupant = tuple[str, int]  # ("seat", seat index) or ("cow", cow slot)

# data.yaml ``place``: what each placement costs (no setting names the stone and sapling costs) and
# what it leaves. A plant is an engine object on a grass cell in EmCoop; our grid marks it PLANT.
STONE_PER_PLACE = 1
SAPLINGS_PER_PLANT = 1
PLACED: dict[Action, Material] = {
    Action.PLACE_STONE: Material.STONE,
    Action.PLACE_TABLE: Material.TABLE,
    Action.PLACE_FURNACE: Material.FURNACE,
    Action.PLACE_PLANT: Material.PLANT,
}
_COPIED = (
    "grid", "pos", "facing", "active", "removed", "sleeping", "inventory", "vitals", "counters",
    "last_health", "achievements", "cow_pos", "cow_alive", "order", "touched", "score_units",
)  # fmt: skip


@dataclass
class World:
    """A mutable copy of one state: EmCoop's ``engine.World`` with its players and cows.

    ``occupant`` is ``engine.World._obj_map``: which live object stands on a cell (removed seats
    and dead cows stand nowhere)."""

    settings: CrafterSettings
    grid: np.ndarray
    pos: np.ndarray
    facing: np.ndarray
    active: np.ndarray
    removed: np.ndarray
    sleeping: np.ndarray
    inventory: np.ndarray
    vitals: np.ndarray
    counters: np.ndarray
    last_health: np.ndarray
    achievements: np.ndarray
    cow_pos: np.ndarray
    cow_alive: np.ndarray
    order: np.ndarray
    touched: np.ndarray
    score_units: np.ndarray
    next_order: int
    score: float
    step: int
    occupant: dict[Cell, Occupant] = field(default_factory=dict)

    @classmethod
    def from_state(cls, settings: CrafterSettings, state: CrafterState) -> World:
        """Copies every world array of ``state`` (the input is never written to)."""
        arrays = {name: np.array(getattr(state, name), copy=True) for name in _COPIED}
        world = cls(
            settings=settings,
            **arrays,
            next_order=int(state.next_order),
            score=float(state.score),
            step=int(state.step),
        )
        for seat in range(len(world.active)):
            if world.live_seat(seat):
                world.occupant[world.seat_cell(seat)] = ("seat", seat)
        for cow in np.flatnonzero(world.cow_alive):
            world.occupant[(int(world.cow_pos[cow, 0]), int(world.cow_pos[cow, 1]))] = ("cow", int(cow))
        return world

    @property
    def capacity(self) -> int:
        return len(self.active)

    def live_seat(self, seat: int) -> bool:
        """A player still in the world (EmCoop's ``self.agents``): an active seat not removed."""
        return bool(self.active[seat]) and not bool(self.removed[seat])

    def seat_cell(self, seat: int) -> Cell:
        return int(self.pos[seat, 0]), int(self.pos[seat, 1])

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.settings.width and 0 <= cell[1] < self.settings.height

    def material(self, cell: Cell) -> int:
        return int(self.grid[cell[1], cell[0]])

    def free(self, cell: Cell, walkable: tuple[Material, ...]) -> bool:
        """``objects.Object.is_free``: inside the map, no object there, a walkable material."""
        return self.inside(cell) and cell not in self.occupant and self.material(cell) in walkable

    def touch(self, cell: Cell) -> None:
        """``engine.World._chunks[chunk_key(pos)]``: the chunk now exists (balanced from now on)."""
        size = self.settings.chunk_size
        self.touched[cell[1] // size, cell[0] // size] = True

    def move_seat(self, seat: int, cell: Cell) -> None:
        del self.occupant[self.seat_cell(seat)]
        self.pos[seat] = cell
        self.occupant[cell] = ("seat", seat)

    def move_cow(self, cow: int, cell: Cell) -> None:
        del self.occupant[(int(self.cow_pos[cow, 0]), int(self.cow_pos[cow, 1]))]
        self.cow_pos[cow] = cell
        self.occupant[cell] = ("cow", cow)

    def remove_seat(self, seat: int) -> None:
        """``engine.World.remove`` of a player: it stays where it fell but no longer blocks."""
        del self.occupant[self.seat_cell(seat)]
        self.removed[seat] = True

    def add_cow(self, cow: int, cell: Cell) -> None:
        """``engine.World.add``: a new object takes the next creation number."""
        self.cow_pos[cow] = cell
        self.cow_alive[cow] = True
        self.order[self.capacity + cow] = self.next_order
        self.next_order += 1
        self.occupant[cell] = ("cow", cow)
        self.touch(cell)

    def remove_cow(self, cow: int) -> None:
        """``engine.World.remove`` of a cow: its slot is empty again ((-1, -1), order -1)."""
        del self.occupant[(int(self.cow_pos[cow, 0]), int(self.cow_pos[cow, 1]))]
        self.cow_alive[cow] = False
        self.cow_pos[cow] = (-1, -1)
        self.order[self.capacity + cow] = -1

    def bag(self, seat: int, good: str) -> tuple[np.ndarray, int]:
        """The row and index holding one good of ``seat`` (an Item in the bag, or a vital)."""
        if good in SHARE_VITALS:
            return self.vitals[seat], int(SHARE_VITALS[good])
        return self.inventory[seat], int(Item[good.upper()])


def reference_step(
    settings: CrafterSettings,
    state: CrafterState,
    actions: np.ndarray,
    draws: StepDraws,
    horizon: int | None = None,
) -> tuple[CrafterState, float]:
    """One EmCoop step (``CooperativeEnv.step``) on NumPy arrays: the new state and the reward
    (the team score's change). A done state comes back unchanged with reward 0."""
    if bool(state.done):
        return state, 0.0
    if any(recipe.quorum != 1 for recipe in settings.recipes.values()):
        raise ValueError("reference_step restates EmCoop's code, which has no crafting quorum (every quorum 1)")
    world = World.from_state(settings, state)
    acts = sanitise(world, actions)
    draws = StepDraws(*(np.asarray(bits, np.uint32) for bits in draws))
    world.step += 1
    share_to, share_good, share_qty = execute_shares(world, acts)
    do_pos, do_tools, tgt_res = collect(world, acts)
    fell = remove_fallen(world, acts)
    update_objects(world, acts, draws)
    for seat in range(world.capacity):
        if world.live_seat(seat):
            world.touch(world.seat_cell(seat))
    for cow in np.flatnonzero(world.cow_alive):
        world.touch((int(world.cow_pos[cow, 0]), int(world.cow_pos[cow, 1])))
    balance_chunks(world, draws)
    done = fell or world.step >= (settings.horizon if horizon is None else horizon)
    new = CrafterState(
        **{name: getattr(world, name) for name in _COPIED},
        next_order=np.int32(world.next_order),
        score=np.float32(world.score),
        step=np.int32(world.step),
        done=np.bool_(done),
        last_action=acts,
        result=np.array(state.result, np.int32, copy=True),
        do_pos=do_pos,
        do_tools=do_tools,
        tgt_res=tgt_res,
        share_to=share_to,
        share_good=share_good,
        share_qty=share_qty,
    )
    return new, float(new.score) - float(state.score)


def sanitise(world: World, actions: np.ndarray) -> np.ndarray:
    """Each seat's action; padding seats, removed seats and ids outside the action space act noop."""
    acts = np.asarray(actions, np.int64).reshape(-1)
    if acts.shape != (world.capacity,):
        raise ValueError(f"actions: expected {world.capacity} (one per seat), got shape {acts.shape}")
    live = np.array([world.live_seat(seat) for seat in range(world.capacity)], bool)
    valid = live & (acts >= 0) & (acts < NUM_ACTIONS)
    return np.where(valid, acts, int(Action.NOOP)).astype(np.int32)


def execute_shares(world: World, acts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``coop_env._execute_shares``, before anything else, in seat order: a share hands
    ``min(quantity, held)`` of a good (bag item, food, drink or energy) to another live seat at any
    distance; no cap now (the receiver's own update clamps it). Returns share_to, share_good,
    share_qty (share_to -1 when nothing moved; share_good is the good asked for)."""
    share_to = np.full(world.capacity, -1, np.int32)
    share_good = np.zeros(world.capacity, np.int32)
    share_qty = np.zeros(world.capacity, np.int32)
    for seat in range(world.capacity):
        decoded = decode_share(int(acts[seat]))
        if decoded is None:
            continue
        to, good, quantity = decoded
        share_good[seat] = good_index(good)
        if to == seat or to >= world.capacity or not world.live_seat(to):
            continue
        row, index = world.bag(seat, good)
        held = int(row[index])
        if held <= 0:
            continue
        moved = min(quantity, held)
        row[index] -= moved
        to_row, to_index = world.bag(to, good)
        to_row[to_index] += moved
        share_to[seat], share_qty[seat] = to, moved
    return share_to, share_good, share_qty


def resource_at(world: World, cell: Cell) -> int:
    """The resource code of a cell (``state.RESOURCES`` index, -1 none): its material if
    ``data.yaml collect`` lists it, else a cow standing there (coop_env's scan, material first)."""
    if not world.inside(cell):
        return -1
    material = world.material(cell)
    if material in RESOURCE_MATERIALS:
        return RESOURCE_MATERIALS.index(Material(material))
    occupant = world.occupant.get(cell)
    if occupant is not None and occupant[0] == "cow":
        return COW_CODE
    return -1


def holds_tool(world: World, seat: int, resource: str) -> bool:
    """``cooperative_tasks.satisfies_tool_requirement``: that exact tool (count > 0), or none."""
    tool = world.settings.resources[resource].tool
    return tool == "none" or int(world.inventory[seat, Item[tool.upper()]]) > 0


def collect(world: World, acts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``coop_env._process_cooperative_collections``: every DO seat (asleep or not) reaches every
    cell within Manhattan ``collect_distance`` (no facing). A reached resource is taken when at
    least its quorum of the seats reaching it hold its tool; those seats are its participants.
    Targets are independent (nothing moves here). Returns do_pos, do_tools, tgt_res."""
    offsets = reach_offsets(world.settings.collect_distance)
    do_pos = world.pos.copy()
    do_tools = world.inventory[:, list(PICKAXES)] > 0
    tgt_res = np.full((world.capacity, len(offsets)), -1, np.int32)
    targets: dict[Cell, tuple[int, list[int]]] = {}  # cell -> (resource code, seats holding its tool)
    for seat in range(world.capacity):
        if acts[seat] != Action.DO:
            continue
        x, y = world.seat_cell(seat)
        for k, (dx, dy) in enumerate(offsets.tolist()):
            cell = (x + dx, y + dy)
            code = resource_at(world, cell)
            if code < 0:
                continue
            tgt_res[seat, k] = code
            _, ready = targets.setdefault(cell, (code, []))
            if holds_tool(world, seat, RESOURCES[code]):
                ready.append(seat)
    for cell, (code, ready) in targets.items():
        if len(ready) >= world.settings.resources[RESOURCES[code]].quorum:
            take(world, cell, code, ready)
    return do_pos, do_tools, tgt_res


def take(world: World, cell: Cell, code: int, participants: list[int]) -> None:
    """``coop_env._execute_cooperative_collection``: a material becomes what ``data.yaml`` says it
    leaves and each participant gets one unit (collect_<item>); a cow is removed and each
    participant gets ``cow_food`` food (eat_cow). Then the team score (``_record_team_score_event``)."""
    if code == COW_CODE:
        world.remove_cow(world.occupant[cell][1])
        for seat in participants:
            world.vitals[seat, Vital.FOOD] += world.settings.cow_food
            world.achievements[seat, Achievement.EAT_COW] += 1
    else:
        world.grid[cell[1], cell[0]] = LEAVES[Material(world.material(cell))]
        gives = RESOURCE_GIVES[RESOURCES[code]]
        for seat in participants:
            row, index = world.bag(seat, gives)
            row[index] += 1
            world.achievements[seat, Achievement[f"COLLECT_{gives.upper()}"]] += 1
    record_score(world, RESOURCES[code], len(participants))


def record_score(world: World, resource: str, participants: int) -> None:
    """``coop_env._record_team_score_event`` with ``get_item_team_score``: a scored unit counts
    its value once per participant (``score_per_participant``); units of value 0 are not counted."""
    settings = world.settings
    if resource not in SCORED or settings.unit_value(resource) <= 0:
        return
    world.score += settings.collection_score(resource, participants)
    world.score_units[SCORED.index(resource)] += participants if settings.score_per_participant else 1


def remove_fallen(world: World, acts: np.ndarray) -> bool:
    """``env.step_one_player``'s end, called for every player that does not DO: health <= 0 ->
    ``world.remove`` (it no longer updates or blocks). Whether any seat fell (the episode ends)."""
    fell = False
    for seat in range(world.capacity):
        if world.live_seat(seat) and acts[seat] != Action.DO and world.vitals[seat, Vital.HEALTH] <= 0:
            world.remove_seat(seat)
            fell = True
    return fell


def update_objects(world: World, acts: np.ndarray, draws: StepDraws) -> None:
    """``for obj in self._world.objects: obj.update()``: live players and cows in creation order.
    A DO seat updates with noop (coop_env sets its action to noop once it has collected)."""
    queue = [(int(world.order[seat]), "seat", seat) for seat in range(world.capacity) if world.live_seat(seat)]
    queue += [(int(world.order[world.capacity + cow]), "cow", int(cow)) for cow in np.flatnonzero(world.cow_alive)]
    for _, kind, index in sorted(queue):
        if kind == "cow":
            update_cow(world, index, draws)
        else:
            action = int(acts[index])
            update_player(world, index, Action.NOOP if action == Action.DO else action)


def update_cow(world: World, cow: int, draws: StepDraws) -> None:
    """``objects.Cow.update``: with probability ``cow_move_probability`` it tries one step in a
    random direction (``Object.all_dirs``: left, right, up, down) onto a free grass/sand/path cell."""
    if int(draws.cow_move[cow]) >= threshold(world.settings.cow_move_probability):
        return
    dx, dy = VECTORS[MOVES[int(draws.cow_dir[cow]) % 4]]
    cell = (int(world.cow_pos[cow, 0]) + dx, int(world.cow_pos[cow, 1]) + dy)
    if world.free(cell, WALKABLE):
        world.move_cow(cow, cell)


def update_player(world: World, seat: int, action: int) -> None:
    """``objects.Player.update``: the sleep lock, the action, the life stats, the health clock,
    the clamp of every bag entry, then waking when hurt."""
    max_vital = world.settings.vital_max
    if world.sleeping[seat]:
        if world.vitals[seat, Vital.ENERGY] < max_vital:
            action = Action.SLEEP
        else:
            world.sleeping[seat] = False
            world.achievements[seat, Achievement.WAKE_UP] += 1
    if action in MOVES:
        move_player(world, seat, Action(action))
    elif action == Action.SLEEP:
        if world.vitals[seat, Vital.ENERGY] < max_vital:
            world.sleeping[seat] = True
    elif action in PLACED:
        place(world, seat, Action(action))
    elif action in CRAFTS:
        make(world, seat, Action(action))
    life_stats(world, seat)
    degen_or_regen_health(world, seat)
    world.vitals[seat] = np.clip(world.vitals[seat], 0, max_vital)
    world.inventory[seat] = np.clip(world.inventory[seat], 0, world.settings.item_max)
    if world.vitals[seat, Vital.HEALTH] < world.last_health[seat]:  # Player._wake_up_when_hurt
        world.sleeping[seat] = False
    world.last_health[seat] = world.vitals[seat, Vital.HEALTH]


def move_player(world: World, seat: int, action: Action) -> None:
    """``Player._move``: face the way, step if the cell is free (lava is walkable for players),
    then standing on lava sets health to 0."""
    world.facing[seat] = MOVES.index(action)
    dx, dy = VECTORS[action]
    x, y = world.seat_cell(seat)
    if world.free((x + dx, y + dy), AGENT_WALKABLE):
        world.move_seat(seat, (x + dx, y + dy))
    if world.material(world.seat_cell(seat)) == Material.LAVA:
        world.vitals[seat, Vital.HEALTH] = 0


def place(world: World, seat: int, action: Action) -> None:
    """``Player._place`` on the faced cell: no object there, a material of ``where``, the cost in
    the bag. A plant is an engine object in EmCoop, so placing one opens its chunk (``World.add``)."""
    x, y = world.seat_cell(seat)
    dx, dy = VECTORS[MOVES[int(world.facing[seat])]]
    cell = (x + dx, y + dy)
    if not world.inside(cell) or cell in world.occupant or world.material(cell) not in PLACEABLE_ON[action]:
        return
    item, cost = place_cost(world.settings, action)
    if world.inventory[seat, item] < cost:
        return
    world.inventory[seat, item] -= cost
    world.grid[cell[1], cell[0]] = PLACED[action]
    world.achievements[seat, Achievement[action.name]] += 1
    if action == Action.PLACE_PLANT:
        world.touch(cell)


def place_cost(settings: CrafterSettings, action: Action) -> tuple[Item, int]:
    """``data.yaml place.<name>.uses``: the one item a placement consumes, and how many."""
    return {
        Action.PLACE_STONE: (Item.STONE, STONE_PER_PLACE),
        Action.PLACE_TABLE: (Item.WOOD, settings.table_wood),
        Action.PLACE_FURNACE: (Item.STONE, settings.furnace_stone),
        Action.PLACE_PLANT: (Item.SAPLING, SAPLINGS_PER_PLANT),
    }[action]


def nearby_materials(world: World, cell: Cell) -> set[int]:
    """``engine.World.nearby(pos, 1)``'s materials: the 3x3 around the cell, clipped at the high
    edges; EMPTY at column 0 or row 0 (a negative numpy slice start selects nothing)."""
    x, y = cell
    if x < 1 or y < 1:
        return set()
    return set(np.unique(world.grid[y - 1 : y + 2, x - 1 : x + 2]).tolist())


def make(world: World, seat: int, action: Action) -> None:
    """``Player._make``: every station of the recipe nearby, the ingredients in the bag; pays them,
    +1 of the item, make_<item>."""
    item = CRAFTS[action]
    recipe = world.settings.recipes[item.name.lower()]
    nearby = nearby_materials(world, world.seat_cell(seat))
    if not all(int(Material[station.upper()]) in nearby for station in recipe.stations):
        return
    needs = [(Item[name.upper()], amount) for name, amount in recipe.needs.items()]
    if any(world.inventory[seat, need] < amount for need, amount in needs):
        return
    for need, amount in needs:
        world.inventory[seat, need] -= amount
    world.inventory[seat, item] += 1
    world.achievements[seat, Achievement[f"MAKE_{item.name}"]] += 1


def life_stats(world: World, seat: int) -> None:
    """``Player._update_life_stats``; counters are twice EmCoop's floats (asleep: half rate for
    hunger and thirst, fatigue falls to at most 0; awake: fatigue rises)."""
    settings, asleep = world.settings, bool(world.sleeping[seat])
    hunger, thirst, fatigue, recover = (int(v) for v in world.counters[seat])
    vitals = world.vitals[seat]
    hunger += 1 if asleep else 2
    if hunger > 2 * settings.hunger_threshold:
        hunger, vitals[Vital.FOOD] = 0, vitals[Vital.FOOD] - 1
    thirst += 1 if asleep else 2
    if thirst > 2 * settings.thirst_threshold:
        thirst, vitals[Vital.DRINK] = 0, vitals[Vital.DRINK] - 1
    fatigue = min(fatigue - 2, 0) if asleep else fatigue + 2
    if fatigue < -2 * settings.rest_threshold:
        fatigue, vitals[Vital.ENERGY] = 0, vitals[Vital.ENERGY] + 1
    if fatigue > 2 * settings.fatigue_threshold:
        fatigue, vitals[Vital.ENERGY] = 0, vitals[Vital.ENERGY] - 1
    world.counters[seat] = (hunger, thirst, fatigue, recover)


def degen_or_regen_health(world: World, seat: int) -> None:
    """``Player._degen_or_regen_health``: fed (food, drink, and energy or sleep) -> recover rises
    (+1, asleep +2), else falls (-1, asleep -0.5); past a threshold it resets and health moves by 1
    (never below 0: the ``health`` setter)."""
    settings, asleep = world.settings, bool(world.sleeping[seat])
    vitals = world.vitals[seat]
    fed = vitals[Vital.FOOD] > 0 and vitals[Vital.DRINK] > 0 and (vitals[Vital.ENERGY] > 0 or asleep)
    recover = int(world.counters[seat, 3])
    recover += (4 if asleep else 2) if fed else (-1 if asleep else -2)
    if recover > 2 * settings.recover_threshold:
        recover, vitals[Vital.HEALTH] = 0, max(0, int(vitals[Vital.HEALTH]) + 1)
    if recover < -2 * settings.degen_threshold:
        recover, vitals[Vital.HEALTH] = 0, max(0, int(vitals[Vital.HEALTH]) - 1)
    world.counters[seat, 3] = recover


__all__ = ["World", "reference_step"]
