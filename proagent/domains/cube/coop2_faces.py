"""COOP²'s CUBE face tasks and their per-step counts, beside our (EmCoop v1) constraint process.

COOP²'s tracker (``cube/env/cooperative_tasks.py``) and constraint adapter
(``cube/coop2_repair/cube_adapter.py``) in ``HappyEureka/coop2-llm-mas`` read CUBE differently
from `constraints.evaluate_step`, so a table that reports their numbers needs their definitions,
restated here from the docs (``docs/cube.md``, "COOP² (v2) check"):

- every face of every undelivered block is a task, every step (four per block), including faces
  no one works on; a face is named by the push it takes (the left face: a push right);
- the counts are taken *after* the step, with that step's actions (their tracker updates after
  ``step``): ``adjacent`` = agents on the face's cells, ``pushing`` = agents whose intent is to
  push that block that way when intents are given (their symbolic runs), else the adjacent agents
  whose action pushes into the block;
- the adapter's constraint results: spatial iff adjacent >= w, temporal iff pushing >= w,
  dependency always (CUBE has none for them);
- the tracker's step counts: faces with any agent adjacent (spatial), any pushing (temporal), all
  faces (dependency), adjacent / w >= 1 (participation, also their "total"), and the mean ratio.

Our own process metrics stay v1's (`constraints.py`); these are for comparing with their tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from envs.cube import PUSH_ACTIONS, CubeAction, CubeView


@dataclass(frozen=True, slots=True)
class FaceTask:
    """One face task after one step (COOP²'s ``block_<id>_<face>``, with the push it takes)."""

    block: int
    direction: CubeAction  # the push this face takes: right for the left face
    weight: int
    adjacent: tuple[int, ...]  # seats on the face's cells
    pushing: tuple[int, ...]  # seats pushing this block this way

    @property
    def spatial(self) -> bool:
        return len(self.adjacent) >= self.weight

    @property
    def temporal(self) -> bool:
        return len(self.pushing) >= self.weight

    @property
    def participation_ratio(self) -> float:
        return len(self.adjacent) / self.weight


def face_tasks(
    after: CubeView, actions: Sequence[int], intents: Mapping[int, tuple[int, CubeAction]] | None = None
) -> list[FaceTask]:
    """Every face task of the undelivered blocks in ``after``, by block then push direction.
    ``intents``: seat -> (block, direction) of the push each agent means, when the planner says so."""
    tasks = []
    for block in after.remaining:
        for direction in PUSH_ACTIONS:
            face = set(block.face_cells(direction))
            adjacent = tuple(i for i, p in enumerate(after.agents) if p in face)
            if intents is not None:
                pushing = tuple(sorted(s for s, intent in intents.items() if intent == (block.index, direction)))
            else:
                pushing = tuple(i for i in adjacent if int(actions[i]) == direction)
            tasks.append(FaceTask(block.index, direction, block.weight, adjacent, pushing))
    return tasks


def step_counts(tasks: Sequence[FaceTask]) -> dict[str, float]:
    """Their tracker's satisfaction counts of one step (``StepMetrics``: spatial, temporal,
    dependency, participation, total, participation_ratio_avg) and the task set's size."""
    participation = sum(1 for t in tasks if t.participation_ratio >= 1.0)
    return {
        "task_set_size": float(len(tasks)),
        "spatial_satisfied": float(sum(1 for t in tasks if t.adjacent)),
        "temporal_satisfied": float(sum(1 for t in tasks if t.pushing)),
        "dependency_satisfied": float(len(tasks)),
        "participation_satisfied": float(participation),
        "total_satisfied": float(participation),
        "participation_ratio_avg": sum(t.participation_ratio for t in tasks) / len(tasks) if tasks else 0.0,
    }


__all__ = ["FaceTask", "face_tasks", "step_counts"]
