"""CUBE's RL spec (``CubeDomain.capabilities.rl``): what the one RL program needs of a scenario.

- the observation: seat-relative and fixed-size, pure JAX (``observe``, below);
- the rewards: the team reward is the env's (weight delivered minus the step cost) and the score
  is the weight delivered alone; each agent's shaping is ``push_shaping`` x the env's shaped
  reward (+1 for taking part in a successful push to the right, -1 to the left) plus
  ``approach_shaping`` x a potential-based term, gamma * phi(s') - phi(s) with phi = -(Manhattan
  distance to the nearest undelivered block's left face) / grid size. The program anneals the
  shaping to 0 over ``shaping_horizon`` env steps (the shipped partners: over the first half);
- the network: the MLP family (purejaxrl's IPPO: separate tanh torsos for policy and value).

CUBE has no symmetry transform, no start-state hook, no style events and no recorded play: OP,
state_aug, human_proxy and bc are refused for it. Self-play (``--algo sp``, one network in every
seat) and independent PPO (``--algo ippo``, one network per seat) are the shipped
``ippo_shared`` and ``ippo_independent`` partners; the population methods run as for any world.

The observation, for seat ``i`` of a scenario with A agent slots and B block slots on a k x k grid
(all lengths divided by k, so every feature lies roughly in [-1, 1]):

- one-hot seat id (A): lets one shared network play every seat;
- own position x, y (2);
- every other agent, in cyclic seat order i+1, i+2, ...: dx, dy relative to this agent (2 each,
  zeros for padding agents);
- every block: active, weight / agent slots, dx, dy from this agent to the block's top-left cell,
  dx to its left face column (x - 1), dy to the nearest left-face cell, 1 if this agent stands on
  the left face, agents on the left face / weight, distance still to go to the goal column
  (9 each; zeros but the weight for delivered or padding blocks);
- time left, 1 - step / horizon (1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp

from envs.cube import CubeAction, CubeEnv, CubeEnvState, Scenario, load_scenario
from proagent.world.rl_spec import StepOut

BLOCK_FEATURES = 9
PUSH_SHAPING = 0.5  # x the env's per-agent push-right reward
APPROACH_SHAPING = 1.0  # x the potential-based approach to a block's left face
SHAPING_GAMMA = 0.99  # the potential term's discount (the PPO gamma the shipped partners trained with)


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


def approach_potential(state: CubeEnvState, scenario: Scenario) -> jax.Array:
    """(A,) -(Manhattan distance to the nearest undelivered block's left face) / grid size; 0 when
    every block is delivered."""
    pos = state.agent_pos[:, None, :]  # (A, 1, 2)
    bx, by, w = state.block_pos[None, :, 0], state.block_pos[None, :, 1], state.block_weight[None, :]
    dx = jnp.abs(pos[..., 0] - (bx - 1))
    dy = jnp.abs(pos[..., 1] - jnp.clip(pos[..., 1], by, by + w - 1))
    dist = jnp.where(state.block_active[None, :], dx + dy, 10 * scenario.grid_size)
    nearest = jnp.min(dist, axis=1).astype(jnp.float32)
    any_left = jnp.any(state.block_active)
    return jnp.where(any_left, -nearest / scenario.grid_size, 0.0) * state.agent_active


@dataclass(frozen=True)
class CubeRLEnv:
    """A scenario as the RL program sees it (``proagent.world.rl_spec.RLEnv``)."""

    env: CubeEnv
    push_shaping: float = PUSH_SHAPING
    approach_shaping: float = APPROACH_SHAPING
    shaping_gamma: float = SHAPING_GAMMA
    num_actions: int = len(CubeAction)

    @property
    def num_agents(self) -> int:
        return self.env.scenario.agent_capacity

    @property
    def horizon(self) -> int:
        return self.env.scenario.horizon

    def reset(self, key: jax.Array) -> CubeEnvState:
        return self.env.reset(key)

    def step(self, key: jax.Array, state: CubeEnvState, actions: jax.Array) -> StepOut:
        tr = self.env.step(key, state, actions)
        scenario = self.env.scenario
        approach = self.shaping_gamma * approach_potential(tr.state, scenario) - approach_potential(state, scenario)
        shaped = self.push_shaping * tr.shaped_reward + self.approach_shaping * approach
        score = (tr.state.score - state.score).astype(jnp.float32)
        return StepOut(state=tr.state, reward=tr.reward, score=score, shaped=shaped, done=tr.done)

    def observe(self, state: CubeEnvState) -> jax.Array:
        return observe_all(state, self.env.scenario)

    def observe_seat(self, state: CubeEnvState, seat: jax.Array | int) -> jax.Array:
        return observe(state, seat, self.env.scenario)

    def legal_actions(self, state: Any) -> None:
        """Every action is legal in every state: no mask."""

    def record(self) -> dict[str, Any]:
        return {
            "horizon": self.horizon,
            "push_shaping": self.push_shaping,
            "approach_shaping": self.approach_shaping,
            "shaping_gamma": self.shaping_gamma,
        }


@dataclass(frozen=True)
class CubeRLSpec:
    """``proagent.world.rl_spec.RLSpec`` for CUBE."""

    world: str = "cube"
    encoders: tuple[str, ...] = ("mlp",)
    ppo_defaults: Mapping[str, int | float] = field(
        default_factory=lambda: {"num_envs": 64, "ent_coef": 0.01, "lr": 1e-3, "lr_warmup": 0.0}
    )
    symmetries: None = None
    start_states: None = None
    styles: None = None
    demonstrations: None = None

    def layout_name(self, layout: str) -> str:
        return load_scenario(layout).name

    def make_env(self, layout: str, horizon: int | None = None, record: Mapping[str, Any] | None = None) -> CubeRLEnv:
        """The scenario (its own horizon unless ``horizon`` or ``record`` says otherwise) with the
        shaping weights ``record`` names (default: those the shipped partners trained with)."""
        settings = record or {}
        scenario = load_scenario(layout)
        length = horizon if horizon is not None else settings.get("horizon", scenario.horizon)
        return CubeRLEnv(
            CubeEnv(dataclasses.replace(scenario, horizon=length)),
            push_shaping=settings.get("push_shaping", PUSH_SHAPING),
            approach_shaping=settings.get("approach_shaping", APPROACH_SHAPING),
            shaping_gamma=settings.get("shaping_gamma", SHAPING_GAMMA),
        )

    def network(self, encoder: str, layout: str, gpu: bool):
        from proagent.training.networks import MlpConfig

        if encoder not in ("auto", *self.encoders):
            raise ValueError(f"cube has no encoder {encoder!r}; choices: auto, {', '.join(self.encoders)}")
        return MlpConfig()


def partner_env(env: CubeEnv) -> CubeRLEnv:
    """The env a trained partner observes the game ``env`` through (its scenario: grid, horizon)."""
    return CubeRLEnv(env)


CUBE_RL = CubeRLSpec()
