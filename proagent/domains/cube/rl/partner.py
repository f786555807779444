"""``IppoPartner``: a shipped CUBE IPPO checkpoint playing one seat.

It builds its observation from the engine state (``observe(engine, seat, scenario)``, the one it
was trained on), so it needs the env. Actions are sampled from the policy by default, as in
training (``stochastic=False``: argmax); its random stream is seeded by ``reset(seat, seed)``, so
an episode replays exactly. An independent-parameters checkpoint plays each seat with that seat's
network; a shared one plays every seat with the same network.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from envs.cube import CubeEnv, CubeEnvState, CubeView
from proagent.contract import ImmediateAgent, Observation, UnknownAgentError
from proagent.domains.cube.rl import checkpoint
from proagent.domains.cube.rl.network import MlpActorCritic
from proagent.domains.cube.rl.observation import obs_dim, observe


class IppoPartner(ImmediateAgent):
    def __init__(self, directory: Path, env: CubeEnv, name: str | None = None, stochastic: bool = True) -> None:
        self.params, self.manifest = checkpoint.load(directory)
        self.name = name or self.manifest.algorithm
        self.directory = directory
        self.env = env
        self.stochastic = stochastic
        size = obs_dim(env.scenario)
        if size != self.manifest.obs_dim or env.num_agents != self.manifest.num_agents:
            raise ValueError(
                f"partner {self.name!r} was trained on {self.manifest.scenario} ({self.manifest.num_agents} agents, "
                f"observation {self.manifest.obs_dim}), not on {env.name} ({env.num_agents} agents, observation {size})"
            )
        self.seat = 0
        self._key = jax.random.PRNGKey(0)

    def provenance(self) -> dict[str, str]:
        return {"params_sha256": self.manifest.params_sha256}

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat
        self._key = jax.random.PRNGKey(seed)

    def policy(self, state: CubeView, engine: CubeEnvState) -> int:
        self._key, key = jax.random.split(self._key)
        return int(self._act(self.params, engine, jnp.int32(self.seat), key))

    def logits(self, engine: CubeEnvState, seat: int) -> jax.Array:
        return self._logits(self.params, engine, jnp.int32(seat))

    @cached_property
    def _network(self) -> MlpActorCritic:
        return MlpActorCritic(self.manifest.network)

    @cached_property
    def _logits(self):
        scenario, shared = self.env.scenario, self.manifest.params_mode == "shared"

        def logits(params: Any, engine: CubeEnvState, seat: jax.Array) -> jax.Array:
            group = 0 if shared else seat
            mine = jax.tree.map(lambda p: p[group], params)
            return self._network.apply(mine, observe(engine, seat, scenario))[0]

        return jax.jit(logits)

    @cached_property
    def _act(self):
        stochastic = self.stochastic

        def act(params: Any, engine: CubeEnvState, seat: jax.Array, key: jax.Array) -> jax.Array:
            logits = self._logits(params, engine, seat)
            return jax.random.categorical(key, logits) if stochastic else jnp.argmax(logits)

        return jax.jit(act)


def load_ippo_partner(name: str, env: CubeEnv, root: Path = checkpoint.CUBE_PARTNERS_DIR, **kwargs) -> IppoPartner:
    """The checkpoint ``name`` (ippo_shared | ippo_independent) for ``env.name``'s scenario;
    UnknownAgentError (one line) names the scenarios that have one when this one does not."""
    directory = checkpoint.partner_dir(env.name, name, root)
    if not (directory / checkpoint.MANIFEST_FILE).is_file():
        have = (
            sorted(p.parent.parent.name for p in root.glob(f"*/{name}/{checkpoint.MANIFEST_FILE}"))
            if root.is_dir()
            else []
        )
        raise UnknownAgentError(
            f"no {name} checkpoint for cube scenario {env.name!r}; scenarios with one: {', '.join(have) or 'none'} "
            f"(train one: scripts/train_cube_ippo.py --scenario {env.name} --params {name.removeprefix('ippo_')})"
        )
    return IppoPartner(directory, env, name=name, **kwargs)
