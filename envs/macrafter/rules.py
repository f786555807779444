"""MA-Crafter's shared vocabulary: tiles, items, primitive actions, tool tiers and directions.

The JAX env, the symbolic view, the events, the skills and the metrics all index these integer
enums, so an int stored in a jitted state decodes to the same name everywhere. Every *number* of
the cooperative rules (quorums, tools, values, recipes) is a setting (`envs.macrafter.settings`),
not a constant here.
"""

from __future__ import annotations

from enum import IntEnum


class Material(IntEnum):
    """What one cell of the world holds. Cows are objects that wander (``CrafterState.cow_pos``);
    ``COW`` marks their cells only in the typed view's drawing of the map, never in the state's grid.
    ``RIPE_PLANT`` is kept for old records: EmCoop's plants never ripen."""

    GRASS = 0
    SAND = 1
    WATER = 2
    TREE = 3
    STONE = 4
    COAL = 5
    IRON = 6
    DIAMOND = 7
    LAVA = 8
    PATH = 9  # where stone, coal, iron or diamond was mined
    TABLE = 10
    FURNACE = 11
    PLANT = 12  # a sapling, not ripe yet
    RIPE_PLANT = 13
    COW = 14


class Item(IntEnum):
    """An inventory slot (EmCoop's bag, vitals aside). Tools are kept, materials are consumed."""

    WOOD = 0
    STONE = 1
    COAL = 2
    IRON = 3
    DIAMOND = 4
    SAPLING = 5
    WOOD_PICKAXE = 6
    STONE_PICKAXE = 7
    IRON_PICKAXE = 8
    WOOD_SWORD = 9
    STONE_SWORD = 10
    IRON_SWORD = 11


NUM_ITEMS = len(Item)


class Vital(IntEnum):
    """An agent's body, each 0..``settings.vital_max`` (health 0: the agent is down for the episode)."""

    HEALTH = 0
    FOOD = 1
    DRINK = 2
    ENERGY = 3


class Action(IntEnum):
    """Primitive actions, in EmCoop's order (``data.yaml``). A move turns the agent to face that way and
    steps if the cell is free; DO collects every resource within ``collect_distance`` (no facing);
    PLACE_* fills the faced cell; MAKE_* crafts beside a station. Sharing is an action family after
    these: ``share_action(target_seat, good, qty)`` hands up to ``qty`` of one good to that teammate
    (what it holds if less), at any distance, before anything else in the step (EmCoop's share)."""

    NOOP = 0
    LEFT = 1
    RIGHT = 2
    UP = 3
    DOWN = 4
    DO = 5
    SLEEP = 6
    PLACE_STONE = 7
    PLACE_TABLE = 8
    PLACE_FURNACE = 9
    PLACE_PLANT = 10
    MAKE_WOOD_PICKAXE = 11
    MAKE_STONE_PICKAXE = 12
    MAKE_IRON_PICKAXE = 13
    MAKE_WOOD_SWORD = 14
    MAKE_STONE_SWORD = 15
    MAKE_IRON_SWORD = 16


# What a share may hand over: every bag item, and food, drink and energy (EmCoop refuses health only).
SHARE_GOODS: tuple[str, ...] = (*(i.name.lower() for i in Item), "food", "drink", "energy")
SHARE_VITALS: dict[str, Vital] = {"food": Vital.FOOD, "drink": Vital.DRINK, "energy": Vital.ENERGY}
NUM_GOODS = len(SHARE_GOODS)
MAX_SHARE = 20  # the largest quantity one share names: EmCoop's bag cap (data.yaml max_object_capacity)

MAX_AGENTS = 8  # the action space is sized for it, so action ids never depend on the team size
MIN_AGENTS = 1
SHARE_BASE = len(Action)  # the first share action id
NUM_ACTIONS = SHARE_BASE + MAX_AGENTS * NUM_GOODS * MAX_SHARE


def good_index(good: Item | str | int) -> int:
    """The index in ``SHARE_GOODS`` of an Item, a good's name or an index."""
    if isinstance(good, Item):
        return int(good)
    if isinstance(good, str):
        if good not in SHARE_GOODS:
            raise ValueError(f"share: {good!r} cannot be shared; one of {list(SHARE_GOODS)}")
        return SHARE_GOODS.index(good)
    if not 0 <= int(good) < NUM_GOODS:
        raise ValueError(f"share: good {good} is outside 0..{NUM_GOODS - 1}")
    return int(good)


def share_action(target_seat: int, good: Item | str | int, qty: int = 1) -> int:
    """The primitive action that hands up to ``qty`` of ``good`` to ``target_seat``."""
    if not 0 <= target_seat < MAX_AGENTS:
        raise ValueError(f"share: seat {target_seat} is outside 0..{MAX_AGENTS - 1}")
    if not 1 <= qty <= MAX_SHARE:
        raise ValueError(f"share: quantity {qty} is outside 1..{MAX_SHARE}")
    return SHARE_BASE + (target_seat * NUM_GOODS + good_index(good)) * MAX_SHARE + qty - 1


def decode_share(action: int) -> tuple[int, str, int] | None:
    """``(target_seat, good name, qty)`` of a share action, None for every other action."""
    if action < SHARE_BASE or action >= NUM_ACTIONS:
        return None
    rest, q = divmod(action - SHARE_BASE, MAX_SHARE)
    seat, good = divmod(rest, NUM_GOODS)
    return seat, SHARE_GOODS[good], q + 1


def action_name(action: int) -> str:
    """A primitive action's name (``share_2_wood_3`` for the share family)."""
    shared = decode_share(action)
    if shared is not None:
        return f"share_{shared[0]}_{shared[1]}_{shared[2]}"
    return Action(action).name.lower()


ACTION_NAMES: tuple[str, ...] = tuple(action_name(a) for a in range(NUM_ACTIONS))

MOVES: tuple[Action, ...] = (Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN)
# (dx, dy) per move, y grows downwards (row 0 is the top). Facing is stored as the index in MOVES.
VECTORS: dict[Action, tuple[int, int]] = {
    Action.LEFT: (-1, 0),
    Action.RIGHT: (1, 0),
    Action.UP: (0, -1),
    Action.DOWN: (0, 1),
}

WALKABLE: tuple[Material, ...] = (Material.GRASS, Material.SAND, Material.PATH)
# An agent may also step onto lava, which kills it (EmCoop's Player.walkable); cows may not.
AGENT_WALKABLE: tuple[Material, ...] = (*WALKABLE, Material.LAVA)
# Where a placed object may go (Crafter's rule; stone may also fill water and lava).
PLACEABLE_ON: dict[Action, tuple[Material, ...]] = {
    Action.PLACE_STONE: (Material.GRASS, Material.SAND, Material.PATH, Material.WATER, Material.LAVA),
    Action.PLACE_TABLE: (Material.GRASS, Material.SAND, Material.PATH),
    Action.PLACE_FURNACE: (Material.GRASS, Material.SAND, Material.PATH),
    Action.PLACE_PLANT: (Material.GRASS,),
}

# What a collected cell becomes (EmCoop's data.yaml ``collect.*.leaves``); water is never used up.
LEAVES: dict[Material, Material] = {
    Material.TREE: Material.GRASS,
    Material.STONE: Material.PATH,
    Material.COAL: Material.PATH,
    Material.IRON: Material.PATH,
    Material.DIAMOND: Material.PATH,
    Material.WATER: Material.WATER,
}


class Achievement(IntEnum):
    """EmCoop's per-agent achievement counters (``data.yaml`` order)."""

    COLLECT_COAL = 0
    COLLECT_DIAMOND = 1
    COLLECT_DRINK = 2
    COLLECT_IRON = 3
    COLLECT_SAPLING = 4
    COLLECT_STONE = 5
    COLLECT_WOOD = 6
    DEFEAT_SKELETON = 7
    DEFEAT_ZOMBIE = 8
    EAT_COW = 9
    EAT_PLANT = 10
    MAKE_IRON_PICKAXE = 11
    MAKE_IRON_SWORD = 12
    MAKE_STONE_PICKAXE = 13
    MAKE_STONE_SWORD = 14
    MAKE_WOOD_PICKAXE = 15
    MAKE_WOOD_SWORD = 16
    PLACE_FURNACE = 17
    PLACE_PLANT = 18
    PLACE_STONE = 19
    PLACE_TABLE = 20
    WAKE_UP = 21


NUM_ACHIEVEMENTS = len(Achievement)

# A tool's tier (0: bare hands); the tier of the tool a resource needs scales its value.
TOOL_TIERS: dict[str, int] = {"none": 0, "wood_pickaxe": 1, "stone_pickaxe": 2, "iron_pickaxe": 3}
PICKAXES: tuple[Item, ...] = (Item.WOOD_PICKAXE, Item.STONE_PICKAXE, Item.IRON_PICKAXE)

# MAKE_* action -> the item it crafts.
CRAFTS: dict[Action, Item] = {
    Action.MAKE_WOOD_PICKAXE: Item.WOOD_PICKAXE,
    Action.MAKE_STONE_PICKAXE: Item.STONE_PICKAXE,
    Action.MAKE_IRON_PICKAXE: Item.IRON_PICKAXE,
    Action.MAKE_WOOD_SWORD: Item.WOOD_SWORD,
    Action.MAKE_STONE_SWORD: Item.STONE_SWORD,
    Action.MAKE_IRON_SWORD: Item.IRON_SWORD,
}
