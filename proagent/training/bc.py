"""Behaviour cloning from the human-human trials: ``bc`` partners, a (weak) model of humans.

    proagent train --algo bc --layout cramped_room [--seed 0] [--set epochs=100] [--set max_stay_run=0]

The policy head of the usual ``ActorCritic`` (fast encoder by default) is fitted with
cross-entropy to the human actions of ``proagent.training.human_data`` (both seats, from each
seat's own observation). The value head is left at its initialisation: a BC checkpoint is a policy,
not a critic. All epochs run in one jitted ``lax.scan`` (shuffled minibatches, Adam with weight
decay); the parameters of the epoch with the lowest validation loss are kept (early stopping on the
held-out tail of each trial). Then the policy is scored in self-play with ``self_play_score`` and
saved, with a data-provenance note, to ``partners/<layout>/bc/`` where ``RLPartner`` and the
partner registry find it.

STAY: by default every human STAY is dropped from the samples (``max_stay_run=0``), because most
are UI idling (see ``human_data``), and a clone that keeps them idles through most of an episode.
Validation accuracy is measured on the same filtered distribution (the non-STAY human actions).

Data: one human-human trial of ~1,200 steps per layout. This is a weak human model.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from pydantic import BaseModel, ConfigDict, Field

import envs
from proagent.training import checkpoint
from proagent.training.evaluate import self_play_score
from proagent.training.human_data import HUMAN_DATA, PROVENANCE, Samples, bc_dataset, load_trials
from proagent.training.networks import ActorCritic, NetworkConfig, init_params

Log = Callable[[str], None]


class BCConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    layout: str = "cramped_room"
    seed: int = 0
    epochs: int = Field(100, ge=1)
    batch_size: int = Field(64, ge=1)
    lr: float = 1e-3
    weight_decay: float = 1e-4
    max_stay_run: int | None = Field(0, ge=0, description="STAYs kept per idle run (None: all, 0: none)")
    val_fraction: float = Field(0.2, gt=0.0, lt=1.0, description="held-out tail of each trial")
    network: NetworkConfig = NetworkConfig(encoder="fast")


class EpochMetrics(NamedTuple):
    train_loss: jax.Array
    train_accuracy: jax.Array
    val_loss: jax.Array
    val_accuracy: jax.Array


class BCResult(NamedTuple):
    params: dict
    history: EpochMetrics  # per epoch, numpy
    best_epoch: int
    train: Samples
    val: Samples
    wall_s: float


def _loss_acc(apply, params, obs, actions):
    logits = apply(params, obs)[0]
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, actions).mean()
    return loss, (jnp.argmax(logits, -1) == actions).mean()


def fit(config: BCConfig, train: Samples, val: Samples) -> BCResult:
    """Train on ``train``, keep the parameters of the epoch with the lowest loss on ``val``."""
    start = time.perf_counter()
    network = ActorCritic(config.network)
    apply = network.apply
    key = jax.random.PRNGKey(config.seed)
    k_init, k_run = jax.random.split(key)
    params = init_params(config.network, train.obs.shape[1:], k_init)
    tx = optax.adamw(config.lr, weight_decay=config.weight_decay)
    x, y = jnp.asarray(train.obs, jnp.float32), jnp.asarray(train.actions)
    vx, vy = jnp.asarray(val.obs, jnp.float32), jnp.asarray(val.actions)
    n = len(train)
    batch = min(config.batch_size, n)
    num_batches = n // batch

    def minibatch(carry, idx):
        params, opt_state = carry
        (loss, acc), grads = jax.value_and_grad(lambda p: _loss_acc(apply, p, x[idx], y[idx]), has_aux=True)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), (loss, acc)

    def epoch(carry, key):
        params, opt_state, best_params, best_loss, best_epoch, i = carry
        perm = jax.random.permutation(key, n)[: num_batches * batch].reshape(num_batches, batch)
        (params, opt_state), (loss, acc) = jax.lax.scan(minibatch, (params, opt_state), perm)
        val_loss, val_acc = _loss_acc(apply, params, vx, vy)
        better = val_loss < best_loss
        best_params = jax.tree.map(lambda new, old: jnp.where(better, new, old), params, best_params)
        carry = (
            params,
            opt_state,
            best_params,
            jnp.where(better, val_loss, best_loss),
            jnp.where(better, i, best_epoch),
            i + 1,
        )
        return carry, EpochMetrics(loss.mean(), acc.mean(), val_loss, val_acc)

    @jax.jit
    def run(params, key):
        init = (params, tx.init(params), params, jnp.float32(jnp.inf), jnp.int32(0), jnp.int32(0))
        carry, history = jax.lax.scan(epoch, init, jax.random.split(key, config.epochs))
        return carry[2], carry[4], history

    best, best_epoch, history = run(params, k_run)
    history = jax.tree.map(np.asarray, history)
    return BCResult(jax.device_get(best), history, int(best_epoch), train, val, time.perf_counter() - start)


def train_bc(
    config: BCConfig, out_dir: Path | None, eval_episodes: int = 100, data: Path = HUMAN_DATA, log: Log = print
) -> tuple[checkpoint.Manifest, BCResult]:
    """Load the layout's human trials, fit, score in self-play, save to ``out_dir`` (if given)."""
    commit = checkpoint.git_commit()  # the code that fits, read before fitting (as every trainer does)
    env = envs.make(config.layout)
    train, val = bc_dataset(env, config.max_stay_run, config.val_fraction, data)
    log(f"bc on {config.layout}: {len(train)} train / {len(val)} validation samples (max_stay_run={config.max_stay_run})")
    result = fit(config, train, val)
    h, e = result.history, result.best_epoch
    log(
        f"best epoch {e + 1}/{config.epochs}: train loss {h.train_loss[e]:.3f} acc {h.train_accuracy[e]:.3f}, "
        f"val loss {h.val_loss[e]:.3f} acc {h.val_accuracy[e]:.3f} ({result.wall_s:.1f}s)"
    )
    trials = load_trials(env.layout.name, data)
    manifest = checkpoint.Manifest(
        algorithm="bc",
        layout=env.layout.name,
        seed=config.seed,
        env_steps=0,  # no environment interaction: imitation of recorded play
        train_wall_time_s=round(result.wall_s, 1),
        device=checkpoint.device_description(),
        encoder=config.network.encoder,
        network=config.network,
        obs_shape=tuple(int(d) for d in train.obs.shape[1:]),
        git_commit=commit,
        train_config=config.model_dump(mode="json"),
        data={
            "provenance": PROVENANCE,
            "file": checkpoint.project_path(data),
            "trials": [{"trial_id": t.trial_id, "source_layout": t.source_layout, "steps": len(t.steps), "score": t.score} for t in trials],
            "train_samples": len(train),
            "val_samples": len(val),
            "stay": "all human STAYs dropped" if config.max_stay_run == 0 else f"max_stay_run={config.max_stay_run}",
            "validation": f"last {config.val_fraction:.0%} of each trial by time",
        },
        bc={
            "best_epoch": e + 1,
            "epochs": config.epochs,
            "train_loss": round(float(h.train_loss[e]), 4),
            "train_accuracy": round(float(h.train_accuracy[e]), 4),
            "val_loss": round(float(h.val_loss[e]), 4),
            "val_accuracy": round(float(h.val_accuracy[e]), 4),
            "val_majority_baseline": round(float(np.bincount(val.actions, minlength=6).max() / max(len(val), 1)), 4),
        },
    )
    manifest.self_play = self_play_score(env, config.network, result.params, config.seed + 10_000, eval_episodes)
    log(f"self-play score over {eval_episodes} episodes: {manifest.self_play.mean:.1f} ± {manifest.self_play.se:.1f}")
    if out_dir is not None:
        manifest = checkpoint.save(out_dir, result.params, manifest)
    return manifest, result
