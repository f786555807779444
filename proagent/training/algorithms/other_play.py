"""Other-Play (Hu et al., 2020) as the OvercookedV2 paper applies it (App. C.1.2): self-play in
which each agent sees the recipe ingredients permuted, one permutation drawn per agent at every
reset, so no policy can rely on a convention that names an ingredient (such as "onions mean the
first recipe"). JaxMARL's engine applies the permutation to every ingredient channel of the
observation (held items, pot contents, dishes, piles, indicators); see ``OvercookedEnv``.

The agent is scored, saved and later played with plain (unpermuted) observations, as in the paper.
"""

from __future__ import annotations

from pathlib import Path

import jax
from pydantic import BaseModel, ConfigDict, Field

import envs
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

    ingredients: tuple[int, ...] | None = Field(
        None, description="ingredient indices permuted among themselves (default: those the layout's recipes use)"
    )


def recipe_ingredients(layout: envs.KitchenLayout) -> tuple[int, ...]:
    """The ingredients any recipe of ``layout`` uses: the paper's symmetry class on its layouts (two
    recipes of three identical ingredients each, permuted while every other ingredient stays)."""
    return tuple(sorted({i for recipe in layout.recipes for i in recipe}))


def other_play_env(env: envs.OvercookedEnv, settings: OtherPlaySettings) -> envs.OvercookedEnv:
    """``env`` with permuted observations; a ValueError when there is nothing to permute."""
    chosen = settings.ingredients if settings.ingredients is not None else recipe_ingredients(env.layout)
    if len(chosen) < 2:
        raise ValueError(
            f"other-play on {env.layout.name}: needs at least two ingredients to permute, got {list(chosen)} "
            "(set them with --algo-set ingredients='[0,1]')"
        )
    if max(chosen) >= env.layout.num_ingredients:
        raise ValueError(f"other-play on {env.layout.name}: the layout has {env.layout.num_ingredients} ingredients")
    return envs.OvercookedEnv(env.layout, env.dynamics, op_ingredients=chosen)


def train_other_play(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: OtherPlaySettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or OtherPlaySettings()
    saves = open_saves(out_dir, "op", algo, settings, policy)
    env = algo.make_env()
    permuted = other_play_env(env, settings)
    config = algo.stage_config(algo.total_steps)
    stage = Stage("op", config, Pairing.self_play(config.num_envs), permuted, algo.updates_per_call)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    runner, state = run_stage(stage, runner, {"history": []}, record_history, saves, log)
    details = {"permuted_ingredients": list(permuted.op_ingredients), "settings": settings.model_dump(mode="json")}
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, 0)
    manifest = save_agent(out_dir, algo, "op", params, env, saves.trained(steps), details, state["history"], log)
    saves.clear()
    return manifest
