"""What MA-Crafter's skills name: the targets, resources, crafts and objects, and the cells they mean.

Shared by the skill book (checks and done-tests), the controller (where to walk, what to press) and
the scripted partners, so a name means one thing everywhere. Every number (quorums, tools, recipe
needs, collect distance) is read from the state's settings, never restated here.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.macrafter.rules import Action, Material
from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.navigation import (
    cells_of,
    chebyshev,
    distances,
    occupied,
    route,
    stand_cells,
    tile,
    walkable,
)
from proagent.domains.macrafter.process_terms import holds_tool

AGENT = "agent"
# navigate(target): the things an agent can stand beside and face.
PLACES: dict[str, tuple[Material, ...]] = {
    "tree": (Material.TREE,),
    "stone": (Material.STONE,),
    "coal": (Material.COAL,),
    "iron": (Material.IRON,),
    "diamond": (Material.DIAMOND,),
    "water": (Material.WATER,),
    "table": (Material.TABLE,),
    "furnace": (Material.FURNACE,),
    "cow": (Material.COW,),
    "plant": (Material.PLANT,),
}
RESOURCES = ("tree", "stone", "coal", "iron", "diamond")  # the quorum-collected ones (settings.resources)
ITEM_OF = {"tree": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond"}
RESOURCE_OF_ITEM = {item: resource for resource, item in ITEM_OF.items()}


@dataclass(frozen=True)
class Gatherable:
    """Something ``collect`` gets by pressing DO on it: its cells and what it is for."""

    materials: tuple[Material, ...]
    what: str


# collect(x): the five scored resources, water (drink) and cows (food): EmCoop's collectables.
COLLECTABLE: dict[str, Gatherable] = {
    **{r: Gatherable(PLACES[r], f"mine it for {ITEM_OF[r]}") for r in RESOURCES},
    "water": Gatherable((Material.WATER,), "drink until your drink is full"),
    "cow": Gatherable((Material.COW,), "eat a cow (food)"),
}
STATION_REACH = 1  # EmCoop's engine.World.nearby(pos, 1): the 3x3 square around the crafter
# place(x): the action, what it costs (an item name, or a settings field for the stations).
PLACE_ACTIONS: dict[str, Action] = {
    "table": Action.PLACE_TABLE,
    "furnace": Action.PLACE_FURNACE,
    "stone": Action.PLACE_STONE,
    "plant": Action.PLACE_PLANT,
}
PLACED_MATERIAL: dict[str, Material] = {
    "table": Material.TABLE,
    "furnace": Material.FURNACE,
    "stone": Material.STONE,
    "plant": Material.PLANT,
}
CRAFT_ACTIONS: dict[str, Action] = {
    "wood_pickaxe": Action.MAKE_WOOD_PICKAXE,
    "stone_pickaxe": Action.MAKE_STONE_PICKAXE,
    "iron_pickaxe": Action.MAKE_IRON_PICKAXE,
    "wood_sword": Action.MAKE_WOOD_SWORD,
    "stone_sword": Action.MAKE_STONE_SWORD,
    "iron_sword": Action.MAKE_IRON_SWORD,
}
STATION_MATERIAL = {"table": Material.TABLE, "furnace": Material.FURNACE}


def place_cost(view: CrafterView, obj: str) -> dict[str, int]:
    """What placing ``obj`` takes from the bag."""
    s = view.settings
    return {
        "table": {"wood": s.table_wood},
        "furnace": {"stone": s.furnace_stone},
        "stone": {"stone": 1},
        "plant": {"sapling": 1},
    }[obj]


def tool_ok(view: CrafterView, seat: int, resource: str) -> bool:
    """Whether the seat holds the resource's tool: that exact tool (a better pickaxe does not do)."""
    return holds_tool(view.agents[seat], view.settings.resources[resource].tool)


def diggable(view: CrafterView, seat: int) -> frozenset[int]:
    """The materials the seat can mine away alone on its way (stone, with a pickaxe, at quorum 1)."""
    rule = view.settings.resources["stone"]
    return frozenset({int(Material.STONE)}) if rule.quorum <= 1 and tool_ok(view, seat, "stone") else frozenset()


def way_to(
    view: CrafterView, seat: int, targets: list[Pos], ordered: bool = False
) -> tuple[int, Pos | None, Action | None]:
    """`route` for this seat, mining through stone where it can and no open way exists."""
    return route(view, seat, targets, ordered, diggable(view, seat))


def known_cells(view: CrafterView, name: str) -> list[Pos]:
    """The known cells of a collectable or a place name."""
    materials = COLLECTABLE[name].materials if name in COLLECTABLE else PLACES[name]
    return cells_of(view, materials)


def collect_targets(view: CrafterView, seat: int, name: str) -> list[Pos]:
    """The cells ``collect(name)`` may work on, best first: for a quorum resource the one most agents
    face (ties: the lowest such seat, so every agent picks the same cell and the quorum gathers on
    it), then ones with room beside them for the whole quorum, then the nearest."""
    cells = known_cells(view, name)
    if not cells:
        return cells
    quorum = view.settings.resources[name].quorum if name in RESOURCES else 1
    workers: dict[Pos, list[int]] = {}
    for agent in view.agents:
        if agent.alive and quorum > 1 and tile(view, agent.position) is not None:
            workers.setdefault(agent.faced_cell, []).append(agent.seat)
    reach = distances(view, seat)
    me = view.agents[seat].position

    def rank(cell: Pos) -> tuple[int, int, int, int]:
        beside = stand_cells(view, seat, cell)
        steps = min((reach[c][0] for c in beside if c in reach), default=10_000)
        if me in beside:
            steps = 0
        faced_by = workers.get(cell, [])
        return (-len(faced_by), min(faced_by, default=99), 0 if len(beside) >= min(quorum, 4) else 1, steps)

    return sorted(cells, key=rank)


def near_stations(view: CrafterView, cell: Pos, stations: tuple[str, ...]) -> bool:
    """Whether one known cell of each station lies in the 3x3 square around ``cell``. EmCoop's
    ``nearby`` slices the map from x-1 and y-1, which sees nothing from column 0 or row 0."""
    if cell[0] < 1 or cell[1] < 1:
        return False
    return all(
        any(chebyshev(cell, s) <= STATION_REACH for s in cells_of(view, (STATION_MATERIAL[n],))) for n in stations
    )


def craft_spots(view: CrafterView, seat: int, stations: tuple[str, ...]) -> list[Pos]:
    """Cells the seat could craft from (near every station), its own cell first if it is one."""
    me = view.agents[seat].position
    taken = occupied(view, seat)
    radius = STATION_REACH
    around: set[Pos] = set()
    for station in cells_of(view, (STATION_MATERIAL[stations[0]],)):
        x, y = station
        around |= {(x + dx, y + dy) for dx in range(-radius, radius + 1) for dy in range(-radius, radius + 1)}
    spots = [c for c in around if (c == me or walkable(view, c, taken)) and near_stations(view, c, stations)]
    return sorted(spots, key=lambda c: (c != me, c))


__all__ = [
    "AGENT",
    "COLLECTABLE",
    "CRAFT_ACTIONS",
    "ITEM_OF",
    "PLACED_MATERIAL",
    "PLACES",
    "PLACE_ACTIONS",
    "RESOURCES",
    "RESOURCE_OF_ITEM",
    "STATION_REACH",
    "collect_targets",
    "craft_spots",
    "known_cells",
    "near_stations",
    "place_cost",
    "tool_ok",
]
