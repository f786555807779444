"""A small MLP actor-critic for CUBE's vector observation (flax only, no optax)."""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen.initializers import constant
from pydantic import BaseModel, ConfigDict, Field

from envs.cube import CubeAction
from proagent.training.networks import (
    orthogonal,  # no LAPACK QR: flax's deadlocks under vmap on 2-core CPUs (partners/README.md)
)

NUM_ACTIONS = len(CubeAction)


class MlpConfig(BaseModel):
    """What rebuilds a policy from its parameters; stored in every manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hidden: int = Field(64, ge=1)
    layers: int = Field(2, ge=1)


class MlpActorCritic(nn.Module):
    """Separate tanh MLP torsos for the policy (5 logits) and the value (purejaxrl's IPPO)."""

    config: MlpConfig

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = self.config.hidden

        def torso(x: jax.Array) -> jax.Array:
            for _ in range(self.config.layers):
                x = jnp.tanh(nn.Dense(h, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x))
            return x

        logits = nn.Dense(NUM_ACTIONS, kernel_init=orthogonal(0.01), bias_init=constant(0.0))(torso(obs))
        value = nn.Dense(1, kernel_init=orthogonal(1.0), bias_init=constant(0.0))(torso(obs))
        return logits, value[..., 0]
