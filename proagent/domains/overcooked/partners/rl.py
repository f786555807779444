"""RL partners: trained policies loaded from ``partners/<layout>/<algo>/`` (shipped in the repo).

An :class:`RLPartner` observes the engine state from its own seat (``env.observe(state)[seat]``, the
observation it was trained on) and samples an action from its policy, stochastically by default,
as during training: argmax play of a self-play PPO policy tends to get stuck in loops. Its random
stream is seeded by ``reset(seat, seed)``, so an episode replays exactly.

``act_batch(obs, key)`` serves vmapped evaluation (cross-play tables): a batch of observations in,
a batch of actions out, one jitted call. Loading needs only flax/jax/numpy.

A partner observes with the dynamics it trained in (its manifest's ``dynamics``: a V2 partner's
view radius), and a recurrent partner (the V2 network) carries its memory from step to step,
cleared by ``reset``.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from envs import Action, Dynamics, EnvState, KitchenLayout, KitchenState, OvercookedEnv
from proagent.contract import ImmediateAgent, Observation
from proagent.domains.overcooked.partners.base import UnknownPartnerError
from proagent.paths import PARTNERS_DIR
from proagent.training import checkpoint
from proagent.training.networks import Hidden, PolicyFns, policy_fns


class RLPartner(ImmediateAgent):
    """A checkpointed policy playing one seat of ``layout``."""

    def __init__(
        self, directory: Path, layout: KitchenLayout, name: str | None = None, stochastic: bool = True
    ) -> None:
        self.params, self.manifest = checkpoint.load(directory)
        self.name = name or self.manifest.algorithm
        self.directory = directory
        self.stochastic = stochastic
        self.env = OvercookedEnv(layout, Dynamics(**self.manifest.dynamics))
        self._check_layout(layout)
        self.seat = 0
        self._key = jax.random.PRNGKey(0)
        self._hidden: Hidden = self._network.initial_hidden(1)

    def provenance(self) -> dict[str, str]:
        return {"params_sha256": self.manifest.params_sha256}

    def _check_layout(self, layout: KitchenLayout) -> None:
        view = self.env.dynamics.agent_view_size
        shape = (layout.height, layout.width) if view is None else (2 * view + 1, 2 * view + 1)
        if tuple(self.manifest.obs_shape[:2]) != shape:
            raise ValueError(
                f"partner {self.name!r} was trained on {self.manifest.layout} (grid {self.manifest.obs_shape[:2]}), "
                f"not on {layout.name} (grid {shape}); train one with `proagent train --layout {layout.name}`"
            )

    # ---- Partner protocol ----

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat
        self._key = jax.random.PRNGKey(seed)
        self._hidden = self._network.initial_hidden(1)

    def policy(self, kitchen: KitchenState, state: EnvState) -> Action:
        self._key, key = jax.random.split(self._key)
        self._hidden, action = self._act_one(self.params, self._hidden, state, self.seat, key)
        return Action(int(action))

    # ---- batched use ----

    def logits(self, obs: jax.Array) -> jax.Array:
        """obs (B, H, W, C) -> logits (B, 6) of a feedforward partner; pure, for other jitted code."""
        self._refuse_recurrent("logits")
        return self._network.step(self.params, None, obs)[1]

    def act_batch(self, obs: jax.Array, key: jax.Array) -> jax.Array:
        """obs (B, H, W, C) engine observations (each from the acting seat) -> actions (B,) int32
        (feedforward partners; a recurrent one needs its memory: ``training.evaluate``)."""
        self._refuse_recurrent("act_batch")
        return self._act_batch(self.params, obs, key)

    def _refuse_recurrent(self, what: str) -> None:
        if self.manifest.network.recurrent:
            raise ValueError(f"partner {self.name!r} is recurrent: {what} has no memory; score it with training.evaluate")

    # ---- jitted internals ----

    @cached_property
    def _network(self) -> PolicyFns:
        return policy_fns(self.manifest.network)

    def _pick(self, logits: jax.Array, key: jax.Array) -> jax.Array:
        return jax.random.categorical(key, logits) if self.stochastic else jnp.argmax(logits, -1)

    @cached_property
    def _act_one(self):
        def act(params: Any, hidden: Hidden, state: EnvState, seat: jax.Array, key: jax.Array):
            obs = self.env.observe(state)[seat]
            hidden, logits, _ = self._network.step(params, hidden, obs[None])
            return hidden, self._pick(logits[0], key)

        return jax.jit(act)

    @cached_property
    def _act_batch(self):
        return jax.jit(
            lambda params, obs, key: self._pick(self._network.step(params, None, obs)[1], key).astype(jnp.int32)
        )


def available_rl_partners(layout_name: str, root: Path = PARTNERS_DIR) -> list[str]:
    """Names (algorithm folders with a manifest) trained for ``layout_name``, e.g. ['sp']."""
    folder = root / layout_name
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / checkpoint.MANIFEST_FILE).is_file())


def load_rl_partner(name: str, layout: KitchenLayout, root: Path = PARTNERS_DIR, stochastic: bool = True) -> RLPartner:
    """The partner ``name`` (e.g. 'sp') trained for ``layout``; UnknownPartnerError lists the ones present."""
    directory = root / layout.name / name
    if not (directory / checkpoint.MANIFEST_FILE).is_file():
        have = available_rl_partners(layout.name, root)
        raise UnknownPartnerError(
            f"no RL partner {name!r} for layout {layout.name!r}; available: {have or 'none'} "
            f"(train one: proagent train --algo {name} --layout {layout.name})"
        )
    return RLPartner(directory, layout, name=name, stochastic=stochastic)
