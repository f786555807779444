"""PBT: a population trained by pairing its members, with periodic exploit and explore.

Every ordered pair of members (self-pairs included) plays in the same number of envs, and every
member learns from its own seats. Every ``exploit_every`` calls the member with the lowest mean
score (over all its pairings in that window) takes a copy of the best member's parameters,
optimiser state and hyperparameters (exploit), then multiplies its entropy coefficient and its
learning rate by 0.8 or 1.25 at random (explore). The member with the best mean score over the
last window ships.
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from proagent.training import checkpoint
from proagent.training.algorithms.common import (
    AlgoConfig,
    Log,
    Stage,
    open_saves,
    pair_totals,
    policy_means,
    run_stage,
    save_agent,
    warm_started,
)
from proagent.training.algorithms.pairings import round_robin
from proagent.training.population import HParams, Pairing, PopRunner, learner_params
from proagent.training.resume import ResumePolicy


class PBTSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    population: int = Field(4, ge=2)
    exploit_every: int = Field(8, ge=1, description="jitted calls between exploit/explore steps")
    perturb: tuple[float, float] = (0.8, 1.25)


def exploit_explore(
    runner: PopRunner, fitness: np.ndarray, rng: np.random.Generator, perturb
) -> tuple[PopRunner, dict]:
    """Worst member <- copy of the best, then its entropy coefficient and learning rate perturbed."""
    best, worst = int(np.nanargmax(fitness)), int(np.nanargmin(fitness))
    if best == worst:
        return runner, {}
    copy = lambda x: x.at[worst].set(x[best])
    learners = jax.tree.map(copy, runner.learners)
    ent, lr = (float(rng.choice(perturb)) for _ in range(2))
    hp = runner.hparams
    hparams = HParams(copy(hp.ent_coef).at[worst].multiply(ent), copy(hp.lr_mult).at[worst].multiply(lr))
    event = {"exploit": {"from": best, "to": worst, "ent_coef_x": ent, "lr_x": lr}}
    return runner._replace(learners=learners, hparams=hparams), event


def train_pbt(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: PBTSettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or PBTSettings()
    saves = open_saves(out_dir, "pbt", algo, settings, policy)
    env = algo.make_env()
    config = algo.stage_config(algo.total_steps)
    n = settings.population
    stage = Stage(
        "pbt", config, Pairing(num_learners=n, slots=round_robin(n, config.num_envs)), env, algo.updates_per_call
    )
    runner = warm_started(stage.init(jax.random.PRNGKey(algo.seed)), algo, list(range(n)))
    state = {
        "history": [],
        "window": [np.zeros((n, n)), np.zeros((n, n))],
        "fitness": np.full(n, np.nan),
        "rng": np.random.default_rng(algo.seed),
    }

    def on_call(i: int, runner: PopRunner, metrics, rec: dict, state: dict) -> PopRunner:
        score, count = pair_totals(metrics)
        state["window"] = [state["window"][0] + score, state["window"][1] + count]
        if i % settings.exploit_every == 0:
            fitness = state["fitness"] = policy_means(*state["window"])
            rec["fitness"] = [round(float(x), 2) for x in fitness]
            if i < stage.calls and not np.isnan(fitness).all():
                runner, event = exploit_explore(
                    runner, np.nan_to_num(fitness, nan=-1.0), state["rng"], settings.perturb
                )
                rec.update(event)
            state["window"] = [np.zeros((n, n)), np.zeros((n, n))]
        state["history"].append(rec)
        return runner

    runner, state = run_stage(stage, runner, state, on_call, saves, log)
    fitness = policy_means(*state["window"]) if state["window"][1].sum() else state["fitness"]
    best = int(np.nanargmax(np.nan_to_num(fitness, nan=-1.0)))
    details = {
        "population": n,
        "shipped_member": best,
        "exploits": [rec["exploit"] for rec in state["history"] if "exploit" in rec],
        "final_fitness": [round(float(x), 2) for x in fitness],
        "final_ent_coef": [round(float(x), 5) for x in np.asarray(runner.hparams.ent_coef)],
        "final_lr_mult": [round(float(x), 4) for x in np.asarray(runner.hparams.lr_mult)],
        "settings": settings.model_dump(mode="json"),
    }
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, best)
    manifest = save_agent(out_dir, algo, "pbt", params, env, saves.trained(steps), details, state["history"], log)
    saves.clear()
    return manifest
