"""FCP (Strouse et al., 2021): a best response to a frozen pool of self-play agents of different
seeds and skill levels.

Stage 1 trains ``pool_members`` self-play agents of different seeds side by side (one population
program, each member in its own envs) and keeps each one's parameters at the start, the middle and
the end of training: 3 checkpoints a seed, from random to skilled. The layout's shipped ``sp``
checkpoint joins the pool when it exists (same network). Stage 2 trains the FCP agent against the
pool, uniform over members, half of the pool envs in each seat. Unlike the paper, that best response
starts from the best-scoring seed's final checkpoint and plays itself in a quarter of its envs
(``br_init``, ``br_self_play_share``): from random weights it learned to let its partners cook.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import jax
from pydantic import BaseModel, ConfigDict, Field

from proagent.paths import PARTNERS_DIR, partner_dir
from proagent.training import checkpoint
from proagent.training.algorithms.best_response import train_best_response
from proagent.training.algorithms.common import (
    AlgoConfig,
    Log,
    Stage,
    best_final_learner,
    open_saves,
    run_stage,
    save_agent,
)
from proagent.training.algorithms.pairings import self_play
from proagent.training.population import Pairing, PopMetrics, PopRunner, learner_params
from proagent.training.resume import ResumePolicy, StageSaves
from proagent.world.rl_spec import RLEnv


class FCPSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    pool_members: int = Field(2, ge=1, description="self-play seeds trained for the pool")
    pool_share: float = Field(0.5, gt=0.0, lt=1.0, description="share of total_steps spent on the pool")
    include_shipped_sp: bool = True
    br_self_play_share: float = Field(
        0.25, ge=0.0, lt=1.0, description="share of the best response's envs where it plays itself (against laziness)"
    )
    br_init: Literal["random", "best_member"] = Field(
        "best_member",
        description="the best response starts from random weights or the best-scoring final member (--warm-start sp "
        "wins)",
    )


def shipped_sp(algo: AlgoConfig, root: Path = PARTNERS_DIR) -> tuple[Any, checkpoint.Manifest] | None:
    """The layout's shipped self-play checkpoint and manifest, if it has the same network (else None)."""
    directory = partner_dir(algo.world, algo.layout, "sp", root)
    if not (directory / checkpoint.MANIFEST_FILE).is_file():
        return None
    params, manifest = checkpoint.load(directory)
    return (params, manifest) if manifest.network == algo.network else None


def train_self_play_pool(
    algo: AlgoConfig, env: RLEnv, members: int, steps: int, saves: StageSaves, log: Log
):
    """-> (checkpoints [start, middle, end] of each seed, history) of ``members`` self-play seeds."""
    config = algo.stage_config(steps)
    stage = Stage(
        "pool",
        config,
        Pairing(num_learners=members, slots=self_play(members, config.num_envs)),
        env,
        algo.updates_per_call,
    )
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    middle = max(1, stage.calls // 2)  # a one-call stage's middle is its end
    state = {"history": [], "snapshots": {"start": [learner_params(runner, k) for k in range(members)]}}

    def on_call(i: int, runner: PopRunner, metrics: PopMetrics, rec: dict, state: dict) -> PopRunner:
        state["history"].append(rec)
        if i == middle:
            state["snapshots"]["middle"] = [learner_params(runner, k) for k in range(members)]
        return runner

    runner, state = run_stage(stage, runner, state, on_call, saves, log)
    snapshots = {**state["snapshots"], "end": [learner_params(runner, k) for k in range(members)]}
    pool = [snapshots[when][k] for k in range(members) for when in ("start", "middle", "end")]
    return pool, state["history"]


def train_fcp(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: FCPSettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or FCPSettings()
    saves = open_saves(out_dir, "fcp", algo, settings, policy)
    env = algo.make_env()
    pool_steps = int(algo.total_steps * settings.pool_share)
    pool, history = train_self_play_pool(algo, env, settings.pool_members, pool_steps, saves, log)
    labels = [
        f"seed{algo.seed}+{k}:{when}" for k in range(settings.pool_members) for when in ("start", "middle", "end")
    ]
    sp = shipped_sp(algo) if settings.include_shipped_sp else None
    if sp is not None:
        pool.append(sp[0])
        labels.append("shipped sp")
    best_end = 3 * best_final_learner(history) + 2  # that seed's "end" checkpoint in the pool
    init = pool[best_end] if settings.br_init == "best_member" else None
    params, br_history, details = train_best_response(
        algo, env, pool, algo.total_steps - pool_steps, log, "fcp",
        self_play_share=settings.br_self_play_share, init=init, saves=saves,
    )  # fmt: skip
    details = {
        "pool": labels,
        "br_init_member": labels[best_end] if init is not None else None,
        "settings": settings.model_dump(mode="json"),
        "shipped_sp_sha256": sp[1].params_sha256 if sp is not None else None,  # which `sp` the pool held
        **details,
    }
    steps = sum(r["env_steps"] for r in (history[-1], br_history[-1]))
    manifest = save_agent(out_dir, algo, "fcp", params, env, saves.trained(steps), details, history + br_history, log)
    saves.clear()
    return manifest
