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
from proagent.world.rl_spec import RLEnv


class OtherPlaySettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    permute: tuple[int, ...] | None = Field(
        None, description="the world's items permuted among themselves (Overcooked: ingredient indices; default: the world's)"
    )
    group: str | None = Field(
        None,
        description="the world's symmetry family by name (Yōkai: colour_rotation, colour, rotation); default: the world's",
    )


def permuted_env(algo: AlgoConfig, settings: OtherPlaySettings) -> tuple[RLEnv, RLEnv, dict]:
    """(the plain env agents are scored in, the env they train in, whose agents each see a symmetry
    drawn at every reset, the manifest's details of it); a ValueError for a world without one. One
    builder, so every OP run (one seed or several side by side) trains in the same env."""
    symmetries = algo.spec.symmetries
    if symmetries is None:
        raise ValueError(f"op: {algo.world} has no symmetry transform (its RL spec's symmetries)")
    env = algo.make_env()
    permuted, items = symmetries.permuted(env, settings.permute, settings.group)
    return env, permuted, {"permuted": list(items), "settings": settings.model_dump(mode="json")}


def train_other_play(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: OtherPlaySettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or OtherPlaySettings()
    env, permuted, details = permuted_env(algo, settings)
    saves = open_saves(out_dir, "op", algo, settings, policy)
    config = algo.stage_config(algo.total_steps)
    stage = Stage("op", config, Pairing.self_play(config.num_envs, env.num_agents), permuted, algo.updates_per_call)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    runner, state = run_stage(stage, runner, {"history": []}, record_history, saves, log)
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, 0)
    manifest = save_agent(out_dir, algo, "op", params, env, saves.trained(steps), details, state["history"], log)
    saves.clear()
    return manifest
