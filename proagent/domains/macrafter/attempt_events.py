"""MA-Crafter's attempt events and fractional violation rates: `AttemptEvent` (one collection
tried on one scored resource task in one step), `attempt_events` (a step's events) and
`aggregate_attempts` (the results table's violation columns over an episode's events).

They restate EmCoop's ``cognitive/coop2_attempt_events.py`` (EmCoop's code is
``HappyEureka/coop2-llm-mas``, folder ``ma_crafter/``); `proagent.domains.macrafter.constraints`
gathers the whole process.

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
made, i.e. only to successes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.cooperative_tasks import TaskTable
from proagent.domains.macrafter.process_terms import ATTEMPT_CONSTRAINTS, task_label

# ``SCORED_RESOURCES`` of the attempt events (tree as wood): water and cows are survival targets.
SCORED: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond")


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
            "task": "collect " + task_label(self.resource, self.cell),
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
