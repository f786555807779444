"""COLE (Li et al., 2023): an open-ended population grown by a learner that trains against the
members it is least compatible with.

The population starts with the learner's random initial policy. Each generation:
1. the cross-play payoff matrix of the current members is measured (``make_payoff_matrix``);
2. each member's cooperative compatibility is its in-degree centrality in the preference graph
   (every member points at the partner(s) it scores best with, seat order averaged);
3. the learner trains for a generation against pool partners sampled by rank of incompatibility
   (least compatible first, p proportional to 1 / rank) in most envs, plus a self-play share;
4. a copy of the learner is frozen into the population.
The final learner is the COLE agent.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from proagent.training import checkpoint
from proagent.training.algorithms.common import AlgoConfig, Log, Stage, open_saves, run_stage, save_agent, warm_started
from proagent.training.algorithms.pairings import best_response, self_play_envs
from proagent.training.evaluate import make_payoff_matrix
from proagent.training.population import (
    Pairing,
    PopMetrics,
    PopRunner,
    learner_params,
    resample_partners,
    set_pool_entry,
)
from proagent.training.resume import ResumePolicy
from proagent.world.rl_spec import RLEnv


class COLESettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    generations: int = Field(6, ge=1)
    self_play_share: float = Field(0.25, ge=0.0, lt=1.0, description="share of envs where the learner plays itself")
    payoff_episodes: int = Field(4, ge=1, description="episodes per ordered pair for the payoff matrix")


def in_degree_centrality(payoff: np.ndarray) -> np.ndarray:
    """Share of the other members whose preferred partner (best mean score, seats averaged) is each member."""
    m = payoff.shape[0]
    if m == 1:
        return np.ones(1)
    sym = (payoff + payoff.T) / 2
    np.fill_diagonal(sym, -np.inf)
    indegree = np.zeros(m)
    for i in range(m):
        indegree += sym[i] == sym[i].max()
    return indegree / (m - 1)


def incompatibility_logits(payoff: np.ndarray) -> np.ndarray:
    """Sampling logits: rank 1 = least compatible (lowest centrality, then lowest mean payoff)."""
    centrality = in_degree_centrality(payoff)
    mean = (payoff.sum(0) + payoff.sum(1)) / (2 * payoff.shape[0])
    order = np.lexsort((mean, centrality))  # primary key last: centrality ascending
    rank = np.empty(len(order))
    rank[order] = np.arange(1, len(order) + 1)
    return -np.log(rank)


def generation_bounds(calls: int, generations: int) -> list[int]:
    """The last call (1-based) of each generation; the last generation takes the remainder."""
    per_generation = calls // generations
    return [per_generation * (g + 1) for g in range(generations - 1)] + [calls]


def cole_stage(algo: AlgoConfig, env: RLEnv, settings: COLESettings) -> Stage:
    """The learner's one stage: a best response to a pool of generations + 1 slots, part self-play."""
    config = algo.stage_config(algo.total_steps)
    own = self_play_envs(config.num_envs, settings.self_play_share)
    pairing = Pairing(num_learners=1, slots=best_response(config.num_envs, own), pool_size=settings.generations + 1)
    stage = Stage("cole", config, pairing, env, algo.updates_per_call)
    if stage.calls < settings.generations:
        raise ValueError(
            f"cole: {stage.calls} jitted calls cannot hold {settings.generations} generations (one call each at "
            f"least): raise --steps to {settings.generations * algo.updates_per_call * config.steps_per_update:,} "
            "or lower generations"
        )
    return stage


def generation_record(g: int, payoff: np.ndarray, logits: np.ndarray) -> dict:
    """What the manifest keeps of a generation's start: its payoff matrix and partner sampling."""
    return {
        "generation": g,
        "payoff": np.round(payoff, 1).tolist(),
        "centrality": np.round(in_degree_centrality(payoff), 3).tolist(),
        "sampling": np.round(np.exp(logits) / np.exp(logits).sum(), 3).tolist(),
    }


def train_cole(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: COLESettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or COLESettings()
    saves = open_saves(out_dir, "cole", algo, settings, policy)
    env = algo.make_env()
    stage = cole_stage(algo, env, settings)
    size = settings.generations + 1
    payoff_of = make_payoff_matrix(env, algo.network, size, settings.payoff_episodes)
    ends = generation_bounds(stage.calls, settings.generations)

    def begin_generation(runner: PopRunner, g: int, state: dict) -> PopRunner:
        """Measure the g+1 members' payoff matrix and sample the learner's partners from it."""
        key = jax.random.PRNGKey(algo.seed * 1000 + g)
        payoff = np.asarray(payoff_of(runner.pool_params, key))[: g + 1, : g + 1]
        logits = incompatibility_logits(payoff)
        padded = jnp.full((size,), -jnp.inf, jnp.float32).at[: g + 1].set(jnp.asarray(logits, jnp.float32))
        state["generations"].append(generation_record(g, payoff, logits))
        return resample_partners(runner._replace(pool_logits=padded), key)

    def on_call(i: int, runner: PopRunner, metrics: PopMetrics, rec: dict, state: dict) -> PopRunner:
        g = len(state["generations"]) - 1
        state["history"].append({**rec, "generation": g})
        if i == ends[g]:  # the generation ends: freeze a copy of the learner into the population
            runner = set_pool_entry(runner, g + 1, learner_params(runner, 0), logit=-jnp.inf)
            if g + 1 < settings.generations:
                runner = begin_generation(runner, g + 1, state)
        return runner

    runner = stage.init(jax.random.PRNGKey(algo.seed))
    runner = set_pool_entry(runner, 0, learner_params(runner, 0))  # generation 0: the random initial policy
    runner = warm_started(runner, algo, [0])
    state = {"history": [], "generations": []}
    runner = begin_generation(runner, 0, state)
    runner, state = run_stage(stage, runner, state, on_call, saves, log)
    details = {"generations": state["generations"], "settings": settings.model_dump(mode="json")}
    steps = int(runner.update) * stage.config.steps_per_update
    params = learner_params(runner, 0)
    manifest = save_agent(out_dir, algo, "cole", params, env, saves.trained(steps), details, state["history"], log)
    saves.clear()
    return manifest
