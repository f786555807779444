"""The vocabulary MA-Crafter's cooperation process shares: the constraint names, the resources
that are tasks, the item classes and the few readings of a `CrafterView` (its rules, distance,
tool holding, the nearest cell of a material) that the process modules and the environment
feedback (`feedback.py`) use.

Each constant restates a name of EmCoop's ``ma_crafter/`` code (``HappyEureka/coop2-llm-mas``),
named in its comment: the tracker's constraints and ``COLLECTABLE_MATERIALS``
(``macrafter/cooperative_tasks.py``), the attempt events' scored constraints
(``cognitive/coop2_attempt_events.py``) and ``satisfies_tool_requirement``. The process itself is
gathered by `proagent.domains.macrafter.constraints`.
"""

from __future__ import annotations

from envs.macrafter.rules import Item, Material
from envs.macrafter.settings import RESOURCE_GIVES, CrafterSettings
from envs.macrafter.symbolic import AgentState, CrafterView, Pos

# The task tracker's four constraints (``TaskState.to_dict``), in the order records list them.
CONSTRAINTS: tuple[str, ...] = ("spatial", "temporal", "participation", "dependency")
# The constraints EmCoop scores per attempt event and counts in C⁺ / C⁻ (no participation).
ATTEMPT_CONSTRAINTS: tuple[str, ...] = ("spatial", "temporal", "dependency")
CHANGE_CONSTRAINTS: tuple[str, ...] = ATTEMPT_CONSTRAINTS
# ``COLLECTABLE_MATERIALS``: the cells that are tasks, and the resource each is.
TASK_RESOURCES: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond", "water")
TASK_MATERIAL: dict[str, Material] = {
    "tree": Material.TREE,
    "stone": Material.STONE,
    "coal": Material.COAL,
    "iron": Material.IRON,
    "diamond": Material.DIAMOND,
    "water": Material.WATER,
}
STATUSES: tuple[str, ...] = ("pending", "in_progress", "ready")

# Where each resource lies on the map (the view draws cows into the grid), for the feedback snapshot.
RESOURCE_MATERIAL: dict[str, Material] = {**TASK_MATERIAL, "cow": Material.COW}
RESOURCE_ITEM: dict[str, str] = dict(RESOURCE_GIVES)
STATION_MATERIAL: dict[str, Material] = {"table": Material.TABLE, "furnace": Material.FURNACE}
TOOL_TIER_OF: dict[str, int] = {"none": 0, "wood_pickaxe": 1, "stone_pickaxe": 2, "iron_pickaxe": 3}
TOOLS: frozenset[str] = frozenset(i.name.lower() for i in Item if i >= Item.WOOD_PICKAXE)
MATERIALS: tuple[str, ...] = tuple(i.name.lower() for i in Item if i < Item.WOOD_PICKAXE)


def settings_of(view: CrafterView) -> CrafterSettings:
    """The rules a view was made under (a hand-built view without them: the default rules)."""
    return view.settings


def manhattan(a: Pos, b: Pos) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def holds_tool(agent: AgentState, tool: str) -> bool:
    """Whether the agent holds exactly ``tool`` (``none`` is always held): EmCoop's
    ``satisfies_tool_requirement``, as the env collects."""
    return tool == "none" or agent.count(tool) > 0


def nearest_cell(view: CrafterView, material: Material) -> Pos | None:
    """The cell of ``material`` nearest to any alive agent (Manhattan; ties by row, then column)."""
    alive = [a.position for a in view.agents if a.alive]
    cells = view.cells_of(material)
    if not alive or not cells:
        return None
    return min(cells, key=lambda c: (min(manhattan(c, p) for p in alive), c[1], c[0]))


def task_label(resource: str, cell: Pos) -> str:
    return f"{resource} at {cell[0]},{cell[1]}"
