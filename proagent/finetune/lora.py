"""LoRA: the trainable low-rank deltas added to chosen llama projections, and their config.

Each targeted projection ``W`` (``x @ W``, shape ``(n_in, n_out)``, one per layer) gets
``x @ A @ B * alpha / rank`` added, with ``A`` ``(n_in, rank)`` and ``B`` ``(rank, n_out)``. ``B``
starts at zero, so training starts exactly at the base model; ``A`` starts uniform in
``±1/sqrt(n_in)`` (the usual LoRA initialisation). ``alpha / rank`` is also llama.cpp's scale for an
adapter at strength 1, so the exported adapter needs no rescaling.
"""

from __future__ import annotations

from typing import Any, Literal

import jax
import jax.numpy as jnp
from pydantic import BaseModel, ConfigDict, Field, field_validator

from proagent.finetune.llama import PROJECTIONS, LoraParams

__all__ = ["LoraConfig", "LoraTarget", "init_lora"]

LoraTarget = Literal["q", "k", "v", "o", "gate", "up", "down"]


class LoraConfig(BaseModel):
    """What is trained and how fast: recorded in the manifest and the adapter."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(default=8, ge=1, le=256)
    alpha: float = Field(default=16.0, gt=0)
    targets: tuple[LoraTarget, ...] = ("q", "k", "v", "o", "gate", "up", "down")
    learning_rate: float = Field(default=2e-4, gt=0)
    weight_decay: float = Field(default=0.0, ge=0)
    seed: int = 0

    @field_validator("targets")
    @classmethod
    def _distinct_targets(cls, targets: tuple[str, ...]) -> tuple[str, ...]:
        if not targets or len(set(targets)) != len(targets):
            raise ValueError(f"targets must be distinct and not empty, got {targets}")
        return tuple(t for t in PROJECTIONS if t in targets)  # one canonical order

    @property
    def scale(self) -> float:
        """The factor on ``A @ B``; equal to llama.cpp's ``alpha / rank`` at adapter strength 1."""
        return self.alpha / self.rank


def init_lora(config: LoraConfig, params: dict[str, Any], key: jax.Array | None = None) -> LoraParams:
    """Fresh deltas for ``config.targets``, stacked over layers like the base projections; zero effect at start."""
    key = jax.random.PRNGKey(config.seed) if key is None else key
    out: LoraParams = {}
    for target, sub in zip(config.targets, jax.random.split(key, len(config.targets)), strict=True):
        layers, n_in, n_out = params["layers"][target].shape
        bound = 1.0 / float(n_in) ** 0.5
        out[target] = {
            "a": jax.random.uniform(sub, (layers, n_in, config.rank), jnp.float32, -bound, bound),
            "b": jnp.zeros((layers, config.rank, n_out), jnp.float32),
        }
    return out
