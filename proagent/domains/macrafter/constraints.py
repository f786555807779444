"""MA-Crafter's cooperation process as EmCoop (COOP²) computes it: task states, per-step and
per-episode constraint metrics, attempt violation rates and capability changes ΔZ.

Each definition restates EmCoop's code (``HappyEureka/coop2-llm-mas``, folder ``ma_crafter/``;
the modules below name the file and function in brackets); where a module deliberately differs,
it says so (**differs**). The inputs are ours: ``(before, actions, after)`` per step, two
`CrafterView` and the joint primitive actions; the rules' numbers (quorums, tools, reach d =
``collect_distance``) come from the view's settings, so a run with ``--env collect_distance=2``
is measured by its own rules.

This module is the process's entry point: it gathers, under their old names, what these modules
define (each docstring holds the definitions and the differences of its part):

- `process_terms`: the shared names (the constraints, the resources that are tasks, the item
  classes) and view helpers, also read by the environment feedback (`feedback.py`).
- `cooperative_tasks`: the task states and per-step metrics (EmCoop's
  ``macrafter/cooperative_tasks.py``).
- `capability`: the capability change ΔZ (``track_capability_changes``,
  ``compute_capability_metrics``).
- `attempt_events`: the attempt events and fractional violation rates (EmCoop's
  ``cognitive/coop2_attempt_events.py``).
- `collector`: one step's process and the episode's collector, with the per-episode constraint
  metrics (EmCoop's ``cognitive/compute_metrics.py``).

``CONSTRAINTS`` (the tracker's four), ``METRIC_NAMES`` (the episode's metrics) and
`CrafterConstraintCollector` are what the runner and the readers (the eval report, the MA-Crafter
table, the replay's third lane) use. `capability_change` is the one ΔZ the trace's drawing shows.
"""

from __future__ import annotations

from proagent.domains.macrafter.attempt_events import SCORED, AttemptEvent, aggregate_attempts, attempt_events
from proagent.domains.macrafter.capability import (
    IGNORED_ITEMS,
    CapabilityChange,
    capability_change,
    capability_changes,
    capability_record,
)
from proagent.domains.macrafter.collector import (
    METRIC_NAMES,
    CrafterConstraintCollector,
    StepProcess,
    acting_seats,
    evaluate_step,
)
from proagent.domains.macrafter.cooperative_tasks import StepMetrics, TaskState, TaskTable, step_metrics, task_states
from proagent.domains.macrafter.process_terms import (
    ATTEMPT_CONSTRAINTS,
    CHANGE_CONSTRAINTS,
    CONSTRAINTS,
    MATERIALS,
    RESOURCE_ITEM,
    RESOURCE_MATERIAL,
    STATION_MATERIAL,
    STATUSES,
    TASK_MATERIAL,
    TASK_RESOURCES,
    TOOL_TIER_OF,
    TOOLS,
    holds_tool,
    manhattan,
    nearest_cell,
    settings_of,
)

# The process API, and the shared names and view helpers (the environment feedback reads some from here).
__all__ = [
    "ATTEMPT_CONSTRAINTS",
    "CHANGE_CONSTRAINTS",
    "CONSTRAINTS",
    "IGNORED_ITEMS",
    "MATERIALS",
    "METRIC_NAMES",
    "RESOURCE_ITEM",
    "RESOURCE_MATERIAL",
    "SCORED",
    "STATION_MATERIAL",
    "STATUSES",
    "TASK_MATERIAL",
    "TASK_RESOURCES",
    "TOOLS",
    "TOOL_TIER_OF",
    "AttemptEvent",
    "CapabilityChange",
    "CrafterConstraintCollector",
    "StepMetrics",
    "StepProcess",
    "TaskState",
    "TaskTable",
    "acting_seats",
    "aggregate_attempts",
    "attempt_events",
    "capability_change",
    "capability_changes",
    "capability_record",
    "evaluate_step",
    "holds_tool",
    "manhattan",
    "nearest_cell",
    "settings_of",
    "step_metrics",
    "task_states",
]
