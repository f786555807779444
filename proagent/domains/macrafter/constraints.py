"""EmCoop's cooperation constraints (C+ / C-) for MA-Crafter per task and step, and capability changes dZ.

MA-Crafter is the world where EmCoop's dependency and participation constraints bite: a resource
needs a quorum of agents holding a tool of some tier, a tool needs a station, ingredients and a
crafting quorum. At every step each active task's four constraints are satisfied (C+) or violated
(C-); each failed attempt is attributed to exactly one constraint, so a trace says *why* a team
stalled, and the capability change dZ (what each agent's bag gained or lost) shows what the step
achieved.

Definitions (counts are taken on ``before``; a task's quorum is p(g)):

- Active tasks of a step: every attempt the env recorded in ``after.attempts`` (a collection on a
  resource cell, a craft of an item); plus the team's *tier task*: the nearest cell (to any alive
  agent, Manhattan; ties by row then column) of the most valuable resource the team is equipped for
  (the last in tool-tier then value order whose tool some alive agent holds; trees need none),
  unless that cell was attempted anyway. The tier task shows how far the team is from working its
  best resource together when nobody tries.
- Collection of resource r at cell y, quorum q, tool T, reach d (``collect_distance``):
  spatial: #alive agents within Manhattan d of y; temporal: #agents that acted on y this step (the
  attempt's participants; 0 for an unattempted tier task); participation: #alive, awake agents
  holding T or a better pickaxe; each satisfied iff >= q. dependency: some alive agent holds T or
  better (the tech tree has reached r; trees always).
- Craft of item k, quorum q, stations S, ingredients N: spatial: #alive agents within Chebyshev
  ``station_radius`` of a placed cell of every station in S; temporal: #agents that crafted k this
  step; participation: #alive, awake agents (crafting needs no tool); each >= q. dependency: every
  station in S is placed somewhere and some participant (the leader) holds all of N.
- outcome: the env's (``ok``, ``too_few``, ``no_tool``, ``no_station``, ``missing_items``,
  ``blocked``) for an attempt, None for an unattempted tier task.
- Failure attribution, for every attempt whose outcome is not ``ok``: the first violated
  constraint in the order dependency, participation, spatial, temporal (a missing prerequisite
  makes the others moot; then too few capable agents in the team, too few at the task, too few
  acting together). When the counts violate none (the per-agent conjunction failed: e.g. enough
  capable agents were near, but the ones acting were others) the env's outcome decides:
  ``no_tool`` -> participation, ``too_few`` -> temporal, ``no_station`` / ``missing_items`` ->
  dependency, ``blocked`` -> spatial.
- Capability change dZ_i = Z_i(after) - Z_i(before) per agent i and bag item (materials and
  tools), from the two views. A task's ``delta_z`` is the units of its product (the resource's
  item, the crafted item) its participants gained; one ``capability`` record per step (when
  anything changed) holds every agent's dZ, including shares, placing and eating. The episode
  totals count materials and tools gained and lost separately.

The rules' numbers come from the view's settings (``CrafterView.settings``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envs.macrafter.rules import Item, Material
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView, Pos
from proagent.world.kit.process import tally_constraints

CONSTRAINTS: tuple[str, ...] = ("spatial", "temporal", "participation", "dependency")
# The order in which a failed attempt looks for its cause (see the module docstring).
ATTRIBUTION_ORDER: tuple[str, ...] = ("dependency", "participation", "spatial", "temporal")
# When the counts violate nothing, the env's outcome names the constraint.
OUTCOME_CAUSES: dict[str, str] = {
    "no_tool": "participation",
    "too_few": "temporal",
    "no_station": "dependency",
    "missing_items": "dependency",
    "blocked": "spatial",
}

RESOURCE_MATERIAL: dict[str, Material] = {
    "tree": Material.TREE,
    "stone": Material.STONE,
    "coal": Material.COAL,
    "iron": Material.IRON,
    "diamond": Material.DIAMOND,
}
RESOURCE_ITEM: dict[str, str] = {"tree": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond"}
STATION_MATERIAL: dict[str, Material] = {"table": Material.TABLE, "furnace": Material.FURNACE}
TOOL_TIER_OF: dict[str, int] = {"none": 0, "wood_pickaxe": 1, "stone_pickaxe": 2, "iron_pickaxe": 3}
TOOLS: frozenset[str] = frozenset(i.name.lower() for i in Item if i >= Item.WOOD_PICKAXE)
MATERIALS: tuple[str, ...] = tuple(i.name.lower() for i in Item if i < Item.WOOD_PICKAXE)

METRIC_NAMES: tuple[str, ...] = (
    *(f"c_{sign}_{c}" for c in CONSTRAINTS for sign in ("plus", "minus")),
    "coop_satisfied",
    "failed_attempts",
    *(f"failures_{c}" for c in CONSTRAINTS),
    "capability_changes",
    "task_steps",
    "collect_attempts",
    "collect_ok",
    "craft_attempts",
    "craft_ok",
    "dz_items_gained",
    "dz_items_lost",
    "dz_tools_gained",
    "dz_tools_lost",
)


def settings_of(view: CrafterView) -> CrafterSettings:
    """The rules a view was made under (a hand-built view without them: the default rules)."""
    return view.settings


def manhattan(a: Pos, b: Pos) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def chebyshev(a: Pos, b: Pos) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def holds_tool(agent: AgentState, tool: str) -> bool:
    """Whether the agent holds ``tool`` or a better pickaxe (``none`` is always held)."""
    return agent.tool_tier() >= TOOL_TIER_OF[tool]


def awake(agent: AgentState) -> bool:
    return agent.alive and not agent.sleeping


def tier_resource(view: CrafterView, settings: CrafterSettings) -> str:
    """The most valuable resource the team is equipped for: its tool is held by some alive agent."""
    ranked = sorted(
        settings.resources, key=lambda r: (TOOL_TIER_OF[settings.resources[r].tool], settings.resources[r].base_value)
    )
    equipped = [r for r in ranked if any(a.alive and holds_tool(a, settings.resources[r].tool) for a in view.agents)]
    return equipped[-1] if equipped else ranked[0]


def nearest_cell(view: CrafterView, material: Material) -> Pos | None:
    """The cell of ``material`` nearest to any alive agent (Manhattan; ties by row, then column)."""
    alive = [a.position for a in view.agents if a.alive]
    cells = view.cells_of(material)
    if not alive or not cells:
        return None
    return min(cells, key=lambda c: (min(manhattan(c, p) for p in alive), c[1], c[0]))


def near_stations(view: CrafterView, position: Pos, stations: Sequence[str], radius: int) -> bool:
    """Within Chebyshev ``radius`` of a placed cell of every station in ``stations``."""
    return all(any(chebyshev(position, c) <= radius for c in view.cells_of(STATION_MATERIAL[s])) for s in stations)


@dataclass(frozen=True, slots=True)
class TaskEval:
    """One task's constraint state in one step (the trace record is ``to_record``)."""

    kind: str  # collect | craft
    target: str  # the resource or the crafted item
    cell: Pos | None
    quorum: int
    tool: str
    participants: tuple[int, ...]
    counts: dict[str, int]
    satisfied: tuple[str, ...]
    violated: tuple[str, ...]
    outcome: str | None
    attributed: str | None
    delta_z: int

    @property
    def label(self) -> str:
        where = "" if self.cell is None else f" at {self.cell[0]},{self.cell[1]}"
        return f"{self.kind} {self.target}{where}"

    def to_record(self) -> dict:
        return {
            "task": self.label,
            "kind": self.kind,
            "target": self.target,
            "cell": None if self.cell is None else list(self.cell),
            "quorum": self.quorum,
            "tool": self.tool,
            "participants": list(self.participants),
            "counts": dict(self.counts),
            "satisfied": list(self.satisfied),
            "violated": list(self.violated),
            "outcome": self.outcome,
            "attributed": self.attributed,
            "delta_z": self.delta_z,
        }


def _judge(
    counts: dict[str, int], quorum: int, dependency: bool, outcome: str | None
) -> tuple[dict[str, bool], str | None]:
    ok = {c: counts[c] >= quorum for c in ("spatial", "temporal", "participation")} | {"dependency": dependency}
    if outcome is None or outcome == "ok":
        return ok, None
    cause = next((c for c in ATTRIBUTION_ORDER if not ok[c]), None)
    return ok, cause if cause is not None else OUTCOME_CAUSES.get(outcome, "temporal")


def _gained(before: CrafterView, after: CrafterView, seats: Sequence[int], item: str) -> int:
    return sum(
        max(0, after.agents[s].count(item) - before.agents[s].count(item)) for s in seats if s < len(after.agents)
    )


def _task(kind: str, target: str, cell: Pos | None, quorum: int, tool: str, participants: tuple[int, ...],
          counts: dict[str, int], dependency: bool, outcome: str | None, delta_z: int) -> TaskEval:  # fmt: skip
    ok, attributed = _judge(counts, quorum, dependency, outcome)
    return TaskEval(
        kind=kind,
        target=target,
        cell=cell,
        quorum=quorum,
        tool=tool,
        participants=participants,
        counts=counts,
        satisfied=tuple(c for c in CONSTRAINTS if ok[c]),
        violated=tuple(c for c in CONSTRAINTS if not ok[c]),
        outcome=outcome,
        attributed=attributed,
        delta_z=delta_z,
    )


def evaluate_collect(
    before: CrafterView, after: CrafterView, resource: str, cell: Pos, attempt: Attempt | None
) -> TaskEval:
    """One collection task (attempted when ``attempt`` is given)."""
    settings = settings_of(before)
    rule = settings.resources[resource]
    participants = attempt.participants if attempt is not None else ()
    counts = {
        "spatial": sum(
            1 for a in before.agents if a.alive and manhattan(a.position, cell) <= settings.collect_distance
        ),
        "temporal": len(participants),
        "participation": sum(1 for a in before.agents if awake(a) and holds_tool(a, rule.tool)),
    }
    dependency = any(a.alive and holds_tool(a, rule.tool) for a in before.agents)
    delta_z = _gained(before, after, participants, RESOURCE_ITEM[resource])
    outcome = attempt.outcome if attempt is not None else None
    return _task("collect", resource, cell, rule.quorum, rule.tool, participants, counts, dependency, outcome, delta_z)


def evaluate_craft(before: CrafterView, after: CrafterView, attempt: Attempt) -> TaskEval:
    """One attempted craft: the station(s) placed and near, the quorum crafting, the leader's bag."""
    settings = settings_of(before)
    recipe = settings.recipes[attempt.target]
    counts = {
        "spatial": sum(
            1
            for a in before.agents
            if a.alive and near_stations(before, a.position, recipe.stations, settings.station_radius)
        ),
        "temporal": len(attempt.participants),
        "participation": sum(1 for a in before.agents if awake(a)),
    }
    placed = all(before.cells_of(STATION_MATERIAL[s]) for s in recipe.stations)
    stocked = any(all(before.agents[s].count(i) >= n for i, n in recipe.needs.items()) for s in attempt.participants)
    delta_z = _gained(before, after, attempt.participants, attempt.target)
    return _task(
        "craft",
        attempt.target,
        attempt.cell,
        recipe.quorum,
        "none",
        attempt.participants,
        counts,
        placed and stocked,
        attempt.outcome,
        delta_z,
    )


def evaluate_step(before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[TaskEval]:
    """Every active task of the step from ``before`` to ``after``: the attempts in env order, then
    the tier task (unless attempted)."""
    n = len(before.agents)
    if len(actions) < n:
        raise ValueError(f"{len(actions)} actions for {n} agents")
    settings = settings_of(before)
    evals: list[TaskEval] = []
    for attempt in after.attempts:
        if attempt.kind == "craft":
            evals.append(evaluate_craft(before, after, attempt))
        elif attempt.cell is not None and attempt.target in settings.resources:
            evals.append(evaluate_collect(before, after, attempt.target, attempt.cell, attempt))
    resource = tier_resource(before, settings)
    cell = nearest_cell(before, RESOURCE_MATERIAL[resource])
    attempted = {(e.kind, e.cell) for e in evals}
    if cell is not None and ("collect", cell) not in attempted:
        evals.append(evaluate_collect(before, after, resource, cell, None))
    return evals


def capability_change(before: CrafterView, after: CrafterView) -> dict[int, dict[str, int]]:
    """dZ: per agent, every bag item whose count changed, as after - before (only non-zero)."""
    out: dict[int, dict[str, int]] = {}
    for b, a in zip(before.agents, after.agents):
        names = sorted(set(b.inventory) | set(a.inventory))
        delta = {name: a.count(name) - b.count(name) for name in names if a.count(name) != b.count(name)}
        if delta:
            out[b.seat] = delta
    return out


def capability_record(change: dict[int, dict[str, int]]) -> dict:
    """The step's capability-change record (no constraints; ``dz_total`` = sum of |dZ|)."""
    return {
        "task": "capability change",
        "kind": "capability",
        "agents": {str(seat): dict(delta) for seat, delta in change.items()},
        "dz_total": sum(abs(v) for delta in change.values() for v in delta.values()),
        "counts": {},
        "satisfied": [],
        "violated": [],
        "outcome": None,
        "attributed": None,
        "delta_z": 0,  # the lanes sum the tasks' products; this record's change is in dz_total
    }


class CrafterConstraintCollector:
    """Accumulates the constraint process of one episode: per-step records for the trace and flat
    float totals (``METRIC_NAMES``) for the episode metrics."""

    def __init__(self, first: CrafterView) -> None:
        # The start view fixes the team; steps must come from the same episode's world.
        self._agents = len(first.agents)
        self._size = (first.width, first.height)
        self._totals: dict[str, float] = dict.fromkeys(METRIC_NAMES, 0.0)

    def add(self, before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[dict]:
        """Evaluate this step's tasks and capability change; return the step's records (JSON-able)."""
        if len(before.agents) != self._agents or (before.width, before.height) != self._size:
            raise ValueError("step views come from a different world than the collector's first view")
        evals = evaluate_step(before, actions, after)
        t = self._totals
        for e in evals:
            tally_constraints(t, e)
            if e.outcome is not None:
                t[f"{e.kind}_attempts"] += 1
                t[f"{e.kind}_ok"] += e.outcome == "ok"
        records = [e.to_record() for e in evals]
        change = capability_change(before, after)
        for delta in change.values():
            for name, v in delta.items():
                group = "tools" if name in TOOLS else "items"
                t[f"dz_{group}_{'gained' if v > 0 else 'lost'}"] += abs(v)
                t["capability_changes"] += abs(v)
        if change:
            records.append(capability_record(change))
        return records

    def result(self) -> dict[str, float]:
        """Episode totals (flat float dict)."""
        return dict(self._totals)


__all__ = [
    "ATTRIBUTION_ORDER",
    "CONSTRAINTS",
    "METRIC_NAMES",
    "CrafterConstraintCollector",
    "TaskEval",
    "capability_change",
    "evaluate_step",
    "tier_resource",
]
