"""EmCoop's cooperation constraints (C+ / C-) for CUBE, evaluated per task at every step.

EmCoop turns cooperation from a binary outcome (delivered or not) into an observable process: at
every step each active task's constraints are either satisfied (C+) or violated (C-), and each
failed push is attributed to exactly one constraint, so a trace says *why* a team stalled.

Definitions:

- A task g = (block b, push direction d); p(g) = weight w of b. Active tasks of a step: for every
  block still on the grid in ``before``, its goal-ward task (b, right); plus (b, d) for any other
  direction d where at least one agent standing on that face's adjacent cells acts in direction d
  (a push attempt).
- A_g = the w cells adjacent to the face that direction d pushes (the cells the pushers stand on).
- spatial: n_spatial = #agents on A_g (before); satisfied iff n_spatial >= w.
- temporal: n_temporal = #agents on A_g whose action is d; satisfied iff >= w (they push in the
  same step).
- participation: n_participation = #agents available to g = agents not attempting a push on a
  *different* block this step (an attempt = standing on a face's adjacent cells of that block and
  acting into it); satisfied iff >= w (a team smaller than w always violates it).
- dependency: the destination (the block's w x w area moved one cell in d) lies inside the grid
  and holds no other block and no agent. For a task that was attempted this step use the env's own
  recorded outcome from ``after.pushes`` (blocked_destination => violated) so chained pushes within
  a step agree with the rules; for an unattempted task check ``before`` statically.
- outcome: "moved" / "insufficient_force" / "blocked_destination" (from the push record) or None
  when nobody attempted.
- Failure attribution: each failed attempted task is attributed to exactly one constraint:
  blocked_destination -> "dependency"; insufficient_force -> the first violated of participation,
  spatial, temporal (in that order).
- Capability change dZ: per task, n_spatial(after) - n_spatial(before) for the same
  block+direction (block's position in after); count sum |dZ| per step.

Where the env's rules leave these open (pushes resolve one after another within a step, direction
by direction, so a block can move before a later attempt on it is resolved), this module decides:

- "attempted" means the env recorded an attempt on (b, d) in ``after.pushes``; such a task is
  active even if the static test on ``before`` saw no pusher (a block moved into an agent's path
  earlier in the step). Counts are always taken on ``before``.
- An attempt that failed with insufficient_force says nothing about the destination (the env
  checks force first), so its dependency is checked statically on ``before``.
- If the env reports insufficient_force while the static counts satisfy participation, spatial
  and temporal (possible only when the block moved earlier in the same step), the failure is
  attributed to "temporal": the env's force, the simultaneous pushers at resolution, fell short.
- A block delivered in the step keeps its delivered position in ``after``; dZ uses its face there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envs.cube import FACES, PUSH_ACTIONS, CubeAction, CubeBlock, CubeView, PushOutcome, PushRecord
from envs.cube.rules import VECTORS
from envs.cube.scenario import Pos
from proagent.world.kit.process import tally_constraints

CONSTRAINTS: tuple[str, ...] = ("spatial", "temporal", "participation", "dependency")
# The order in which an insufficient-force failure looks for its cause: too few agents at all,
# then too few at the face, then too few pushing together.
FORCE_CAUSES: tuple[str, ...] = ("participation", "spatial", "temporal")

METRIC_NAMES: tuple[str, ...] = (
    *(f"c_{sign}_{c}" for c in CONSTRAINTS for sign in ("plus", "minus")),
    "coop_satisfied",
    "failed_attempts",
    *(f"failures_{c}" for c in CONSTRAINTS),
    "capability_changes",
    "task_steps",
)

_OUTCOMES: dict[PushOutcome, str] = {
    PushOutcome.OK: "moved",
    PushOutcome.INSUFFICIENT_FORCE: "insufficient_force",
    PushOutcome.BLOCKED_DESTINATION: "blocked_destination",
}


def _ahead(cell: Pos, action: int) -> Pos:
    dx, dy = VECTORS[action]
    return (cell[0] + dx, cell[1] + dy)


def attempted_block(view: CubeView, cell: Pos, action: int) -> int | None:
    """The block an agent at ``cell`` tries to push with ``action`` (its target cell lies in the
    block, i.e. it stands on that face's adjacent cells and acts into it), or None."""
    if action == CubeAction.STAY:
        return None
    block = view.block_at(_ahead(cell, action))
    return None if block is None else block.index


def spatial_count(view: CubeView, block: CubeBlock, direction: CubeAction) -> int:
    """n_spatial: agents standing on the cells pushers of ``direction`` need (A_g)."""
    face = set(block.face_cells(direction))
    return sum(1 for p in view.agents if p in face)


def destination_free(view: CubeView, block: CubeBlock, direction: CubeAction) -> bool:
    """The static dependency test: the area the block would move into is in the grid, free of
    other blocks and of agents."""
    dx, dy = VECTORS[direction]
    x, y, w = block.position[0] + dx, block.position[1] + dy, block.weight
    cells = [(x + i, y + j) for i in range(w) for j in range(w)]
    if not all(view.in_grid(c) for c in cells):
        return False
    others = set().union(*(b.cells for b in view.remaining if b.index != block.index))
    agents = set(view.agents)
    return not any(c in others or c in agents for c in cells)


@dataclass(frozen=True, slots=True)
class TaskEval:
    """One task's constraint state in one step (the trace record is ``to_record``)."""

    block: int
    direction: CubeAction
    weight: int
    counts: dict[str, int]
    satisfied: tuple[str, ...]
    violated: tuple[str, ...]
    outcome: str | None
    attributed: str | None
    delta_z: int

    def to_record(self) -> dict:
        return {
            "block": self.block,
            "face": FACES[self.direction],
            "direction": self.direction.name.lower(),
            "weight": self.weight,
            "counts": dict(self.counts),
            "satisfied": list(self.satisfied),
            "violated": list(self.violated),
            "outcome": self.outcome,
            "attributed": self.attributed,
            "delta_z": self.delta_z,
        }


def evaluate_step(before: CubeView, actions: Sequence[int], after: CubeView) -> list[TaskEval]:
    """Every active task of the step from ``before`` to ``after``, by block then direction."""
    n = len(before.agents)
    if len(actions) < n:
        raise ValueError(f"{len(actions)} actions for {n} agents")
    acts = [int(a) for a in actions[:n]]
    targets = [attempted_block(before, before.agents[i], acts[i]) for i in range(n)]
    evals: list[TaskEval] = []
    for block in before.remaining:
        for direction in PUSH_ACTIONS:
            record = after.push_of(direction, block.index)
            face = set(block.face_cells(direction))
            on_face = [i for i in range(n) if before.agents[i] in face]
            pushing = [i for i in on_face if acts[i] == direction]
            if direction != CubeAction.RIGHT and not pushing and record is None:
                continue
            evals.append(_evaluate(before, after, block, direction, targets, on_face, pushing, record))
    return evals


def _evaluate(
    before: CubeView,
    after: CubeView,
    block: CubeBlock,
    direction: CubeAction,
    targets: list[int | None],
    on_face: list[int],
    pushing: list[int],
    record: PushRecord | None,
) -> TaskEval:
    """One active task: counts on ``before``, outcome from the env's record, dZ against ``after``."""
    w = block.weight
    available = sum(1 for t in targets if t is None or t == block.index)
    counts = {"spatial": len(on_face), "temporal": len(pushing), "participation": available}
    outcome = None if record is None else _OUTCOMES[record.outcome]
    if outcome == "moved":
        dependency = True
    elif outcome == "blocked_destination":
        dependency = False
    else:  # unattempted, or failed on force before the env looked at the destination
        dependency = destination_free(before, block, direction)
    ok = {c: counts[c] >= w for c in counts} | {"dependency": dependency}
    attributed = None
    if outcome == "blocked_destination":
        attributed = "dependency"
    elif outcome == "insufficient_force":
        attributed = next((c for c in FORCE_CAUSES if not ok[c]), "temporal")
    moved_to = after.blocks[block.index]
    delta_z = spatial_count(after, moved_to, direction) - counts["spatial"]
    return TaskEval(
        block=block.index,
        direction=direction,
        weight=w,
        counts=counts,
        satisfied=tuple(c for c in CONSTRAINTS if ok[c]),
        violated=tuple(c for c in CONSTRAINTS if not ok[c]),
        outcome=outcome,
        attributed=attributed,
        delta_z=delta_z,
    )


class CubeConstraintCollector:
    """Accumulates the constraint process of one episode: per-step records for the trace and
    flat float totals (``METRIC_NAMES``) for the episode metrics."""

    def __init__(self, first: CubeView) -> None:
        # The start view fixes the team and blocks; steps must come from the same scenario.
        self._agents = len(first.agents)
        self._blocks = len(first.blocks)
        self._totals: dict[str, float] = dict.fromkeys(METRIC_NAMES, 0.0)

    def add(self, before: CubeView, actions: Sequence[int], after: CubeView) -> list[dict]:
        """Evaluate this step's tasks; return the step's constraint records (JSON-able) for the trace."""
        if len(before.agents) != self._agents or len(before.blocks) != self._blocks:
            raise ValueError("step views come from a different scenario than the collector's first view")
        evals = evaluate_step(before, actions, after)
        t = self._totals
        for e in evals:
            tally_constraints(t, e)
            t["capability_changes"] += abs(e.delta_z)
        return [e.to_record() for e in evals]

    def result(self) -> dict[str, float]:
        """Episode totals (flat float dict)."""
        return dict(self._totals)


__all__ = ["CONSTRAINTS", "METRIC_NAMES", "CubeConstraintCollector", "TaskEval", "evaluate_step"]
