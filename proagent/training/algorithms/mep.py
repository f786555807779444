"""MEP (Zhao et al., 2023): a maximum-entropy population, then a prioritised best response.

Stage 1 trains ``population`` self-play agents side by side with a population-entropy bonus: each
learner's reward gets ``entropy_coef * -log(pi_bar(a|s))``, where pi_bar is the mean of all
members' policies at the visited state (a one-sample estimate of the entropy of the population's
mean policy), so members are pushed apart while each still learns the task. Stage 2 trains the MEP
agent against the frozen members with rank-based prioritised sampling: the member it currently
does worst with (running mean score) is sampled most, p_i proportional to rank_i ** beta.

With ``--warm-start sp`` the members too start from the layout's SP agent: on a CPU budget of a
few hundred thousand steps per member, members trained from scratch on counter_circuit never
delivered a soup, and a best response to four random policies forgot how to cook (self-play 47).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import jax
from pydantic import BaseModel, ConfigDict, Field

from proagent.training import checkpoint
from proagent.training.algorithms.best_response import rank_priority, train_best_response
from proagent.training.algorithms.common import (
    AlgoConfig,
    Log,
    Stage,
    best_final_learner,
    open_saves,
    record_history,
    run_stage,
    save_agent,
    warm_started,
)
from proagent.training.algorithms.pairings import self_play
from proagent.training.population import Pairing, learner_params
from proagent.training.resume import ResumePolicy


class MEPSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    population: int = Field(4, ge=2)
    entropy_coef: float = Field(0.01, ge=0.0)
    population_share: float = Field(0.5, gt=0.0, lt=1.0, description="share of total_steps spent on stage 1")
    priority_beta: float = Field(1.0, ge=0.0)
    br_self_play_share: float = Field(
        0.25, ge=0.0, lt=1.0, description="share of the best response's envs where it plays itself (against laziness)"
    )
    br_init: Literal["random", "best_member"] = Field(
        "best_member",
        description="the best response starts from random weights or the best-scoring final member (--warm-start sp "
        "wins)",
    )


def train_mep(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: MEPSettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or MEPSettings()
    saves = open_saves(out_dir, "mep", algo, settings, policy)
    env = algo.make_env()
    pop_steps = int(algo.total_steps * settings.population_share)
    config = algo.stage_config(pop_steps)
    pairing = Pairing(
        num_learners=settings.population,
        slots=self_play(settings.population, config.num_envs),
        pop_entropy_coef=settings.entropy_coef,
    )
    stage = Stage("mep-pop", config, pairing, env, algo.updates_per_call)
    runner = warm_started(stage.init(jax.random.PRNGKey(algo.seed)), algo, list(range(settings.population)))
    runner, state = run_stage(stage, runner, {"history": []}, record_history, saves, log)
    history = state["history"]
    members = [learner_params(runner, k) for k in range(settings.population)]
    priority = rank_priority(settings.priority_beta)
    best = best_final_learner(history)
    init = members[best] if settings.br_init == "best_member" else None
    params, br_history, details = train_best_response(
        algo, env, members, algo.total_steps - pop_steps, log, "mep", priority,
        self_play_share=settings.br_self_play_share, init=init, saves=saves,
    )  # fmt: skip
    details = {
        "population_final_scores": history[-1]["learner_scores"],
        "br_init_member": best if init is not None else None,
        "settings": settings.model_dump(mode="json"),
        **details,
    }
    steps = history[-1]["env_steps"] + br_history[-1]["env_steps"]
    manifest = save_agent(out_dir, algo, "mep", params, env, saves.trained(steps), details, history + br_history, log)
    saves.clear()
    return manifest
