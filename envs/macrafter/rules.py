"""MA-Crafter's shared vocabulary: tiles, items, primitive actions, tool tiers and directions.

The JAX env, the symbolic view, the events, the skills and the metrics all index these integer
enums, so an int stored in a jitted state decodes to the same name everywhere. Every *number* of
the cooperative rules (quorums, tools, values, recipes) is a setting (`envs.macrafter.settings`),
not a constant here.
"""

from __future__ import annotations

from enum import IntEnum


class Material(IntEnum):
    """What one cell of the world holds. Plants and cows are cells too (they do not wander)."""

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
    """An inventory slot. Every item can be shared; tools are kept, materials are consumed."""

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
    """Primitive actions. A move turns the agent to face that way and steps if the cell is free; DO
    acts on the faced cell (collect, drink, eat); MAKE_* crafts near a station. Sharing is an action
    family after these: ``share_action(target_seat, item)`` hands one unit to that teammate."""

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


MAX_AGENTS = 8  # the action space is sized for it, so action ids never depend on the team size
MIN_AGENTS = 1
SHARE_BASE = len(Action)  # the first share action id
NUM_ACTIONS = SHARE_BASE + MAX_AGENTS * NUM_ITEMS


def share_action(target_seat: int, item: Item | int) -> int:
    """The primitive action that hands one unit of ``item`` to ``target_seat``."""
    if not 0 <= target_seat < MAX_AGENTS:
        raise ValueError(f"share: seat {target_seat} is outside 0..{MAX_AGENTS - 1}")
    return SHARE_BASE + target_seat * NUM_ITEMS + int(item)


def decode_share(action: int) -> tuple[int, Item] | None:
    """``(target_seat, item)`` of a share action, None for every other action."""
    if action < SHARE_BASE or action >= NUM_ACTIONS:
        return None
    seat, item = divmod(action - SHARE_BASE, NUM_ITEMS)
    return seat, Item(item)


def action_name(action: int) -> str:
    """A primitive action's name (``share_2_wood`` for the share family)."""
    shared = decode_share(action)
    if shared is not None:
        return f"share_{shared[0]}_{shared[1].name.lower()}"
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
# Where a placed object may go (Crafter's rule; stone may also fill water and lava).
PLACEABLE_ON: dict[Action, tuple[Material, ...]] = {
    Action.PLACE_STONE: (Material.GRASS, Material.SAND, Material.PATH, Material.WATER, Material.LAVA),
    Action.PLACE_TABLE: (Material.GRASS, Material.SAND, Material.PATH),
    Action.PLACE_FURNACE: (Material.GRASS, Material.SAND, Material.PATH),
    Action.PLACE_PLANT: (Material.GRASS,),
}

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
