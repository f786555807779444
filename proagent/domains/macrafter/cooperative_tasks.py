"""MA-Crafter's task states and per-step metrics: `TaskState`, `TaskTable` and `task_states`
(every task's constraint counts on the state after a step), `StepMetrics` and `step_metrics` (the
task set against the previous step's).

They restate EmCoop's ``macrafter/cooperative_tasks.py`` (``CooperativeTaskTracker``; EmCoop's
code is ``HappyEureka/coop2-llm-mas``, folder ``ma_crafter/``, and the file and function behind
each definition are named in brackets); `proagent.domains.macrafter.constraints` gathers the whole
process.

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
``capability_increased`` / ``decreased``: the units gained and lost in the step (ΔZ, `capability`).
Where the previous step had no task (EmCoop: its reset record), "improved" is the satisfied count
and no task is listed.

**Differs** from EmCoop: EmCoop's task tracker also flags a completed / failed status through
``process_collection_attempt``, which its cooperative step never calls; there is none here. The
earlier "paper-worded" participation check of this module (alive, awake agents holding the tool ≥
q) is EmCoop's dependency met but for the awake clause, so it is not kept as a column; EmCoop's
participation is the agents near the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from envs.macrafter.rules import Material
from envs.macrafter.settings import ResourceRule
from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.capability import CapabilityChange
from proagent.domains.macrafter.process_terms import (
    CONSTRAINTS,
    TASK_MATERIAL,
    TASK_RESOURCES,
    holds_tool,
    settings_of,
    task_label,
)

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
            "task": task_label(self.resource, self.cell),
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
