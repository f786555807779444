"""Tiny configs for the training tests (imported by name: tests/ is not a package)."""

from __future__ import annotations

from proagent.training.config import PPOConfig
from proagent.training.networks import NetworkConfig
from proagent.world.capabilities import Capabilities

TINY = {"num_envs": 4, "num_steps": 32, "update_epochs": 1, "num_minibatches": 2, "shaping_horizon": 256}


def tiny_config(seed: int = 0, layout: str = "cramped_room") -> PPOConfig:
    """2 updates of 4 envs x 32 steps = 256 env steps, fast encoder."""
    return PPOConfig(layout=layout, seed=seed, total_steps=256, network=NetworkConfig(encoder="fast"), **TINY)


def overcooked_partner(directory, layout, name=None, stochastic=True):
    """The one RL partner class, observing an Overcooked ``layout`` (a KitchenLayout) with the rules
    its checkpoint trained under."""
    from proagent.domains.overcooked.rl_spec import partner_env
    from proagent.training.partner import RLPartner

    return RLPartner(directory, lambda m: partner_env(layout, m.dynamics), layout.name, name, stochastic)


class NoRLWorld:
    """A plugged-in world without an RL spec (``--domain training_helpers:NO_RL_WORLD``)."""

    name = "no_rl"
    capabilities = Capabilities()  # rl None


NO_RL_WORLD = NoRLWorld()
