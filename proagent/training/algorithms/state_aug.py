"""State-augmented self-play, the OvercookedV2 paper's Algorithm 1: agents meet, in training, the
states an unfamiliar partner would lead them into.

``population`` members train side by side, each in self-play in its own envs (one population
program). Training is cut into ``iterations``; at the start of each, every ordered pair of
members (self-pairs included) plays ``rollouts`` whole episodes together and every ``every``-th
state of those episodes goes into a buffer. For the rest of the iteration each reset starts from a
state drawn from that buffer (step counter 0: a whole episode from it), which JaxMARL's engine
does for Overcooked (the world's RL spec's ``start_states`` hook; a world without one cannot train it). The
learning-rate and shaping schedules run over the whole budget; only the env changes between iterations (one compile
each). The member with the best score in the last iteration's self-play ships. A killed run resumes (``--resume``)
after its last saved call with the runner and the buffer it then trained on, so it ends with the parameters
an uninterrupted run would have.
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from proagent.training import checkpoint
from proagent.training.algorithms.common import AlgoConfig, Log, Stage, best_final_learner, open_saves, save_agent
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
    hook = algo.spec.start_states
    if hook is None:
        raise ValueError(
            f"state_aug: {algo.world} cannot start episodes from given states (its RL spec's start_states)"
        )
    saves = open_saves(out_dir, "state_aug", algo, settings, policy)
    env = algo.make_env()
    config = algo.stage_config(algo.total_steps)
    n = settings.population
    pairing = Pairing(num_learners=n, slots=self_play(n, config.num_envs))
    stage = Stage("state_aug", config, pairing, env, algo.updates_per_call)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    state: dict = {"history": [], "buffers": [], "states": None}  # states: the current iteration's buffer
    done = 0
    restored = saves.restore("state_aug", runner)
    if restored is not None:
        runner, state, done = restored
        log(f"resuming stage state_aug: {done}/{stage.calls} calls done")
    collect = make_pair_states(env, algo.network, n, settings.rollouts, settings.every)
    bounds = np.linspace(0, stage.calls, settings.iterations + 1).round().astype(int)
    for it in range(settings.iterations):
        if done >= bounds[it + 1]:
            continue  # trained before the interruption
        if done == bounds[it]:  # the iteration starts: a fresh buffer from the members as they are now
            key = jax.random.fold_in(jax.random.PRNGKey(algo.seed), 1_000 + it)
            state["states"] = jax.device_get(collect(runner.learners.params, key))
            state["buffers"].append(int(state["states"].step.shape[0]))
        augmented = hook.with_start_states(env, state["states"])
        iteration = Stage("state_aug", config, pairing, augmented, algo.updates_per_call)
        log(f"[state_aug] iteration {it + 1}/{settings.iterations}: {state['buffers'][it]} start states")
        for i in range(done + 1, bounds[it + 1] + 1):
            runner, _, rec = iteration.call(runner, log)
            state["history"].append({**rec, "iteration": it + 1})
            saves.after_call("state_aug", runner, state, i, final=i == stage.calls)
        done = int(bounds[it + 1])
    history = state["history"]
    best = best_final_learner(history)
    details = {
        "population": n,
        "shipped_member": best,
        "buffer_states": state["buffers"],
        "settings": settings.model_dump(mode="json"),
    }
    steps = int(runner.update) * config.steps_per_update
    params = learner_params(runner, best)
    manifest = save_agent(out_dir, algo, "state_aug", params, env, saves.trained(steps), details, history, log)
    saves.clear()
    return manifest
