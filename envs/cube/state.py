"""The CUBE state layout, shared by the JAX env and the NumPy reference (no JAX needed here).

Fixed-size arrays make shapes static under jit: A = the scenario's agent capacity, B = its block
capacity; padding agents and blocks are masked off, so scenarios with equal capacities (all random
scenarios of one difficulty, say) stack into one batch and share one compiled step.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from envs.cube.rules import NO_BLOCK, NUM_DIRECTIONS
from envs.cube.scenario import Scenario

Array = Any  # jax.Array in the env, np.ndarray in the reference


class CubeEnvState(NamedTuple):
    agent_pos: Array  # (A, 2) int32 (x, y); padding agents at (-1, -1)
    agent_active: Array  # (A,) bool, False for padding
    block_pos: Array  # (B, 2) int32, top-left cell (x, y); a delivered one: where it touched the goal
    block_weight: Array  # (B,) int32, side and agents needed; 0 for padding
    block_active: Array  # (B,) bool, on the grid (not delivered, not padding)
    score: Array  # () int32, sum of delivered weights
    step: Array  # () int32
    done: Array  # () bool
    push_force: Array  # (4, B) int32, last step: pushers per (direction, block), directions up/down/left/right
    push_aligned: Array  # (4, B) int32, last step: agents on that face at the attempt, whatever their action
    push_outcome: Array  # (4, B) int32 PushOutcome, last step
    agent_push: Array  # (A,) int32, the block each agent pushed last step (its action gives the direction), or -1


def initial_state(scenario: Scenario) -> CubeEnvState:
    """The scenario's start as NumPy arrays."""
    na, nb = scenario.agent_capacity, scenario.block_capacity
    agent_pos = np.full((na, 2), -1, np.int32)
    agent_pos[: len(scenario.agents)] = scenario.agents
    block_pos = np.zeros((nb, 2), np.int32)
    block_weight = np.zeros(nb, np.int32)
    for i, b in enumerate(scenario.blocks):
        block_pos[i], block_weight[i] = (b.x, b.y), b.weight
    return CubeEnvState(
        agent_pos=agent_pos,
        agent_active=np.arange(na) < len(scenario.agents),
        block_pos=block_pos,
        block_weight=block_weight,
        block_active=block_weight > 0,
        score=np.int32(0),
        step=np.int32(0),
        done=np.bool_(False),
        push_force=np.zeros((NUM_DIRECTIONS, nb), np.int32),
        push_aligned=np.zeros((NUM_DIRECTIONS, nb), np.int32),
        push_outcome=np.zeros((NUM_DIRECTIONS, nb), np.int32),
        agent_push=np.full(na, NO_BLOCK, np.int32),
    )
