"""The running totals of EmCoop's constraint metrics, shared by every world's process collector."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class TaskEvaluation(Protocol):
    """One task's constraint state at one step: which constraints hold, which fail, and the one a
    failed attempt is attributed to (None when nothing failed)."""

    satisfied: Iterable[str]
    violated: Iterable[str]
    attributed: str | None


def tally_constraints(totals: dict[str, float], evaluation: TaskEvaluation) -> None:
    """Add one task's step to ``totals``: task steps, C+ and C- per constraint, C_coop (nothing
    violated), and failed attempts per attributed constraint."""
    totals["task_steps"] += 1
    for c in evaluation.satisfied:
        totals[f"c_plus_{c}"] += 1
    violated = list(evaluation.violated)
    for c in violated:
        totals[f"c_minus_{c}"] += 1
    if not violated:
        totals["coop_satisfied"] += 1
    if evaluation.attributed is not None:
        totals["failed_attempts"] += 1
        totals[f"failures_{evaluation.attributed}"] += 1
