"""Self-play PPO (``proagent train --algo sp``, any world): the Python outer loop around the one PPO
program, ``population.make_population_train`` with ``Pairing.self_play`` (one learner in every
seat of every env), for progress, intermediate checkpoints, resuming and the final evaluation. The
population methods drive the same program from ``algorithms/``; this loop keeps self-play's own
checkpoint, manifest (``train_config`` is the PPOConfig) and log-record formats.

Each jitted call runs ``updates_per_call`` updates, long enough to hide dispatch overhead (it
matters on a GPU) and short enough to report progress every few seconds. ``total_steps`` is rounded
up to whole calls, and the learning-rate schedule is built for the rounded number, so the schedule
ends exactly where training does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

import jax
import numpy as np
from pydantic import BaseModel

from proagent import checkout
from proagent.training import checkpoint
from proagent.training import resume as resume_state
from proagent.training.best import BestSoFar, choose
from proagent.training.checkpoint import InitFrom, Selection
from proagent.training.config import PPOConfig
from proagent.training.diverged import check_losses
from proagent.training.evaluate import self_play_score
from proagent.training.networks import encoder_name
from proagent.training.population import (
    Pairing,
    PopMetrics,
    PopRunner,
    learner_params,
    make_population_train,
    with_learner_params,
)
from proagent.training.worlds import rl_spec
from proagent.world.rl_spec import RLEnv

Log = Callable[[str], None]


class TrainResult(BaseModel):
    out_dir: str | None
    manifest: checkpoint.Manifest
    history: list[dict]


def rounded_config(config: PPOConfig, updates_per_call: int) -> PPOConfig:
    return config.model_copy(update={"total_steps": config.played_steps(updates_per_call)})


def make_self_play(config: PPOConfig, env: RLEnv, updates_per_call: int = 1):
    """-> (init(key) -> PopRunner, jitted update): self-play PPO, the PPO program's population of one."""
    return make_population_train(config, Pairing.self_play(config.num_envs, env.num_agents), env, updates_per_call)


def summarize_call(metrics: PopMetrics, elapsed: float, steps: int) -> dict:
    """One log record from the stacked metrics of one call (means over the episodes that ended)."""
    m = jax.tree.map(np.asarray, metrics)
    eps = m.pair_count.sum()
    mean = lambda x: float(x.sum() / eps) if eps else float("nan")
    return {
        "env_steps": int(m.env_steps[-1]),
        "wall_s": round(elapsed, 2),
        "sps": round(steps / max(elapsed, 1e-9), 1),
        "episodes": int(eps),
        "score": mean(m.pair_score),
        "shaped": mean(m.pair_shaped),
        "shaping_coef": float(m.shaping_coef[-1]),
        "value_loss": float(m.value_loss.mean()),
        "actor_loss": float(m.actor_loss.mean()),
        "entropy": float(m.entropy.mean()),
        "approx_kl": float(m.approx_kl.mean()),
    }


def _format(rec: dict, total: int) -> str:
    return (
        f"{rec['env_steps']:>10,}/{total:,} steps  {rec['sps']:>9,.0f} sps  score {rec['score']:6.1f}  "
        f"shaped {rec['shaped']:6.1f} (x{rec['shaping_coef']:.2f})  ent {rec['entropy']:.3f}  "
        f"vloss {rec['value_loss']:.3f}  kl {rec['approx_kl']:.4f}"
    )


def _manifest(
    config: PPOConfig, algo: str, runner: PopRunner, env: RLEnv, init_from: InitFrom | None
) -> checkpoint.Manifest:
    """The run's manifest as of its start: ``git_commit`` is the code that trains (HEAD when the run
    began, not when a checkpoint is written). Steps and wall time are `_progressed`'s to fill."""
    return checkpoint.Manifest(
        world=config.world,
        algorithm=algo,
        layout=config.layout,
        seed=config.seed,
        env_steps=0,
        train_wall_time_s=0.0,
        device=checkpoint.device_description(),
        encoder=encoder_name(config.network),
        network=config.network,
        obs_shape=tuple(int(d) for d in runner.envs.obs.shape[2:]),
        git_commit=checkout.git_commit(),
        train_config=config.model_dump(mode="json"),
        dynamics=env.record(),
        init_from=init_from,
    )


def _progressed(base: checkpoint.Manifest, config: PPOConfig, runner: PopRunner, wall: float) -> checkpoint.Manifest:
    update = {
        "env_steps": int(runner.update) * config.steps_per_update,
        "train_wall_time_s": round(wall, 1),
        "created": checkpoint.now(),
    }
    return base.model_copy(update=update)


def load_init(directory: Path, config: PPOConfig, env: RLEnv) -> tuple[object, InitFrom]:
    """The params a fine-tuning run starts from, and their record. They must come from the same
    world, layout, network and env settings, and be one network for every seat: anything else
    would not be a continuation of that agent."""
    asked_as = f"--init-from {directory}"
    params, parent = checkpoint.load_for(directory, config.network, asked_as, "a checkpoint folder is needed")
    if parent.world != config.world:
        raise ValueError(f"{asked_as}: trained in {parent.world}, not {config.world}")
    if parent.layout != config.layout:
        raise ValueError(f"{asked_as}: trained on {parent.layout}, not {config.layout}")
    if parent.dynamics != env.record():
        raise ValueError(f"{asked_as}: trained under other dynamics ({parent.dynamics})")
    if parent.seat_groups:
        raise ValueError(f"{asked_as}: has one network per seat; self-play fine-tunes one network")
    record = InitFrom(
        path=checkpoint.project_path(directory.resolve()),
        algorithm=parent.algorithm,
        seed=parent.seed,
        env_steps=parent.env_steps,
        params_sha256=parent.params_sha256,
        self_play=parent.self_play,
    )
    return params, record


def _select(
    config: PPOConfig,
    env: RLEnv,
    best: BestSoFar,
    final_params,
    manifest: checkpoint.Manifest,
    eval_episodes: int,
    log: Log,
) -> tuple[object, checkpoint.Manifest]:
    """Score the best window's params with the final params' evaluation (same seed and episodes) and
    keep the higher; the manifest says which, with both scores."""
    assert manifest.self_play is not None
    if best.env_steps >= manifest.env_steps:  # the best window ended with the run: the same params
        best_score = manifest.self_play
    else:
        best_score = self_play_score(env, config.network, best.params, config.seed + 10_000, eval_episodes)
    chosen = choose(manifest.self_play, best_score)
    selection = Selection(
        window=best.window,
        trained_env_steps=manifest.env_steps,
        best_env_steps=best.env_steps,
        best_training_score=round(best.score, 3),
        final=manifest.self_play,
        best=best_score,
        chosen=chosen,
    )
    log(
        f"best window (training score {best.score:.1f} at {best.env_steps:,} steps) scores "
        f"{best_score.text()}: shipping the {chosen} params"
    )
    if chosen == "final":
        return final_params, manifest.model_copy(update={"selection": selection})
    update = {"selection": selection, "self_play": best_score, "env_steps": best.env_steps}
    return best.params, manifest.model_copy(update=update)


class _Start(NamedTuple):
    runner: PopRunner
    progress: resume_state.Progress
    best: BestSoFar | None
    lineage: InitFrom | None


def _start(
    config: PPOConfig,
    env: RLEnv,
    runner: PopRunner,
    out_dir: Path | None,
    resume: bool,
    keep_best: int,
    init_from: Path | None,
    log: Log,
) -> _Start:
    """Where the loop begins: fresh (or fine-tuning ``init_from``), or an interrupted run resumed
    with its kept best window. The fine-tune's parent is part of the run's identity, so a resume
    with another ``--init-from`` (or none) is refused like one with another config."""
    lineage = None
    if init_from is not None:
        start_params, lineage = load_init(init_from, config, env)
        runner = with_learner_params(runner, [0], start_params)
        log(f"starting from {lineage.path} ({lineage.algorithm}, {lineage.env_steps:,} steps)")
    identity = config.model_dump(mode="json")
    if lineage is not None:
        identity["init_from"] = lineage.params_sha256
    progress = resume_state.Progress(config=identity, calls_done=0, wall_s=0.0, history=[])
    best = BestSoFar(keep_best) if keep_best else None
    restored = resume_state.load(out_dir, runner, identity) if resume and out_dir is not None else None
    if restored is None:
        return _Start(runner, progress, best, lineage)
    log(f"resuming from {out_dir / resume_state.RESUME_DIR}: {restored.progress.calls_done} calls done")
    if best is not None:
        best.replay(restored.progress.history)
        if (kept := restored.extras.get("best")) is not None:
            best.restore(kept)
    return _Start(restored.runner, restored.progress, best, lineage)


def train(
    config: PPOConfig,
    out_dir: Path | None,
    algo: str = "sp",
    updates_per_call: int = 10,
    eval_episodes: int = 100,
    checkpoint_every_s: float = 120.0,
    log: Log = print,
    resume: bool = False,
    keep_best: int = 0,
    init_from: Path | None = None,
) -> TrainResult:
    """Train, checkpointing to ``out_dir`` every ``checkpoint_every_s`` and at the end (with the score).

    With ``resume``, an interrupted run in ``out_dir`` (see `proagent.training.resume`) continues
    from its last checkpoint instead of starting over. ``keep_best`` > 0 keeps the params of the
    best window of that many calls and ships them if they evaluate higher (`proagent.training.best`).
    ``init_from`` (a checkpoint folder) fine-tunes: the learner starts from those params with a fresh
    optimizer and learning-rate schedule, and the manifest records where they came from.
    """
    if out_dir is not None and not resume:
        resume_state.refuse_to_overwrite(out_dir / resume_state.RESUME_DIR)
    config = rounded_config(config, updates_per_call)
    env = rl_spec(config.world).make_env(config.layout)
    init, update = make_self_play(config, env, updates_per_call)
    runner, progress, best, lineage = _start(
        config, env, init(jax.random.PRNGKey(config.seed)), out_dir, resume, keep_best, init_from, log
    )
    base = _manifest(config, algo, runner, env, lineage)
    start = time.perf_counter() - progress.wall_s
    last_ckpt = time.perf_counter()
    for call in range(progress.calls_done, config.num_updates // updates_per_call):
        t0 = time.perf_counter()
        runner, metrics = update(runner)
        jax.block_until_ready(metrics)
        rec = summarize_call(metrics, time.perf_counter() - t0, updates_per_call * config.steps_per_update)
        log(_format(rec, config.total_steps))
        check_losses(rec, out_dir, (checkpoint.MANIFEST_FILE, resume_state.RESUME_DIR))  # before saving anything
        progress.history.append(rec)
        if best is not None:
            best.observe(rec, partial(learner_params, runner, 0))
        if out_dir is not None and time.perf_counter() - last_ckpt > checkpoint_every_s:
            wall = time.perf_counter() - start
            checkpoint.save(out_dir, learner_params(runner, 0), _progressed(base, config, runner, wall))
            progress.calls_done, progress.wall_s = call + 1, wall
            kept = best.to_bytes() if best is not None else None
            resume_state.save(out_dir, runner, progress, {"best": kept} if kept is not None else None)
            last_ckpt = time.perf_counter()
    wall = time.perf_counter() - start
    params = learner_params(runner, 0)
    manifest = _progressed(base, config, runner, wall)
    manifest.self_play = self_play_score(env, config.network, params, config.seed + 10_000, eval_episodes)
    log(f"self-play score over {eval_episodes} episodes: {manifest.self_play.text()}")
    if best is not None and best.params is not None:
        params, manifest = _select(config, env, best, params, manifest, eval_episodes, log)
    if out_dir is not None:
        manifest = checkpoint.save(out_dir, params, manifest, progress.history)
        resume_state.clear(out_dir)
    return TrainResult(out_dir=str(out_dir) if out_dir else None, manifest=manifest, history=progress.history)
