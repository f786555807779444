"""A seat-relative, fixed-size observation of a CUBE state, pure JAX (jit/vmap it freely).

For seat ``i`` of a scenario with A agent slots and B block slots on a k x k grid (all lengths
divided by k, so every feature lies roughly in [-1, 1]):

- one-hot seat id (A): lets one shared network play every seat;
- own position x, y (2);
- every other agent, in cyclic seat order i+1, i+2, ...: dx, dy relative to this agent (2 each,
  zeros for padding agents);
- every block: active, weight / agent slots, dx, dy from this agent to the block's top-left cell,
  dx to its left face column (x - 1), dy to the nearest left-face cell, 1 if this agent stands on
  the left face, agents on the left face / weight, distance still to go to the goal column
  (8 each; zeros but the weight for delivered or padding blocks);
- time left, 1 - step / horizon (1).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from envs.cube import CubeEnvState, Scenario

BLOCK_FEATURES = 9


def obs_dim(scenario: Scenario) -> int:
    a, b = scenario.agent_capacity, scenario.block_capacity
    return a + 2 + 2 * (a - 1) + BLOCK_FEATURES * b + 1


def observe(state: CubeEnvState, seat: jax.Array | int, scenario: Scenario) -> jax.Array:
    """(obs_dim,) float32 observation of ``state`` from ``seat`` (may be traced)."""
    k = jnp.float32(scenario.grid_size)
    na = scenario.agent_capacity
    pos = state.agent_pos.astype(jnp.float32)
    me = pos[seat]
    seat_onehot = jax.nn.one_hot(seat, na, dtype=jnp.float32)
    order = (seat + jnp.arange(1, na)) % na
    rel = (pos[order] - me) / k * state.agent_active[order, None]
    # blocks
    w = state.block_weight.astype(jnp.float32)
    bpos = state.block_pos.astype(jnp.float32)
    live = state.block_active
    face_x = bpos[:, 0] - 1.0
    face_dy = jnp.clip(me[1], bpos[:, 1], bpos[:, 1] + w - 1.0) - me[1]
    on_face = (me[0] == face_x) & (face_dy == 0) & live
    ax, ay = pos[:, 0], pos[:, 1]
    others_on = (
        (ax[None, :] == face_x[:, None])
        & (ay[None, :] >= bpos[:, 1:2])
        & (ay[None, :] < bpos[:, 1:2] + w[:, None])
        & state.agent_active[None, :]
    )
    face_count = jnp.sum(others_on, axis=1).astype(jnp.float32) / jnp.maximum(w, 1.0)
    to_goal = (k - (bpos[:, 0] + w)) / k
    mask = live.astype(jnp.float32)
    blocks = jnp.stack(
        [
            mask,
            w / jnp.float32(scenario.agent_capacity),
            (bpos[:, 0] - me[0]) / k * mask,
            (bpos[:, 1] - me[1]) / k * mask,
            (face_x - me[0]) / k * mask,
            face_dy / k * mask,
            on_face.astype(jnp.float32),
            face_count * mask,
            to_goal * mask,
        ],
        axis=-1,
    )
    time_left = 1.0 - state.step.astype(jnp.float32) / jnp.float32(scenario.horizon)
    return jnp.concatenate([seat_onehot, me / k, rel.reshape(-1), blocks.reshape(-1), time_left[None]])


def observe_all(state: CubeEnvState, scenario: Scenario) -> jax.Array:
    """(A, obs_dim) observations of every seat."""
    return jax.vmap(lambda s: observe(state, s, scenario))(jnp.arange(scenario.agent_capacity))
