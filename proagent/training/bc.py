"""Behaviour cloning from recorded play: ``bc`` partners, a (weak) model of humans.

    proagent train --algo bc --layout cramped_room [--seed 0] [--set epochs=100] [--set max_stay_run=0]

Where the world's RL spec has ``demonstrations`` (Overcooked: the human-human trials of
``proagent.domains.overcooked.human_data``), the policy head of the world's network (Overcooked:
the fast encoder by default) is fitted with cross-entropy to the recorded actions (every seat,
from each seat's own observation). The value head is left at its initialisation: a BC checkpoint is a policy,
not a critic. All epochs run in one jitted ``lax.scan`` (shuffled minibatches, Adam with weight
decay); the parameters of the epoch with the lowest validation loss are kept (early stopping on the
held-out tail of each trial). Then the policy is scored in self-play with ``self_play_score`` and
saved, with the data's provenance, to ``--out`` (shipped: ``partners/<world>/<layout>/bc/``, where
``RLPartner`` and the partner registry find it).

STAY: by default every idle action is dropped from the samples (``max_stay_run=0``), because most
human STAYs are UI idling (see ``human_data``), and a clone that keeps them idles through most of
an episode. Validation accuracy is measured on the same filtered distribution.

Overcooked's data: one human-human trial of ~1,200 steps per layout. This is a weak human model.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent import checkout
from proagent.training import checkpoint
from proagent.training.evaluate import self_play_score
from proagent.training.networks import Network, NetworkConfig, encoder_name, init_params, policy_fns
from proagent.training.worlds import rl_spec, with_world_layout
from proagent.world.rl_spec import Demonstrations

Log = Callable[[str], None]


class BCConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    world: str = "overcooked"
    layout: str = Field(description="the layout whose recorded play is cloned (none given: the world's default)")
    seed: int = 0
    epochs: int = Field(100, ge=1)
    batch_size: int = Field(64, ge=1)
    lr: float = Field(1e-3, gt=0.0, le=1.0)
    weight_decay: float = Field(1e-4, ge=0.0, le=100.0)
    max_stay_run: int | None = Field(0, ge=0, description="STAYs kept per idle run (None: all, 0: none)")
    val_fraction: float = Field(0.2, gt=0.0, lt=1.0, description="held-out tail of each trial")
    network: Network = NetworkConfig(encoder="fast")

    @model_validator(mode="before")
    @classmethod
    def _world_layout(cls, data: Any) -> Any:
        """No layout is every world's: a config that names none clones its world's default's play."""
        return with_world_layout(data)


class EpochMetrics(NamedTuple):
    train_loss: jax.Array
    train_accuracy: jax.Array
    val_loss: jax.Array
    val_accuracy: jax.Array


class BCResult(NamedTuple):
    params: dict
    history: EpochMetrics  # per epoch, numpy
    best_epoch: int
    train: Demonstrations
    val: Demonstrations
    wall_s: float


def _loss_acc(apply, params, obs, actions):
    logits = apply(params, obs)[0]
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, actions).mean()
    return loss, (jnp.argmax(logits, -1) == actions).mean()


def fit(config: BCConfig, train: Demonstrations, val: Demonstrations, num_actions: int = 6) -> BCResult:
    """Train on ``train``, keep the parameters of the epoch with the lowest loss on ``val``."""
    start = time.perf_counter()
    apply = policy_fns(config.network, num_actions).replay  # feedforward: the plain apply
    key = jax.random.PRNGKey(config.seed)
    k_init, k_run = jax.random.split(key)
    params = init_params(config.network, train.obs.shape[1:], k_init, num_actions)
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
    config: BCConfig, out_dir: Path | None, eval_episodes: int = 100, log: Log = print
) -> tuple[checkpoint.Manifest, BCResult]:
    """Load the layout's recorded play, fit, score in self-play, save to ``out_dir`` (if given)."""
    if config.network.recurrent:
        raise ValueError("bc fits a feedforward network (network.memory=0)")
    commit = checkout.git_commit()  # the code that fits, read before fitting (as every trainer does)
    spec = rl_spec(config.world)
    if spec.demonstrations is None:
        raise ValueError(f"bc: {config.world} has no recorded play to clone (its RL spec's demonstrations)")
    env = spec.make_env(config.layout)
    train, val = spec.demonstrations.split(env, config.layout, config.max_stay_run, config.val_fraction)
    log(
        f"bc on {config.layout}: {len(train)} train / {len(val)} validation samples "
        f"(max_stay_run={config.max_stay_run})"
    )
    result = fit(config, train, val, env.num_actions)
    h, e = result.history, result.best_epoch
    log(
        f"best epoch {e + 1}/{config.epochs}: train loss {h.train_loss[e]:.3f} acc {h.train_accuracy[e]:.3f}, "
        f"val loss {h.val_loss[e]:.3f} acc {h.val_accuracy[e]:.3f} ({result.wall_s:.1f}s)"
    )
    manifest = checkpoint.Manifest(
        world=config.world,
        algorithm="bc",
        layout=config.layout,
        seed=config.seed,
        env_steps=0,  # no environment interaction: imitation of recorded play
        train_wall_time_s=round(result.wall_s, 1),
        device=checkpoint.device_description(),
        encoder=encoder_name(config.network),
        network=config.network,
        obs_shape=tuple(int(d) for d in train.obs.shape[1:]),
        git_commit=commit,
        train_config=config.model_dump(mode="json"),
        dynamics=env.record(),
        data={
            **spec.demonstrations.provenance(config.layout),
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
            "val_majority_baseline": round(
                float(np.bincount(val.actions, minlength=env.num_actions).max() / max(len(val), 1)), 4
            ),
        },
    )
    manifest.self_play = self_play_score(env, config.network, result.params, config.seed + 10_000, eval_episodes)
    log(f"self-play score over {eval_episodes} episodes: {manifest.self_play.text()}")
    if out_dir is not None:
        manifest = checkpoint.save(out_dir, result.params, manifest)
    return manifest, result
