"""Configs of a training run, as pydantic models so a manifest can store and re-validate them.

Defaults are the OvercookedV2 paper's self-play recipe for the classic layouts (App. D.1, Table 3):
64 envs x 256 steps, 4 epochs x 16 minibatches, lr 4e-4 with 5% warmup then cosine decay,
entropy 0.04, shaped reward annealed to 0 over 5M env steps, 10M env steps in all.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from proagent.training.networks import NetworkConfig

Algo = Literal["sp"]


class PPOConfig(BaseModel):
    """Independent PPO with one set of parameters shared by both seats (self-play)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layout: str = "cramped_room"
    seed: int = 0
    total_steps: int = Field(10_000_000, ge=1, description="environment steps (both agents act in each)")
    num_envs: int = Field(64, ge=1)
    num_steps: int = Field(256, ge=1, description="rollout length per update")
    update_epochs: int = Field(4, ge=1)
    num_minibatches: int = Field(16, ge=1)
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.04
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    lr: float = 4e-4
    lr_warmup: float = Field(0.05, ge=0.0, le=1.0, description="fraction of updates spent warming up")
    anneal_lr: bool = Field(True, description="cosine decay after the warmup; else constant lr")
    shaping_horizon: int = Field(5_000_000, ge=0, description="env steps over which shaping goes 1 -> 0")
    network: NetworkConfig = NetworkConfig()

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        """Whole updates only; ``total_steps`` is rounded up to a multiple of ``steps_per_update``."""
        return max(1, -(-self.total_steps // self.steps_per_update))
