"""What every population algorithm's outer loop shares: a stage of jitted calls, its log records,
pair statistics, and saving the shipped agent with its manifest.

A *stage* is one ``make_population_train`` program (one pairing, one PPO config) run for a number
of jitted calls; FCP and MEP have two stages (population, then best response), PBT and COLE one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import jax
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent import checkout
from proagent.paths import partner_dir
from proagent.training import checkpoint
from proagent.training.config import PPOConfig
from proagent.training.diverged import check_losses
from proagent.training.evaluate import self_play_score
from proagent.training.networks import Network, NetworkConfig, encoder_name
from proagent.training.population import Pairing, PopMetrics, PopRunner, make_population_train, with_learner_params
from proagent.training.resume import RESUME_DIR, ResumePolicy, StageSaves, TrainedFor
from proagent.training.worlds import rl_spec, with_world_layout
from proagent.world.rl_spec import EventIndicators, RLEnv, RLSpec

Log = Callable[[str], None]
OnCall = Callable[[int, PopRunner, PopMetrics, dict, dict], PopRunner]  # (call, runner, metrics, record, state)


class AlgoConfig(BaseModel):
    """A population algorithm's run: the shared PPO settings and the whole env-step budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    world: str = Field("overcooked", description="the world whose RL spec builds the env")
    layout: str = Field(description="the layout trained on (none given: the world's default, as `proagent train`)")
    seed: int = 0
    total_steps: int = Field(6_000_000, ge=1, description="env steps of all stages together")
    network: Network = NetworkConfig()
    ppo: dict[str, Any] = Field(default_factory=dict, description="PPOConfig overrides (e.g. num_envs)")
    updates_per_call: int = Field(10, ge=1)
    eval_episodes: int = Field(100, ge=1)
    horizon: int | None = Field(None, ge=1, description="episode length in training and evaluation (None: the world's)")
    warm_start: Literal["none", "sp"] = Field(
        "none", description="sp: the agent that ships starts from the layout's shipped self-play checkpoint"
    )

    @model_validator(mode="before")
    @classmethod
    def _world_layout(cls, data: Any) -> Any:
        """No layout is every world's: a config that names none trains on its world's default."""
        return with_world_layout(data)

    @property
    def spec(self) -> RLSpec:
        return rl_spec(self.world)

    def make_env(self) -> RLEnv:
        return self.spec.make_env(self.layout, self.horizon)

    def stage_config(self, steps: int) -> PPOConfig:
        """PPO config of one stage: shaping annealed to 0 over the stage. (Annealing over half of a
        small stage left counter_circuit members that never delivered a soup.)"""
        fields = {"shaping_horizon": steps, **self.ppo}
        return PPOConfig(
            world=self.world, layout=self.layout, seed=self.seed, total_steps=steps, network=self.network, **fields
        )


@dataclass
class Stage:
    """One population program and its bookkeeping; ``calls`` is the number of jitted calls."""

    name: str
    config: PPOConfig
    pairing: Pairing
    env: RLEnv
    updates_per_call: int
    events: EventIndicators | None = None  # the world's style events, for a pairing with style weights
    init: Callable = field(init=False)
    update: Callable = field(init=False)

    def __post_init__(self) -> None:
        self.config = self.config.model_copy(update={"total_steps": self.config.played_steps(self.updates_per_call)})
        self.init, self.update = make_population_train(
            self.config, self.pairing, self.env, self.updates_per_call, self.events
        )

    @property
    def calls(self) -> int:
        return self.config.num_updates // self.updates_per_call

    def call(self, runner: PopRunner, log: Log) -> tuple[PopRunner, PopMetrics, dict]:
        """One jitted call (``updates_per_call`` updates); the outer loop may edit the returned
        runner (pool weights, exploit) before passing it to the next call."""
        t0 = time.perf_counter()
        runner, metrics = self.update(runner)
        jax.block_until_ready(metrics)
        rec = call_record(
            self.name, metrics, time.perf_counter() - t0, self.updates_per_call * self.config.steps_per_update
        )
        log(format_record(rec, self.config.total_steps))
        return runner, metrics, rec


def open_saves(
    out_dir: Path | None, algorithm: str, algo: AlgoConfig, settings: BaseModel, policy: ResumePolicy | None
) -> StageSaves:
    """The run's resume state; only a run with the same algorithm, config and settings may continue it."""
    identity = {
        "algorithm": algorithm,
        "config": algo.model_dump(mode="json"),
        "settings": settings.model_dump(mode="json"),
    }
    return StageSaves(out_dir, identity, policy or ResumePolicy(), commit=checkout.git_commit())


def run_stage(
    stage: Stage, runner: PopRunner, state: dict, on_call: OnCall, saves: StageSaves, log: Log
) -> tuple[PopRunner, dict]:
    """Run ``stage`` to its end; ``on_call`` records each call in ``state`` (the outer loop's own
    variables) and may edit the runner. A resumed stage continues after its last saved call, with
    the runner and state it had then; a finished one returns at once."""
    done = 0
    restored = saves.restore(stage.name, runner)
    if restored is not None:
        runner, state, done = restored
        log(f"resuming stage {stage.name}: {done}/{stage.calls} calls done")
    for i in range(done + 1, stage.calls + 1):
        runner, metrics, rec = stage.call(runner, log)
        out_dir = saves.directory.parent if saves.directory is not None else None
        check_losses(rec, out_dir, (RESUME_DIR, checkpoint.MANIFEST_FILE))  # before this call saves anything
        runner = on_call(i, runner, metrics, rec, state)
        saves.after_call(stage.name, runner, state, i, final=i == stage.calls)
    return runner, state


def record_history(i: int, runner: PopRunner, metrics: PopMetrics, rec: dict, state: dict) -> PopRunner:
    """The plain ``on_call``: keep the call's record."""
    state["history"].append(rec)
    return runner


def warm_started(runner: PopRunner, algo: AlgoConfig, learners: list[int]) -> PopRunner:
    """``learners`` start from the layout's shipped SP parameters when ``algo.warm_start == "sp"``
    (a CPU-budget shortcut recorded in every manifest); Adam's moments start at zero either way."""
    if algo.warm_start == "none":
        return runner
    params, _ = shipped_partner(algo, "sp", "--warm-start sp")
    return with_learner_params(runner, learners, params)


def shipped_partner(algo: AlgoConfig, name: str, needed_by: str) -> tuple[Any, checkpoint.Manifest]:
    """The layout's shipped checkpoint ``name`` for ``algo.network``; a ValueError that names what
    ``needed_by`` it when the checkpoint is missing or has another network."""
    directory = partner_dir(algo.world, algo.layout, name)
    shown = checkpoint.project_path(directory)
    hint = (
        f"`proagent partners` lists the shipped ones; train it with proagent train --domain {algo.world} "
        f"--layout {algo.layout} --algo <algorithm> --ship {name}"
    )
    return checkpoint.load_for(directory, algo.network, f"{needed_by} needs {shown}", hint)


def best_final_learner(history: list[dict]) -> int:
    """Index of the learner with the highest score in a stage's last record (no episode counts as 0)."""
    final = history[-1]["learner_scores"]
    return max(range(len(final)), key=lambda k: final[k] or 0.0)


def pair_totals(metrics: PopMetrics) -> tuple[np.ndarray, np.ndarray]:
    """(score sums, episode counts) per (seat-0 policy, seat-1 policy), summed over a call's updates."""
    return np.asarray(metrics.pair_score).sum(0), np.asarray(metrics.pair_count).sum(0)


def policy_means(score: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Mean score of every episode a policy took part in (either seat); nan if none."""
    total = score.sum(0) + score.sum(1) - np.diag(score)
    n = count.sum(0) + count.sum(1) - np.diag(count)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def call_record(stage: str, metrics: PopMetrics, elapsed: float, steps: int) -> dict:
    score, count = pair_totals(metrics)
    k = np.asarray(metrics.value_loss).shape[-1]
    means = policy_means(score, count)[:k]
    return {
        "stage": stage,
        "env_steps": int(np.asarray(metrics.env_steps)[-1]),
        "wall_s": round(elapsed, 2),
        "sps": round(steps / max(elapsed, 1e-9), 1),
        "episodes": int(count.sum()),
        "score": float(score.sum() / count.sum()) if count.sum() else float("nan"),
        "learner_scores": [None if math.isnan(x) else round(float(x), 2) for x in means],
        "shaping_coef": float(np.asarray(metrics.shaping_coef)[-1]),
        "value_loss": float(np.asarray(metrics.value_loss).mean()),
        "entropy": float(np.asarray(metrics.entropy).mean()),
        "approx_kl": float(np.asarray(metrics.approx_kl).mean()),
    }


def format_record(rec: dict, total: int) -> str:
    learners = " ".join("-" if s is None else f"{s:.0f}" for s in rec["learner_scores"])
    return (
        f"[{rec['stage']}] {rec['env_steps']:>10,}/{total:,} steps  {rec['sps']:>8,.0f} sps  "
        f"score {rec['score']:6.1f}  learners [{learners}]  shaping x{rec['shaping_coef']:.2f}  "
        f"ent {rec['entropy']:.3f}  kl {rec['approx_kl']:.4f}"
    )


def save_agent(
    out_dir: Path | None,
    algo: AlgoConfig,
    algorithm: str,
    params: Any,
    env: RLEnv,
    trained: TrainedFor,
    details: dict,
    history: list[dict],
    log: Log,
    seat_groups: int = 0,
) -> checkpoint.Manifest:
    """Score the shipped agent in self-play and write params + manifest + history to ``out_dir``;
    ``seat_groups`` > 0: ``params`` are stacked per seat (see ``checkpoint``)."""
    obs_shape = tuple(int(d) for d in env.observe(env.reset(jax.random.PRNGKey(0))).shape[1:])
    manifest = checkpoint.Manifest(
        world=algo.world,
        algorithm=algorithm,
        layout=algo.layout,
        seed=algo.seed,
        env_steps=trained.env_steps,
        train_wall_time_s=round(trained.wall_s, 1),
        device=checkpoint.device_description(),
        encoder=encoder_name(algo.network),
        network=algo.network,
        obs_shape=obs_shape,
        seat_groups=seat_groups,
        git_commit=trained.commit,
        train_config=algo.model_dump(mode="json"),
        dynamics=env.record(),
        details=details,
    )
    manifest.self_play = self_play_score(
        env, algo.network, params, algo.seed + 10_000, algo.eval_episodes, seat_groups
    )
    log(
        f"{algorithm} self-play over {algo.eval_episodes} episodes: {manifest.self_play.text()}"
    )
    if out_dir is not None:
        manifest = checkpoint.save(out_dir, params, manifest, history)
    return manifest
