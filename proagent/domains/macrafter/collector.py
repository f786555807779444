"""MA-Crafter's process of one step and of an episode: `StepProcess` and `evaluate_step` (a
step's task states, step metrics, attempt events and ΔZ) and `CrafterConstraintCollector`, which
ties them together over an episode into the trace's per-step records and the episode's metrics
(``METRIC_NAMES``).

The episode's metrics restate EmCoop's ``cognitive/compute_metrics.py`` (EmCoop's code is
``HappyEureka/coop2-llm-mas``, folder ``ma_crafter/``): the constraint metrics below, the ΔZ
metrics `capability` defines and the attempt columns `attempt_events` defines;
`proagent.domains.macrafter.constraints` gathers the whole process. The collector's first view
stands for EmCoop's reset: its task states, nobody acting, are what step 1 is compared with.

**Per-episode constraint metrics** [``cognitive/compute_metrics.py`` ``compute_constraint_metrics``
and ``save_metrics_csv``, which write ``coop2_metrics.json`` / ``.csv``]: for spatial, temporal and
dependency (participation is not counted there) the *distinct* tasks that improved / worsened at
some step; C⁺ = distinct tasks with any improvement, C⁻ = with any worsening; ``C_<c>_ratio`` =
improved / (improved + worsened), 0.5 when neither happened.

**Differs** from EmCoop: ``Z_gain_rate``'s T is the steps this collector saw, where EmCoop's T is
the last step of its cognitive-state log plus one. The trace keeps, per step, EmCoop's step
metrics with change *counts* (the per-task lists are summed into the episode's distinct-task sets,
not written), the tasks some agent is near or acting on, every attempt event and the ΔZ record;
not the full task set (hundreds of cells per step).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from envs.macrafter.rules import Action
from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.attempt_events import AttemptEvent, aggregate_attempts, attempt_events
from proagent.domains.macrafter.capability import CapabilityChange, capability_changes, capability_record
from proagent.domains.macrafter.cooperative_tasks import StepMetrics, TaskTable, step_metrics, task_states
from proagent.domains.macrafter.process_terms import ATTEMPT_CONSTRAINTS, CHANGE_CONSTRAINTS, CONSTRAINTS, TOOLS

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
