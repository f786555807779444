"""MA-Crafter's cooperation process as EmCoop (COOP²) computes it: task states, per-step and
per-episode constraint metrics, attempt violation rates and capability changes ΔZ.

Each definition below restates EmCoop's code (``HappyEureka/coop2-llm-mas``, folder
``ma_crafter/``; file and function named in brackets); where this module deliberately differs,
it says so (**differs**). The inputs are ours: ``(before, actions, after)`` per step, two
`CrafterView` and the joint primitive actions; the rules' numbers (quorums, tools, reach d =
``collect_distance``) come from the view's settings, so a run with ``--env collect_distance=2``
is measured by its own rules.

**Task states** [``macrafter/coop_env.py`` ``step`` calls ``_compute_task_states`` after every
action, object update and balancing, with the agents that issued ``do``;
``macrafter/cooperative_tasks.py`` ``CooperativeTaskTracker.compute_task_states``]. On the state
*after* the step:

- the task set is every cell holding a collectable material: tree, stone, coal, iron, diamond and
  water (``COLLECTABLE_MATERIALS``). A task is identified by its cell (EmCoop's id is the cell's
  position-based material id), so a mined stone's task disappears and a placed stone's appears.
  Cows are no tasks: the tracker keeps an object only when the configured resources list its type,
  and the paper's configuration (``paper_config.yaml``) lists none for cows.
- agents: the alive ones (EmCoop: the players not removed), asleep or not.
- quorum q and tool T: the resource's rule (water: quorum 1, no tool, EmCoop's default).
- spatial: alive agents within Manhattan d of the cell; met iff count ≥ q.
- temporal: agents that issued ``do`` this step and are within d of the cell (the tracker's
  fallback for collects without an explicit target; our agents never name one); met iff ≥ q.
- dependency: the agents capable of the task, wherever they are: every alive agent when no tool
  is needed (met), else the alive agents holding exactly T (``satisfies_tool_requirement``:
  count > 0; a better pickaxe does not stand in), met iff count ≥ q.
- participation: the agents within d again (``participating_agents = agents_nearby``); the ratio
  is count / q, met iff ratio ≥ 1.
- status: ready when participation, temporal and dependency are met; in progress when some agent
  acts on it or is near; else pending.

**Per-step metrics** [``cooperative_tasks.py`` ``_compute_metrics``, via ``finalize_step``;
``StepMetrics``]: the task set's size and the tasks added and removed since the previous step; per
constraint the tasks whose count is above 0 (EmCoop's ``<c>_satisfied``, "any progress"; for
participation its ratio); ``total_satisfied``: the tasks with spatial, temporal and participation
met and a dependency count ≥ q (EmCoop reads the count here and ``dependency_met`` in the task's own
``met``; they agree whenever spatial is met, a toolless task counting every alive agent); the mean
participation ratio; per constraint the tasks present in both steps whose count rose (improved) or
fell (worsened) (participation by its ratio), and the tasks with any rise or fall;
``capability_increased`` / ``decreased``: the units gained and lost in the step (ΔZ below). Where
the previous step had no task (EmCoop: its reset record), "improved" is the satisfied count and no
task is listed. The collector's first view stands for EmCoop's reset: its task states, nobody
acting, are what step 1 is compared with.

**Per-episode constraint metrics** [``cognitive/compute_metrics.py`` ``compute_constraint_metrics``
and ``save_metrics_csv``, which write ``coop2_metrics.json`` / ``.csv``]: for spatial, temporal and
dependency (participation is not counted there) the *distinct* tasks that improved / worsened at
some step; C⁺ = distinct tasks with any improvement, C⁻ = with any worsening; ``C_<c>_ratio`` =
improved / (improved + worsened), 0.5 when neither happened.

**Capability change ΔZ** [``cooperative_tasks.py`` ``track_capability_changes``;
``cognitive/compute_metrics.py`` ``compute_capability_metrics``]: per alive agent and bag item, the
count after the step against the count before; health, food, drink, energy and saplings are ignored
(``ignored_items``; our bags hold no vitals). Each changed (agent, item) is one gain or loss
record; ``total_gains`` / ``total_losses`` count records, ``delta_Z`` = gains − losses, and
``Z_gain_rate`` = gains / T; ``capability_increased`` / ``decreased`` sum the units (StepMetrics).
``dz_{tools,items}_{gained,lost}`` split those units into tools and materials (**ours**: the same
ΔZ, split for the eval report's capability columns).

**Attempt events and violation rates** [``cognitive/coop2_attempt_events.py``
``extract_attempt_constraint_events_from_entry``, ``_attempt_constraint_scores``,
``aggregate_attempt_violation_rates``; read by ``experiment/build_results_table.py``, the results
table's ``Spat./Temp./Dep. Viol.`` columns]: one event per scored resource task (tree, stone, coal,
iron, diamond; water and cows are "survival", never events) that some agent tried to collect in the
step. A successful event scores 1 on spatial, temporal and dependency. A failed one scores spatial
= spatial count / q and dependency = dependency count / q from the task's state after the step
(dependency 1 when no tool is needed; 0 when the task is gone), and temporal = attempting agents
/ q. The violation of a constraint is 1 − min(score, 1): a *fractional* attribution of the failure
to each constraint (EmCoop attributes no failure to a single constraint). Per episode:
``<c>_violation_rate`` = the mean violation over events, ``<c>_score`` = 1 − rate (0 without
events), ``<c>_checks`` = events scored, ``attempt_success_rate`` = successes / events.
``failed_attempts`` counts failed events and ``failures_<c>`` sums their violations, so
``<c>_violation_rate`` = ``failures_<c>`` / ``attempt_constraint_events``.

**Differs** from EmCoop: an event's target and attempting agents are the env's record of the step
(``after.attempts``: every resource cell within reach of an agent that did ``do``, with those
agents), where EmCoop ties an event to the task its agents' *plans* named (``active_tasks``,
``symbolic_action`` arguments) and counts every agent whose plan targeted it, in reach or not;
our agents' primitive ``do`` names no task, and EmCoop maps such a collect to the collections it
made, i.e. only to successes. The capability records are ΔZ between ``before`` and ``after`` of
each step, where EmCoop compares with the inventories it saw at its previous tracking call (the
same states here). ``Z_gain_rate``'s T is the steps this collector saw, where EmCoop's T is the
last step of its cognitive-state log plus one. The trace keeps, per step, EmCoop's step metrics
with change *counts* (the per-task lists are summed into the episode's distinct-task sets, not
written), the tasks some agent is near or acting on, every attempt event and the ΔZ record; not
the full task set (hundreds of cells per step). EmCoop's task tracker also flags a completed /
failed status through ``process_collection_attempt``, which its cooperative step never calls;
there is none here. The earlier "paper-worded" participation check of this module (alive, awake
agents holding the tool ≥ q) is EmCoop's dependency met but for the awake clause, so it is not
kept as a column; EmCoop's participation is the agents near the task.

``CONSTRAINTS`` (the tracker's four), ``METRIC_NAMES`` (the episode's metrics) and
`CrafterConstraintCollector` are what the runner and the readers (the eval report, the MA-Crafter
table, the replay's third lane) use. `capability_change` is the one ΔZ the trace's drawing shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from envs.macrafter.rules import Action, Item, Material
from envs.macrafter.settings import RESOURCE_GIVES, CrafterSettings, ResourceRule
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
# ``SCORED_RESOURCES`` of the attempt events (tree as wood): water and cows are survival targets.
SCORED: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond")
# ``ignored_items`` of the capability tracking: vitals and saplings are no capability.
IGNORED_ITEMS: frozenset[str] = frozenset({"health", "food", "drink", "energy", "sapling"})
STATUSES: tuple[str, ...] = ("pending", "in_progress", "ready")

# Where each resource lies on the map (the view draws cows into the grid), for the feedback snapshot.
RESOURCE_MATERIAL: dict[str, Material] = {**TASK_MATERIAL, "cow": Material.COW}
RESOURCE_ITEM: dict[str, str] = dict(RESOURCE_GIVES)
STATION_MATERIAL: dict[str, Material] = {"table": Material.TABLE, "furnace": Material.FURNACE}
TOOL_TIER_OF: dict[str, int] = {"none": 0, "wood_pickaxe": 1, "stone_pickaxe": 2, "iron_pickaxe": 3}
TOOLS: frozenset[str] = frozenset(i.name.lower() for i in Item if i >= Item.WOOD_PICKAXE)
MATERIALS: tuple[str, ...] = tuple(i.name.lower() for i in Item if i < Item.WOOD_PICKAXE)

_TASK_METRICS: tuple[str, ...] = (
    "task_steps",
    *(f"c_{sign}_{c}" for c in CONSTRAINTS for sign in ("plus", "minus")),
    "coop_satisfied",
    *(f"{c}_satisfied" for c in CONSTRAINTS),
    "participation_ratio_avg",
    "tasks_added",
    "tasks_removed",
)
_CHANGE_METRICS: tuple[str, ...] = (
    "C_plus",
    "C_minus",
    *(f"{c}_{way}" for c in CHANGE_CONSTRAINTS for way in ("improved", "worsened")),
    *(f"C_{c}_ratio" for c in CHANGE_CONSTRAINTS),
)
_CAPABILITY_METRICS: tuple[str, ...] = (
    "capability_increased",
    "capability_decreased",
    "total_gains",
    "total_losses",
    "delta_Z",
    "Z_gain_rate",
    "dz_tools_gained",
    "dz_tools_lost",
    "dz_items_gained",
    "dz_items_lost",
)
_ATTEMPT_METRICS: tuple[str, ...] = (
    "attempt_constraint_events",
    "successful_attempt_events",
    "attempt_success_rate",
    *(f"{c}_{what}" for c in ATTEMPT_CONSTRAINTS for what in ("violation_rate", "score", "checks")),
    "failed_attempts",
    *(f"failures_{c}" for c in ATTEMPT_CONSTRAINTS),
)
METRIC_NAMES: tuple[str, ...] = _TASK_METRICS + _CHANGE_METRICS + _CAPABILITY_METRICS + _ATTEMPT_METRICS


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


def _label(resource: str, cell: Pos) -> str:
    return f"{resource} at {cell[0]},{cell[1]}"


# ---- task states ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskState:
    """One task at one step, as ``TaskState.to_dict`` shows it (seats for EmCoop's agent ids)."""

    resource: str
    cell: Pos
    quorum: int
    tool: str  # "none" when no tool is needed
    nearby: tuple[int, ...]  # spatial (and participation): alive agents within d
    acting: tuple[int, ...]  # temporal: agents that did ``do`` within d
    capable: tuple[int, ...]  # dependency: alive agents with the tool (all alive without one)
    dependency_met: bool

    @property
    def counts(self) -> dict[str, int]:
        return {
            "spatial": len(self.nearby),
            "temporal": len(self.acting),
            "participation": len(self.nearby),
            "dependency": len(self.capable),
        }

    @property
    def participation_ratio(self) -> float:
        return len(self.nearby) / self.quorum

    @property
    def met(self) -> dict[str, bool]:
        return {
            "spatial": len(self.nearby) >= self.quorum,
            "temporal": len(self.acting) >= self.quorum,
            "participation": self.participation_ratio >= 1.0,
            "dependency": self.dependency_met,
        }

    @property
    def status(self) -> str:
        met = self.met
        if met["participation"] and met["temporal"] and met["dependency"]:
            return "ready"
        return "in_progress" if self.acting or self.nearby else "pending"

    def to_record(self) -> dict:
        met = self.met
        return {
            "task": _label(self.resource, self.cell),
            "kind": "task",
            "resource": self.resource,
            "cell": list(self.cell),
            "quorum": self.quorum,
            "tool": self.tool,
            "status": self.status,
            "counts": self.counts,
            "participation_ratio": round(self.participation_ratio, 4),
            "agents": {"nearby": list(self.nearby), "acting": list(self.acting), "capable": list(self.capable)},
            "satisfied": [c for c in CONSTRAINTS if met[c]],
            "violated": [c for c in CONSTRAINTS if not met[c]],
            "outcome": None,
            "attributed": None,
            "delta_z": 0,
        }


@dataclass(frozen=True, eq=False)
class TaskTable:
    """Every task of one step (EmCoop's ``current_tasks``) as arrays, one entry per task in
    EmCoop's id order (cells column by column: x, then y)."""

    keys: np.ndarray  # (k,) x * height + y: the task's identity across steps
    xs: np.ndarray
    ys: np.ndarray
    resource: np.ndarray  # (k,) index into TASK_RESOURCES
    quorum: np.ndarray
    near: np.ndarray  # (agents, k) bool: alive and within d
    acting: np.ndarray  # (agents, k) bool: did ``do`` and within d
    capable: dict[str, tuple[int, ...]]  # resource -> capable seats
    tools: dict[str, str]  # resource -> tool
    height: int  # the map's (a cell's key is x * height + y)

    @property
    def size(self) -> int:
        return int(self.keys.shape[0])

    @property
    def spatial(self) -> np.ndarray:
        return self.near.sum(axis=0)

    @property
    def temporal(self) -> np.ndarray:
        return self.acting.sum(axis=0)

    @property
    def dependency(self) -> np.ndarray:
        counts = np.array([len(self.capable[r]) for r in TASK_RESOURCES])
        return counts[self.resource] if self.size else np.zeros(0, int)

    @property
    def dependency_met(self) -> np.ndarray:
        toolless = np.array([self.tools[r] == "none" for r in TASK_RESOURCES])
        return toolless[self.resource] | (self.dependency >= self.quorum) if self.size else np.zeros(0, bool)

    @property
    def participation_ratio(self) -> np.ndarray:
        return self.spatial / self.quorum

    def met(self) -> dict[str, np.ndarray]:
        """Per constraint, the tasks that meet it (``TaskState.met``)."""
        return {
            "spatial": self.spatial >= self.quorum,
            "temporal": self.temporal >= self.quorum,
            "participation": self.participation_ratio >= 1.0,
            "dependency": self.dependency_met,
        }

    def all_met(self) -> np.ndarray:
        """EmCoop's ``total_satisfied`` test: spatial, temporal, participation met and dependency count ≥ q."""
        met = self.met()
        return met["spatial"] & met["temporal"] & met["participation"] & (self.dependency >= self.quorum)

    def counts(self) -> dict[str, np.ndarray]:
        return {
            "spatial": self.spatial,
            "temporal": self.temporal,
            "participation": self.spatial,
            "dependency": self.dependency,
        }

    def index_of(self, cell: Pos) -> int | None:
        key = cell[0] * self.height + cell[1]
        i = int(np.searchsorted(self.keys, key))
        return i if i < self.size and int(self.keys[i]) == key else None

    def task(self, cell: Pos) -> TaskState | None:
        """The task on ``cell`` (None: no collectable material there)."""
        i = self.index_of(cell)
        return None if i is None else self.state(i)

    def state(self, i: int) -> TaskState:
        resource = TASK_RESOURCES[int(self.resource[i])]
        seats = range(self.near.shape[0])
        return TaskState(
            resource=resource,
            cell=(int(self.xs[i]), int(self.ys[i])),
            quorum=int(self.quorum[i]),
            tool=self.tools[resource],
            nearby=tuple(s for s in seats if self.near[s, i]),
            acting=tuple(s for s in seats if self.acting[s, i]),
            capable=self.capable[resource],
            dependency_met=bool(self.dependency_met[i]),
        )

    def tasks(self) -> list[TaskState]:
        return [self.state(i) for i in range(self.size)]

    def present(self) -> list[TaskState]:
        """The tasks some agent is near or acting on (EmCoop's in-progress and ready ones)."""
        return [self.state(int(i)) for i in np.nonzero(self.near.any(axis=0) | self.acting.any(axis=0))[0]]


_DEFAULT_RULE = ResourceRule(quorum=1, tool="none", base_value=0)
_CODE = np.full(len(Material), -1, np.int8)
for _i, _r in enumerate(TASK_RESOURCES):
    _CODE[TASK_MATERIAL[_r]] = _i


def task_states(view: CrafterView, acting: Sequence[int]) -> TaskTable:
    """Every task on ``view`` (the state after a step), with ``acting`` the seats that did ``do``
    in that step (``compute_task_states``)."""
    settings = settings_of(view)
    d = settings.collect_distance
    grid = np.asarray(view.grid, np.int64).reshape(view.height, view.width)
    codes = _CODE[grid]
    xs, ys = np.nonzero(codes.T >= 0)  # column by column: EmCoop's id order
    resource = codes[ys, xs].astype(np.int64)
    # a resource the rules leave out: one agent, no tool (EmCoop's ``get_resource_requirements`` default)
    rules = {r: settings.resources.get(r, _DEFAULT_RULE) for r in TASK_RESOURCES}  # type: ignore[call-overload]
    quorum = np.array([max(1, rules[r].quorum) for r in TASK_RESOURCES])[resource] if xs.size else np.zeros(0, int)
    n = len(view.agents)
    near = np.zeros((n, xs.size), bool)
    for agent in view.agents:
        if agent.alive:
            x, y = agent.position
            near[agent.seat] = np.abs(xs - x) + np.abs(ys - y) <= d
    did = np.zeros((n, 1), bool)
    for seat in acting:
        if 0 <= seat < n:
            did[seat] = True
    alive = tuple(a.seat for a in view.agents if a.alive)
    capable = {r: tuple(s for s in alive if holds_tool(view.agents[s], rules[r].tool)) for r in TASK_RESOURCES}
    return TaskTable(
        keys=xs * view.height + ys,
        xs=xs,
        ys=ys,
        resource=resource,
        quorum=quorum,
        near=near,
        acting=near & did,
        capable=capable,
        tools={r: rules[r].tool for r in TASK_RESOURCES},
        height=view.height,
    )


# ---- per-step metrics -------------------------------------------------------------------------


@dataclass(frozen=True)
class StepMetrics:
    """EmCoop's ``StepMetrics`` of one step: the task set against the previous step's."""

    step: int
    task_set_size: int
    tasks_added: int
    tasks_removed: int
    satisfied: dict[str, int]  # per constraint: tasks with a count (ratio) above 0
    met: dict[str, int]  # per constraint: tasks that meet it (``TaskState.met``)
    total_satisfied: int
    participation_ratio_avg: float
    improved: dict[str, tuple[Pos, ...]]  # per constraint: the tasks whose count rose (empty on a first step)
    worsened: dict[str, tuple[Pos, ...]]
    improved_counts: dict[str, int]
    total_improved: int
    total_worsened: int
    capability_increased: int = 0
    capability_decreased: int = 0

    @property
    def task_set_delta(self) -> int:
        return self.tasks_added - self.tasks_removed

    def to_record(self) -> dict:
        """The trace's step record (change counts, not the tasks; the lane skips it)."""
        return {
            "task": "step metrics",
            "kind": "step",
            "task_set": {
                "size": self.task_set_size,
                "added": self.tasks_added,
                "removed": self.tasks_removed,
                "delta": self.task_set_delta,
            },
            "constraint_satisfaction": {
                **self.satisfied,
                "participation_ratio_avg": round(self.participation_ratio_avg, 4),
                "total": self.total_satisfied,
            },
            "constraint_met": dict(self.met),
            "constraint_changes": {
                **{c: {"improved": self.improved_counts[c], "worsened": len(self.worsened[c])} for c in CONSTRAINTS},
                "total_improved": self.total_improved,
                "total_worsened": self.total_worsened,
            },
            "capability_changes": {"increased": self.capability_increased, "decreased": self.capability_decreased},
            "counts": {},
            "satisfied": [],
            "violated": [],
            "outcome": None,
            "attributed": None,
            "delta_z": 0,
        }


def step_metrics(
    previous: TaskTable | None, current: TaskTable, step: int = 0, changes: Sequence[CapabilityChange] = ()
) -> StepMetrics:
    """``_compute_metrics``: ``current`` against ``previous`` (None or empty: a first step)."""
    counts = current.counts()
    satisfied = {c: int((counts[c] > 0).sum()) for c in CONSTRAINTS}
    met = {c: int(m.sum()) for c, m in current.met().items()}
    ratio = current.participation_ratio
    prev_keys = previous.keys if previous is not None else np.zeros(0, int)
    added = int(np.setdiff1d(current.keys, prev_keys).size)
    removed = int(np.setdiff1d(prev_keys, current.keys).size)
    improved: dict[str, tuple[Pos, ...]] = {c: () for c in CONSTRAINTS}
    worsened: dict[str, tuple[Pos, ...]] = {c: () for c in CONSTRAINTS}
    if previous is None or previous.size == 0:
        improved_counts = dict(satisfied)
        total_improved = total_worsened = 0
    else:
        _, now, before = np.intersect1d(current.keys, previous.keys, assume_unique=True, return_indices=True)
        then = previous.counts()
        values = {c: (counts[c][now], then[c][before]) for c in ("spatial", "temporal", "dependency")}
        values["participation"] = (ratio[now], previous.participation_ratio[before])
        up = np.zeros(now.size, bool)
        down = np.zeros(now.size, bool)
        for c in CONSTRAINTS:
            a, b = values[c]
            improved[c] = _cells(current, now[a > b])
            worsened[c] = _cells(current, now[a < b])
            up |= a > b
            down |= a < b
        improved_counts = {c: len(improved[c]) for c in CONSTRAINTS}
        total_improved, total_worsened = int(up.sum()), int(down.sum())
    return StepMetrics(
        step=step,
        task_set_size=current.size,
        tasks_added=added,
        tasks_removed=removed,
        satisfied=satisfied,
        met=met,
        total_satisfied=int(current.all_met().sum()),
        participation_ratio_avg=float(ratio.mean()) if current.size else 0.0,
        improved=improved,
        worsened=worsened,
        improved_counts=improved_counts,
        total_improved=total_improved,
        total_worsened=total_worsened,
        capability_increased=sum(c.new - c.old for c in changes if c.gain),
        capability_decreased=sum(c.old - c.new for c in changes if not c.gain),
    )


def _cells(table: TaskTable, index: np.ndarray) -> tuple[Pos, ...]:
    return tuple((int(table.xs[i]), int(table.ys[i])) for i in index)


# ---- capability changes -----------------------------------------------------------------------


@dataclass(frozen=True)
class CapabilityChange:
    """One agent's item count changing in a step (EmCoop's ``CapabilityChange``)."""

    seat: int
    item: str
    old: int
    new: int

    @property
    def gain(self) -> bool:
        return self.new > self.old

    def to_record(self) -> dict:
        return {
            "agent": self.seat,
            "item": self.item,
            "old": self.old,
            "new": self.new,
            "change": "gain" if self.gain else "loss",
        }


def capability_changes(before: CrafterView, after: CrafterView) -> list[CapabilityChange]:
    """``track_capability_changes``: every alive agent's bag item whose count changed in the step,
    vitals and saplings aside."""
    out = []
    for b, a in zip(before.agents, after.agents, strict=True):
        if not a.alive:
            continue
        for item in sorted(set(b.inventory) | set(a.inventory)):
            if item not in IGNORED_ITEMS and a.count(item) != b.count(item):
                out.append(CapabilityChange(a.seat, item, b.count(item), a.count(item)))
    return out


def capability_change(before: CrafterView, after: CrafterView) -> dict[int, dict[str, int]]:
    """ΔZ per agent: seat -> item -> after − before, for the items `capability_changes` records."""
    out: dict[int, dict[str, int]] = {}
    for c in capability_changes(before, after):
        out.setdefault(c.seat, {})[c.item] = c.new - c.old
    return out


def capability_record(changes: Sequence[CapabilityChange]) -> dict:
    """The step's ΔZ record for the trace (no constraints, so the lane skips it as a task)."""
    agents: dict[str, dict[str, int]] = {}
    for c in changes:
        agents.setdefault(str(c.seat), {})[c.item] = c.new - c.old
    return {
        "task": "capability change",
        "kind": "capability",
        "agents": agents,
        "gains": sum(1 for c in changes if c.gain),
        "losses": sum(1 for c in changes if not c.gain),
        "increased": sum(c.new - c.old for c in changes if c.gain),
        "decreased": sum(c.old - c.new for c in changes if not c.gain),
        "counts": {},
        "satisfied": [],
        "violated": [],
        "outcome": None,
        "attributed": None,
        "delta_z": 0,
    }


# ---- attempt events ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptEvent:
    """One collection tried on one scored resource task in one step (EmCoop's attempt event)."""

    resource: str
    cell: Pos
    quorum: int
    tool: str
    attempting: tuple[int, ...]  # did ``do`` within reach
    successful: tuple[int, ...]  # received a unit
    outcome: str  # the env's: ok, too_few (fewer than q attempting), no_tool (too few of them with T)
    scores: dict[str, float]  # per ATTEMPT_CONSTRAINTS
    task_counts: dict[str, int] = field(default_factory=dict)  # the task after the step (none once mined)

    @property
    def success(self) -> bool:
        return self.outcome == "ok"

    @property
    def blocked(self) -> tuple[int, ...]:
        return tuple(s for s in self.attempting if s not in self.successful)

    @property
    def violations(self) -> dict[str, float]:
        """1 − min(score, 1) per constraint: the failure's fractional attribution (0 on success)."""
        return {c: max(0.0, 1.0 - min(s, 1.0)) for c, s in self.scores.items()}

    def to_record(self) -> dict:
        violations = self.violations
        return {
            "task": "collect " + _label(self.resource, self.cell),
            "kind": "attempt",
            "resource": self.resource,
            "cell": list(self.cell),
            "quorum": self.quorum,
            "tool": self.tool,
            "participants": list(self.attempting),
            "successful": list(self.successful),
            "blocked": list(self.blocked),
            "outcome": self.outcome,
            "success": self.success,
            "scores": {c: round(s, 4) for c, s in self.scores.items()},
            "violations": {c: round(v, 4) for c, v in violations.items()},
            "counts": {**self.task_counts, "temporal": len(self.attempting)},
            "satisfied": [c for c in ATTEMPT_CONSTRAINTS if self.scores[c] >= 1.0],
            "violated": [c for c in ATTEMPT_CONSTRAINTS if self.scores[c] < 1.0],
            # a failure's share per constraint (the replay lane sums them); None on success
            "attributed": None if self.success else {c: round(v, 4) for c, v in violations.items() if v > 0},
            "delta_z": len(self.successful),  # one unit of the resource's item to each (``receive``)
        }


def attempt_events(after: CrafterView, tasks: TaskTable) -> list[AttemptEvent]:
    """The step's attempt events, from the env's attempts and the task states after the step
    (``_attempt_constraint_scores``), in task id order."""
    events = []
    for attempt in after.attempts:
        if attempt.kind != "collect" or attempt.cell is None or attempt.target not in SCORED:
            continue
        q = max(1, attempt.required)
        ok = attempt.outcome == "ok"
        i = tasks.index_of(attempt.cell)
        counts = {} if i is None else {"spatial": int(tasks.spatial[i]), "dependency": int(tasks.dependency[i])}
        if ok:
            scores = dict.fromkeys(ATTEMPT_CONSTRAINTS, 1.0)
        else:
            dependency = 1.0 if attempt.tool == "none" else counts.get("dependency", 0) / q
            scores = {
                "spatial": counts.get("spatial", 0) / q,
                "temporal": len(attempt.participants) / q,
                "dependency": dependency,
            }
        events.append(
            AttemptEvent(
                resource=attempt.target,
                cell=attempt.cell,
                quorum=q,
                tool=attempt.tool,
                attempting=tuple(attempt.participants),
                successful=tuple(attempt.capable) if ok else (),
                outcome=attempt.outcome,
                scores=scores,
                task_counts=counts,
            )
        )
    return sorted(events, key=lambda e: (e.cell[0], e.cell[1]))


def aggregate_attempts(events: Sequence[AttemptEvent]) -> dict[str, float]:
    """``aggregate_attempt_violation_rates``: the results table's columns over ``events``."""
    n = len(events)
    successes = sum(1 for e in events if e.success)
    out: dict[str, float] = {
        "attempt_constraint_events": float(n),
        "successful_attempt_events": float(successes),
        "attempt_success_rate": successes / n if n else 0.0,
    }
    for c in ATTEMPT_CONSTRAINTS:
        rate = sum(e.violations[c] for e in events) / n if n else 0.0
        out[f"{c}_violation_rate"] = rate
        out[f"{c}_score"] = 1.0 - rate if n else 0.0
        out[f"{c}_checks"] = float(n)
    return out


# ---- one step, and the episode ----------------------------------------------------------------


@dataclass(frozen=True)
class StepProcess:
    """Everything EmCoop records of one step."""

    tasks: TaskTable
    metrics: StepMetrics
    events: list[AttemptEvent]
    changes: list[CapabilityChange] = field(default_factory=list)

    def records(self) -> list[dict]:
        """The trace's records: the step metrics, the tasks agents are near or act on, the attempt
        events and, when anything changed, the ΔZ record."""
        out = [self.metrics.to_record(), *(t.to_record() for t in self.tasks.present())]
        out += [e.to_record() for e in self.events]
        if self.changes:
            out.append(capability_record(self.changes))
        return out


def acting_seats(before: CrafterView, actions: Sequence[int]) -> tuple[int, ...]:
    """The seats in the world at the step's start that issued ``do`` (``collect_agent_ids``)."""
    n = len(before.agents)
    if len(actions) < n:
        raise ValueError(f"{len(actions)} actions for {n} agents")
    return tuple(i for i in range(n) if int(actions[i]) == Action.DO and before.agents[i].alive)


def evaluate_step(
    before: CrafterView, actions: Sequence[int], after: CrafterView, previous: TaskTable | None = None
) -> StepProcess:
    """One step's process: the task states after it, its metrics against ``previous`` (the
    previous step's tasks; None: ``before``'s, nobody acting), its attempt events and ΔZ."""
    if previous is None:
        previous = task_states(before, ())
    tasks = task_states(after, acting_seats(before, actions))
    changes = capability_changes(before, after)
    metrics = step_metrics(previous, tasks, after.step, changes)
    return StepProcess(tasks, metrics, attempt_events(after, tasks), changes)


def _ratio(improved: int, worsened: int) -> float:
    return improved / (improved + worsened) if improved + worsened else 0.5


class CrafterConstraintCollector:
    """Accumulates one episode's process: per-step records for the trace and the episode's
    metrics (``METRIC_NAMES``, flat floats)."""

    def __init__(self, first: CrafterView) -> None:
        # The start view fixes the team and the map; it stands for EmCoop's reset record.
        self._agents = len(first.agents)
        self._size = (first.width, first.height)
        self._previous = task_states(first, ())
        self._steps = 0
        self._sums: dict[str, float] = dict.fromkeys(METRIC_NAMES, 0.0)
        self._ratio_sum = 0.0
        self._improved: dict[str, set[Pos]] = {c: set() for c in CHANGE_CONSTRAINTS}
        self._worsened: dict[str, set[Pos]] = {c: set() for c in CHANGE_CONSTRAINTS}
        self._events: list[AttemptEvent] = []

    def add(self, before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[dict]:
        """Evaluate one step; return its records (JSON-able)."""
        if len(before.agents) != self._agents or (before.width, before.height) != self._size:
            raise ValueError("step views come from a different world than the collector's first view")
        process = evaluate_step(before, actions, after, self._previous)
        self._previous = process.tasks
        self._steps += 1
        self._tally(process)
        return process.records()

    def _tally(self, process: StepProcess) -> None:
        t, m, tasks = self._sums, process.metrics, process.tasks
        t["task_steps"] += tasks.size
        for c in CONSTRAINTS:
            t[f"c_plus_{c}"] += m.met[c]
            t[f"c_minus_{c}"] += tasks.size - m.met[c]
            t[f"{c}_satisfied"] += m.satisfied[c]
        t["coop_satisfied"] += m.total_satisfied
        t["tasks_added"] += m.tasks_added
        t["tasks_removed"] += m.tasks_removed
        self._ratio_sum += m.participation_ratio_avg
        for c in CHANGE_CONSTRAINTS:
            self._improved[c].update(m.improved[c])
            self._worsened[c].update(m.worsened[c])
        for change in process.changes:
            units = abs(change.new - change.old)
            way = "gained" if change.gain else "lost"
            t["capability_increased" if change.gain else "capability_decreased"] += units
            t["total_gains" if change.gain else "total_losses"] += 1
            t[f"dz_{'tools' if change.item in TOOLS else 'items'}_{way}"] += units
        self._events.extend(process.events)

    def result(self) -> dict[str, float]:
        """The episode's metrics (flat float dict, every name of ``METRIC_NAMES``)."""
        out = dict(self._sums)
        out["participation_ratio_avg"] = self._ratio_sum / self._steps if self._steps else 0.0
        for c in CHANGE_CONSTRAINTS:
            out[f"{c}_improved"] = float(len(self._improved[c]))
            out[f"{c}_worsened"] = float(len(self._worsened[c]))
            out[f"C_{c}_ratio"] = _ratio(len(self._improved[c]), len(self._worsened[c]))
        out["C_plus"] = float(len(set().union(*self._improved.values())))
        out["C_minus"] = float(len(set().union(*self._worsened.values())))
        out["delta_Z"] = out["total_gains"] - out["total_losses"]
        out["Z_gain_rate"] = out["total_gains"] / self._steps if self._steps else 0.0
        out.update(aggregate_attempts(self._events))
        failed = [e for e in self._events if not e.success]
        out["failed_attempts"] = float(len(failed))
        for c in ATTEMPT_CONSTRAINTS:
            out[f"failures_{c}"] = sum(e.violations[c] for e in failed)
        return out


__all__ = [
    "ATTEMPT_CONSTRAINTS",
    "CONSTRAINTS",
    "METRIC_NAMES",
    "AttemptEvent",
    "CapabilityChange",
    "CrafterConstraintCollector",
    "StepMetrics",
    "StepProcess",
    "TaskState",
    "TaskTable",
    "aggregate_attempts",
    "attempt_events",
    "capability_change",
    "capability_changes",
    "evaluate_step",
    "step_metrics",
    "task_states",
]
