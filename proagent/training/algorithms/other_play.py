"""Other-Play (Hu et al., 2020), as the OvercookedV2 paper applies it (App. C.1.2): self-play in
which each agent sees the world through a symmetry drawn at every reset, so no policy can rely on
an arbitrary convention (such as "onions mean the first recipe"). The symmetry is the world's
(its RL spec's ``symmetries``; Overcooked: the recipe ingredients permuted per agent); a world
without one cannot train OP.

The agent is scored, saved and later played with plain (unpermuted) observations, as in the paper.
The training score is Other-Play's own game (each seat through its own symmetry), which can differ
a lot from the plain game (a Yōkai policy that favours colours by how it sees them neglects a
different colour per seat there, and one colour in the plain game). So after every call each
learner also plays the plain game (``plain_episodes`` episodes, fresh deals per call, keys apart
from training's, so training is the same with it or without), kept in the history as
``plain_score`` beside ``score``.
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
    OnCall,
    Stage,
    open_saves,
    record_history,
    run_stage,
    save_agent,
)
from proagent.training.evaluate import make_learners_self_play
from proagent.training.population import Pairing, PopMetrics, PopRunner, learner_params
from proagent.training.resume import ResumePolicy
from proagent.world.rl_spec import RLEnv


class OtherPlaySettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    permute: tuple[int, ...] | None = Field(
        None,
        description="the world's items permuted among themselves (Overcooked: ingredient indices; default: the "
        "world's)",
    )
    group: str | None = Field(
        None,
        description="the world's symmetry family by name (Yōkai: colour_rotation, colour, rotation); default: the "
        "world's",
    )
    plain_episodes: int = Field(
        64,
        ge=0,
        le=4096,
        description="after every call, each learner's self-play in the plain game over this many episodes "
        "(history's plain_score); 0: off",
    )

PLAIN_SEED_OFFSET = 20_000  # the plain game's deals: PRNGKey(seed + this), folded with the call's number


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


def plain_game_recorder(env: RLEnv, algo: AlgoConfig, settings: OtherPlaySettings, log: Log) -> OnCall:
    """``record_history`` that first scores every learner in the plain game ``env`` (a call record's
    ``plain_learner_scores``, and their mean ``plain_score``); the plain recorder when it is off."""
    if settings.plain_episodes == 0:
        return record_history
    scores = make_learners_self_play(env, algo.network, settings.plain_episodes)
    key = jax.random.PRNGKey(algo.seed + PLAIN_SEED_OFFSET)

    def on_call(i: int, runner: PopRunner, metrics: PopMetrics, rec: dict, state: dict) -> PopRunner:
        means = np.asarray(scores(runner.learners.params, jax.random.fold_in(key, i))).mean(-1)
        rec["plain_learner_scores"] = [round(float(x), 3) for x in means]
        rec["plain_score"] = round(float(means.mean()), 3)
        shown = " ".join(f"{x:.1f}" for x in means)
        log(f"[{rec['stage']}] plain game, {settings.plain_episodes} episodes a learner: [{shown}]")
        return record_history(i, runner, metrics, rec, state)

    return on_call


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
    on_call = plain_game_recorder(env, algo, settings, log)
    runner, state = run_stage(stage, runner, {"history": []}, on_call, saves, log)
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, 0)
    manifest = save_agent(out_dir, algo, "op", params, env, saves.trained(steps), details, state["history"], log)
    saves.clear()
    return manifest
