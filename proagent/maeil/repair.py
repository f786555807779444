"""COOP²-Repair: check the team's committed plans before they run, and let the agents a predicted
failure involves revise them.

COOP² (EmCoop v2, ``HappyEureka/coop2-llm-mas``, ``coop2_repair/``) adds a step between planning
and primitive execution: a plan-effect estimator predicts, from the committed plans and the
world's state, which cooperative requirements (spatial, temporal, participation, dependency) the
plans will meet; for each predicted failure a repair controller opens a targeted channel to the
agents involved with guidance that names the failure, and they may revise. Why here and not in a
world: the controller is the same for every world; only the estimate and the guidance are a
world's (`proagent.world.capabilities.PlanEffects`).

Scoring the estimator: each step's *final* predictions (after any repair) wait for the team's
attempts on the same task and constraint (`RepairLedger`), whose realised outcomes come from the
world's process definitions; a predicted failure is a positive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from proagent.world.plan_effects import Requirement

REPAIR_MODES: tuple[str, ...] = ("off", "observe", "on")  # observe: predict and score, never intervene
REPAIR_CHOICES: tuple[str, ...] = ("off", "on", "both")  # the command line's; both = matched observe/on pairs
REPAIR_SENDER = -1  # repair guidance comes from the framework, not from a seat
MAX_GUIDANCE_CHARS = 600


def guidance_for(seat: int, failures: Sequence[Requirement]) -> str:
    """The targeted repair message to ``seat``: every predicted failure it takes part in, named."""
    lines = [f"{r.constraint} of {r.task}: {r.reason}" for r in failures if seat in r.seats]
    text = "Pre-execution check, predicted failure(s) of the committed plans: " + "; ".join(lines)
    text += ". Revise your skill to meet the requirement, or answer the same skill if it stands."
    return text[:MAX_GUIDANCE_CHARS]


@dataclass
class _Pending:
    made: int  # the step the prediction stands since
    predicted_ok: bool
    failed: bool = False  # an attempt on the task missed this requirement since


@dataclass
class RepairLedger:
    """Predicted against realised requirement outcomes over an episode (the estimator's precision
    and recall), and the repair controller's counts.

    Why not score against the very next attempt: our skills press again until they succeed or give
    up (a lone early press at a heavy block fails harmlessly while partners walk in), so a
    requirement is realised met when an attempt on the task meets it within ``window`` steps of
    the prediction, and missed when attempts were made and none met it by then (or by the episode's
    end). A task no one attempts leaves its prediction unresolved. A prediction stands until a
    different one replaces it (a repair's revision); repeating it each step does not restart it."""

    window: int = 30
    pending: dict[tuple[str, str], _Pending] = field(default_factory=dict)
    counts: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            (
                "repair_checks",
                "repairs_triggered",
                "predicted_failures",
                "repair_messages",
                "repair_calls",
                "repair_revisions",
                "estimator_tp",
                "estimator_fp",
                "estimator_fn",
                "estimator_tn",
                "estimator_unresolved",
            ),
            0.0,
        )
    )

    def predicted(self, step: int, requirements: Sequence[Requirement]) -> None:
        """The step's final predictions."""
        for r in requirements:
            key = (r.task, r.constraint)
            standing = self.pending.get(key)
            if standing is None or standing.predicted_ok != r.satisfied:
                self.pending[key] = _Pending(step, r.satisfied)

    def realised(self, step: int, requirements: Sequence[Requirement]) -> list[dict]:
        """Resolve the pending predictions this step's attempts settle; expire the stale ones.
        Returns the scored pairs (for the trace)."""
        scored = []
        for r in requirements:
            key = (r.task, r.constraint)
            standing = self.pending.get(key)
            if standing is None:
                continue
            if r.satisfied:
                scored.append(self._score(key, realised_ok=True))
            else:
                standing.failed = True
        for key, standing in list(self.pending.items()):
            if step - standing.made >= self.window:
                scored += self._expire(key)
        return scored

    def close(self) -> list[dict]:
        """The episode ended: a requirement attempted and never met is realised missed."""
        scored = []
        for key in list(self.pending):
            scored += self._expire(key)
        return scored

    def _expire(self, key: tuple[str, str]) -> list[dict]:
        if self.pending[key].failed:
            return [self._score(key, realised_ok=False)]
        del self.pending[key]
        self.counts["estimator_unresolved"] += 1
        return []

    def _score(self, key: tuple[str, str], realised_ok: bool) -> dict:
        standing = self.pending.pop(key)
        ok = standing.predicted_ok
        cell = ("tn" if realised_ok else "fn") if ok else ("fp" if realised_ok else "tp")
        self.counts[f"estimator_{cell}"] += 1
        return {
            "task": key[0],
            "constraint": key[1],
            "predicted_satisfied": ok,
            "realised_satisfied": realised_ok,
            "predicted_at": standing.made,
        }

    def metrics(self) -> dict[str, float]:
        """Counts plus precision and recall of predicted failures (present only where defined)."""
        c = self.counts
        out = dict(c)
        flagged = c["estimator_tp"] + c["estimator_fp"]
        failed = c["estimator_tp"] + c["estimator_fn"]
        if flagged:
            out["estimator_precision"] = c["estimator_tp"] / flagged
        if failed:
            out["estimator_recall"] = c["estimator_tp"] / failed
        return out


def failing(requirements: Sequence[Requirement], talkers: Sequence[int]) -> list[Requirement]:
    """Predicted failures that involve at least one agent that can deliberate (a repair can reach it)."""
    return [r for r in requirements if not r.satisfied and any(s in talkers for s in r.seats)]


def committed(plans: Mapping[int, str | None]) -> dict[int, str]:
    """The seats' committed plans (those with one)."""
    return {s: p for s, p in plans.items() if p}


__all__ = [
    "MAX_GUIDANCE_CHARS",
    "REPAIR_CHOICES",
    "REPAIR_MODES",
    "REPAIR_SENDER",
    "RepairLedger",
    "committed",
    "failing",
    "guidance_for",
]
