"""State-augmented self-play, the OvercookedV2 paper's Algorithm 1: agents meet, in training, the
states an unfamiliar partner would lead them into.

``population`` members train side by side, each in self-play in its own envs (one population
program). Training is cut into ``iterations``; at the start of each, every ordered pair of
members (self-pairs included) plays ``rollouts`` whole episodes together and every ``every``-th
state of those episodes goes into a buffer. For the rest of the iteration each reset starts from a
state drawn from that buffer (step counter 0: a whole episode from it), which JaxMARL's engine
does (``OvercookedEnv(start_states=...)``). The learning-rate and shaping schedules run over the
whole budget; only the env changes between iterations (one compile each). The member with the
best score in the last iteration's self-play ships. A run is not resumable (its buffer is not
saved); it restarts from the beginning.
"""

from __future__ import annotations

import time
from pathlib import Path

import jax
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

import envs
from proagent.training import checkpoint
from proagent.training.algorithms.common import AlgoConfig, Log, Stage, best_final_learner, save_agent
from proagent.training.algorithms.pairings import self_play
from proagent.training.evaluate import make_pair_states
from proagent.training.population import Pairing, learner_params
from proagent.training.resume import ResumePolicy


class StateAugSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    population: int = Field(2, ge=1, description="members trained side by side (P)")
    iterations: int = Field(4, ge=1, description="buffer refreshes over the run (I)")
    rollouts: int = Field(4, ge=1, description="episodes per ordered pair of members per refresh (R)")
    every: int = Field(10, ge=1, description="keep every n-th state of those episodes")


def train_state_aug(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: StateAugSettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or StateAugSettings()
    if policy is not None and policy.resume:
        raise ValueError("state_aug keeps no resume state (its buffer is not saved); run it again without --resume")
    start = time.perf_counter()
    env = algo.make_env()
    config = algo.stage_config(algo.total_steps)
    n = settings.population
    pairing = Pairing(num_learners=n, slots=self_play(n, config.num_envs))
    stage = Stage("state_aug", config, pairing, env, algo.updates_per_call)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    collect = make_pair_states(env, algo.network, n, settings.rollouts, settings.every)
    bounds = np.linspace(0, stage.calls, settings.iterations + 1).round().astype(int)
    history: list[dict] = []
    buffers: list[int] = []
    for it in range(settings.iterations):
        key = jax.random.fold_in(jax.random.PRNGKey(algo.seed), 1_000 + it)
        states = collect(runner.learners.params, key)
        buffers.append(int(states.step.shape[0]))
        augmented = envs.OvercookedEnv(env.layout, env.dynamics, start_states=states)
        iteration = Stage("state_aug", config, pairing, augmented, algo.updates_per_call)
        log(f"[state_aug] iteration {it + 1}/{settings.iterations}: {buffers[-1]} start states")
        for _ in range(bounds[it], bounds[it + 1]):
            runner, _, rec = iteration.call(runner, log)
            history.append({**rec, "iteration": it + 1})
    best = best_final_learner(history)
    details = {
        "population": n,
        "shipped_member": best,
        "buffer_states": buffers,
        "settings": settings.model_dump(mode="json"),
    }
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, best)
    return save_agent(
        out_dir, algo, "state_aug", params, env, steps, time.perf_counter() - start, details, history, log
    )
