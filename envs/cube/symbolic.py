"""The symbolic view of a CUBE state: typed agents, blocks and last-step push records.

Events, prompts and constraint metrics read ``CubeView``; nobody else decodes the state arrays.
Decoding runs on host NumPy arrays, outside jit, once per step; it accepts the JAX state and the
NumPy reference's state alike (same fields).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import jax
import numpy as np

from envs.cube.rules import FACES, PUSH_ACTIONS, CubeAction, PushOutcome
from envs.cube.scenario import Pos, Scenario

if TYPE_CHECKING:
    from envs.cube.state import CubeEnvState


@dataclass(frozen=True, slots=True)
class CubeBlock:
    index: int
    position: Pos  # top-left cell (x, y); for a delivered block: where it was delivered
    weight: int  # side length, and the agents needed on one face
    delivered: bool

    @property
    def cells(self) -> frozenset[Pos]:
        x, y = self.position
        return frozenset((x + i, y + j) for i in range(self.weight) for j in range(self.weight))

    def face_cells(self, direction: CubeAction) -> tuple[Pos, ...]:
        """Where pushers must stand to push this block in ``direction``."""
        x, y, w = *self.position, self.weight
        if direction == CubeAction.UP:
            return tuple((x + i, y + w) for i in range(w))
        if direction == CubeAction.DOWN:
            return tuple((x + i, y - 1) for i in range(w))
        if direction == CubeAction.LEFT:
            return tuple((x + w, y + j) for j in range(w))
        if direction == CubeAction.RIGHT:
            return tuple((x - 1, y + j) for j in range(w))
        raise ValueError(f"{direction!r} is not a push direction")

    def to_record(self) -> dict:
        return {
            "index": self.index,
            "position": list(self.position),
            "weight": self.weight,
            "delivered": self.delivered,
        }


@dataclass(frozen=True, slots=True)
class PushRecord:
    """One push attempt of the last step: the participation constraint is ``force >= weight``;
    ``aligned`` counts the agents on the face whatever their action (spatial constraint)."""

    direction: CubeAction
    block: int
    weight: int
    force: int
    aligned: int
    outcome: PushOutcome

    @property
    def face(self) -> str:
        return FACES[self.direction]

    @property
    def ok(self) -> bool:
        return self.outcome == PushOutcome.OK

    def to_record(self) -> dict:
        return {
            "direction": self.direction.name.lower(),
            "face": self.face,
            "block": self.block,
            "weight": self.weight,
            "force": self.force,
            "aligned": self.aligned,
            "outcome": self.outcome.name.lower(),
            "reason": self.outcome.reason,
        }


@dataclass(frozen=True, slots=True)
class CubeView:
    step: int
    horizon: int
    grid_size: int
    agents: tuple[Pos, ...]  # real agents only, by index
    blocks: tuple[CubeBlock, ...]  # real blocks only, by index (delivered ones included)
    score: int
    done: bool
    pushes: tuple[PushRecord, ...]  # the attempts of the step that led here, in resolution order
    agent_push: tuple[int, ...]  # per agent: the block it pushed in that step, or -1

    @property
    def goal_column(self) -> int:
        return self.grid_size - 1

    @property
    def remaining(self) -> tuple[CubeBlock, ...]:
        return tuple(b for b in self.blocks if not b.delivered)

    def block_at(self, cell: Pos) -> CubeBlock | None:
        return next((b for b in self.remaining if cell in b.cells), None)

    def agent_at(self, cell: Pos) -> int | None:
        return next((i for i, p in enumerate(self.agents) if p == cell), None)

    def in_grid(self, cell: Pos) -> bool:
        return 0 <= cell[0] < self.grid_size and 0 <= cell[1] < self.grid_size

    def walkable(self, cell: Pos) -> bool:
        """Inside the grid and left of the goal column: blocks enter the goal column, agents never do."""
        return self.in_grid(cell) and cell[0] < self.goal_column

    def push_of(self, direction: CubeAction, block: int) -> PushRecord | None:
        return next((p for p in self.pushes if p.direction == direction and p.block == block), None)

    def to_record(self) -> dict:
        return {
            "step": self.step,
            "horizon": self.horizon,
            "grid_size": self.grid_size,
            "agents": [list(p) for p in self.agents],
            "blocks": [b.to_record() for b in self.blocks],
            "score": self.score,
            "done": self.done,
            "pushes": [p.to_record() for p in self.pushes],
        }


def decode(state: CubeEnvState, scenario: Scenario) -> CubeView:
    """Typed view of one unbatched state (JAX or NumPy arrays)."""
    s = jax.tree.map(np.asarray, jax.device_get(state))
    na, nb = len(scenario.agents), len(scenario.blocks)
    blocks = tuple(
        CubeBlock(
            i, (int(s.block_pos[i, 0]), int(s.block_pos[i, 1])), int(s.block_weight[i]), not bool(s.block_active[i])
        )
        for i in range(nb)
    )
    pushes = tuple(
        PushRecord(
            direction,
            b,
            int(s.block_weight[b]),
            int(s.push_force[d, b]),
            int(s.push_aligned[d, b]),
            PushOutcome(int(s.push_outcome[d, b])),
        )
        for d, direction in enumerate(PUSH_ACTIONS)
        for b in range(nb)
        if s.push_outcome[d, b] != PushOutcome.NONE
    )
    return CubeView(
        step=int(s.step),
        horizon=scenario.horizon,
        grid_size=scenario.grid_size,
        agents=tuple((int(s.agent_pos[i, 0]), int(s.agent_pos[i, 1])) for i in range(na)),
        blocks=blocks,
        score=int(s.score),
        done=bool(s.done),
        pushes=pushes,
        agent_push=tuple(int(s.agent_push[i]) for i in range(na)),
    )
