"""Other-Play (Hu et al., 2020), as the OvercookedV2 paper applies it (App. C.1.2): self-play in
which each agent sees the world through a symmetry drawn at every reset, so no policy can rely on
an arbitrary convention (such as "onions mean the first recipe"). The symmetry is the world's
(its RL spec's ``symmetries``; Overcooked: the recipe ingredients permuted per agent); a world
without one cannot train OP.

The agent is scored, saved and later played with plain (unpermuted) observations, as in the paper.
"""

from __future__ import annotations

from pathlib import Path

import jax
from pydantic import BaseModel, ConfigDict, Field

from proagent.training import checkpoint
from proagent.training.algorithms.common import (
    AlgoConfig,
    Log,
    Stage,
    open_saves,
    record_history,
    run_stage,
    save_agent,
)
from proagent.training.population import Pairing, learner_params
from proagent.training.resume import ResumePolicy


class OtherPlaySettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    permute: tuple[int, ...] | None = Field(
        None, description="the world's items permuted among themselves (Overcooked: ingredient indices; default: the world's)"
    )


def train_other_play(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: OtherPlaySettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or OtherPlaySettings()
    symmetries = algo.spec.symmetries
    if symmetries is None:
        raise ValueError(f"op: {algo.world} has no symmetry transform (its RL spec's symmetries)")
    saves = open_saves(out_dir, "op", algo, settings, policy)
    env = algo.make_env()
    permuted, items = symmetries.permuted(env, settings.permute)
    config = algo.stage_config(algo.total_steps)
    stage = Stage("op", config, Pairing.self_play(config.num_envs, env.num_agents), permuted, algo.updates_per_call)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    runner, state = run_stage(stage, runner, {"history": []}, record_history, saves, log)
    details = {"permuted": list(items), "settings": settings.model_dump(mode="json")}
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, 0)
    manifest = save_agent(out_dir, algo, "op", params, env, saves.trained(steps), details, state["history"], log)
    saves.clear()
    return manifest
