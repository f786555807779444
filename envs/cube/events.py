"""The CUBE event stream: what each agent's action did, derived from (view, actions, next view).

Constraint metrics and belief correction build on these records, so the derivation is
deterministic and reads only the symbolic views (the push records ride in the next view). The
NumPy reference emits the same events while it steps, and a test holds the two streams equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

from envs.cube.rules import NO_BLOCK, VECTORS, CubeAction
from envs.cube.scenario import Pos
from envs.cube.symbolic import CubeView


class CubeEventKind(StrEnum):
    PUSH_OK = "push_ok"
    PUSH_FAILED = "push_failed"  # reason: insufficient_force | blocked_destination
    DELIVER = "deliver"  # one per pusher of the delivering push; the team scores the weight once
    MOVE = "move"
    BLOCKED_MOVE = "blocked_move"  # reason: wall | goal (agents never enter the goal column) | block | agent


@dataclass(frozen=True, slots=True)
class CubeEvent:
    step: int  # the step at which the action was taken (view.step before it)
    agent: int
    kind: CubeEventKind
    position: Pos  # the agent's cell before the step
    direction: str  # the action's direction: up/down/left/right
    target: Pos  # the cell the agent stepped (or tried to step) into
    block: int | None = None  # pushes and deliveries
    weight: int | None = None
    force: int | None = None  # pushers on the face, this agent included
    reason: str | None = None  # failed pushes and blocked moves

    def describe(self) -> str:
        if self.block is not None:
            what = f"{self.kind.value} block {self.block} (w={self.weight}) {self.direction} force {self.force}"
        else:
            what = f"{self.kind.value} {self.direction} {self.position}->{self.target}"
        return what + (f" ({self.reason})" if self.reason else "")

    def to_record(self) -> dict:
        record = asdict(self)
        record["kind"] = self.kind.value
        record["position"] = list(self.position)
        record["target"] = list(self.target)
        return record


def _ahead(cell: Pos, action: int) -> Pos:
    dx, dy = VECTORS[action]
    return (cell[0] + dx, cell[1] + dy)


def extract_events(before: CubeView, actions: Sequence[int], after: CubeView) -> list[CubeEvent]:
    """Push events in resolution order (direction, then block; pushers by index; a delivery right
    after its push), then moves by agent index. A failed pusher walks on after the pushes: it gets a
    move event only when a later push took its block away and it stepped in (its failed push
    already says why it stayed otherwise). A frozen (already done) step has no events."""
    if before.done:
        return []
    actions = [int(a) for a in actions]
    events: list[CubeEvent] = []
    for rec in after.pushes:
        pushers = [i for i, b in enumerate(after.agent_push) if b == rec.block and actions[i] == rec.direction]
        delivered = rec.ok and after.blocks[rec.block].delivered and not before.blocks[rec.block].delivered
        kinds = [CubeEventKind.PUSH_OK] if rec.ok else [CubeEventKind.PUSH_FAILED]
        kinds += [CubeEventKind.DELIVER] if delivered else []
        for kind in kinds:
            for i in pushers:
                events.append(
                    CubeEvent(
                        before.step,
                        i,
                        kind,
                        before.agents[i],
                        rec.direction.name.lower(),
                        _ahead(before.agents[i], rec.direction),
                        rec.block,
                        rec.weight,
                        rec.force,
                        rec.outcome.reason,
                    )
                )
    for i, action in enumerate(actions[: len(before.agents)]):
        if action == CubeAction.STAY:
            continue
        if after.agent_push[i] == NO_BLOCK:
            events.append(_move(before, i, action, after))
        elif _failed_push_then_moved(before, i, action, after):
            name = CubeAction(action).name.lower()
            events.append(CubeEvent(before.step, i, CubeEventKind.MOVE, before.agents[i], name, after.agents[i]))
    return events


def _failed_push_then_moved(before: CubeView, agent: int, action: int, after: CubeView) -> bool:
    record = after.push_of(CubeAction(action), after.agent_push[agent])
    return record is not None and not record.ok and after.agents[agent] == _ahead(before.agents[agent], action)


def _move(before: CubeView, agent: int, action: int, after: CubeView) -> CubeEvent:
    start, target = before.agents[agent], _ahead(before.agents[agent], action)
    direction = CubeAction(action).name.lower()
    if after.agents[agent] == target:
        return CubeEvent(before.step, agent, CubeEventKind.MOVE, start, direction, target)
    # Moves resolve after the pushes, so the blocks they met are the ones in ``after``.
    if not after.in_grid(target):
        reason = "wall"
    elif not after.walkable(target):
        reason = "goal"
    else:
        reason = "block" if after.block_at(target) is not None else "agent"
    return CubeEvent(before.step, agent, CubeEventKind.BLOCKED_MOVE, start, direction, target, reason=reason)
