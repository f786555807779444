"""Configs of a training run, as pydantic models so a manifest can store and re-validate them.

The OvercookedV2 paper's self-play recipe for the classic layouts (App. D.1, Table 3) is 64 envs x
256 steps, 4 epochs x 16 minibatches, lr 4e-4 with 5% warmup then cosine decay, entropy 0.04,
shaped reward annealed to 0 over 5M env steps, 10M env steps in all (``PAPER_RECIPE``).

Our defaults trade it for sample efficiency, because partners must also be trainable on a 2-core
CPU in minutes: 4x more, smaller updates (32 envs x 128 steps, 4 minibatches) and lr 5e-4. On
cramped_room at 2M steps this (with entropy 0.01) reached a self-play score of 206 against 144 for
the paper recipe (same seed, same encoder). The entropy bonus stays at the paper's 0.04: with 0.01
the policy's entropy collapsed on counter_circuit before any soup was delivered (score 0 after 4.5M
steps, farming shaped reward), while 0.04 scored 179 in 5M steps, and it also trained
forced_coordination faster (200 at 2.5M steps against 158 at 3M steps). Each shipped partner's
manifest records the exact config it was trained with.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from proagent.limits import MAX_HORIZON, MAX_SEED, MAX_TRAIN_STEPS
from proagent.training.networks import Network, NetworkConfig

MAX_NUM_ENVS = 65_536  # as --num-envs bounds it
# Compiled training and evaluation programs kept per builder (the lru bound of each ``make_*``): enough for
# a population's or a sweep's distinct programs, few enough that a long test session does not hold them all.
PROGRAMS_KEPT = 16


class PPOHyperparameters(BaseModel):
    """The PPO knobs (defaults: the recipe above; a world's RL spec overrides some, e.g. CUBE's)."""

    # allow_inf_nan: a NaN lr trains NaN parameters to the end and ships them; each knob has its range
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    seed: int = Field(0, ge=0, le=MAX_SEED)
    total_steps: int = Field(
        10_000_000, ge=1, le=MAX_TRAIN_STEPS, description="environment steps (every agent acts in each)"
    )
    num_envs: int = Field(32, ge=1, le=MAX_NUM_ENVS)
    num_steps: int = Field(128, ge=1, le=MAX_HORIZON, description="rollout length per update")
    update_epochs: int = Field(4, ge=1, le=1_000)
    num_minibatches: int = Field(4, ge=1, le=MAX_NUM_ENVS)
    gamma: float = Field(0.99, gt=0.0, le=1.0)
    gae_lambda: float = Field(0.95, ge=0.0, le=1.0)
    clip_eps: float = Field(0.2, gt=0.0, le=10.0)
    ent_coef: float = Field(0.04, ge=0.0, le=100.0)
    vf_coef: float = Field(0.5, ge=0.0, le=100.0)
    max_grad_norm: float = Field(0.5, gt=0.0, le=1e6)
    lr: float = Field(5e-4, ge=0.0, le=1.0)  # 0 freezes the learner
    lr_warmup: float = Field(0.05, ge=0.0, le=1.0, description="fraction of updates spent warming up")
    anneal_lr: bool = Field(True, description="cosine decay after the warmup; else constant lr")

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        """Whole updates only; ``total_steps`` is rounded up to a multiple of ``steps_per_update``."""
        return max(1, -(-self.total_steps // self.steps_per_update))

    def played_steps(self, updates_per_call: int) -> int:
        """The env steps a run plays: whole jitted calls of ``updates_per_call`` whole updates, so
        ``total_steps`` rounded up (what the trainers run; `rounding_note` says so to the user)."""
        calls = -(-self.num_updates // updates_per_call)
        return calls * updates_per_call * self.steps_per_update

    def rounding_note(self, updates_per_call: int) -> str | None:
        """One line when ``--steps`` is rounded up, naming the unit it is rounded to; None if not."""
        played = self.played_steps(updates_per_call)
        if played == self.total_steps:
            return None
        unit = updates_per_call * self.steps_per_update
        return (
            f"--steps {self.total_steps:,} rounded up to {played:,}: training runs whole calls of {updates_per_call} "
            f"update(s) x {self.num_envs} envs x {self.num_steps} steps ({unit:,} env steps a call)"
        )


class PPOConfig(PPOHyperparameters):
    """One PPO program's run: its world and layout, the PPO knobs, the shaping and the network."""

    world: str = Field("overcooked", description="the world whose RL spec builds the env")
    layout: str = Field(description="the layout trained on: required, since no layout is every world's")
    shaping_horizon: int = Field(
        5_000_000, ge=0, le=MAX_TRAIN_STEPS, description="env steps over which shaping goes 1 -> 0"
    )
    network: Network = NetworkConfig()


PAPER_RECIPE: dict = {"num_envs": 64, "num_steps": 256, "num_minibatches": 16, "ent_coef": 0.04, "lr": 4e-4}
