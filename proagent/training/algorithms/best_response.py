"""Stage two of FCP and MEP: one learner trained against a frozen pool, a random seat per env.

``self_play_share`` of the envs pair the learner with itself. Without them a best response to a
pool of skilled self-play agents learns to leave the cooking to its partner (the lazy-agent
pattern): against the shipped cramped_room SP agent alone a fresh learner reached 178 points with
it but 0 in self-play, and against the 24-member FCP pool of the first GPU try it stayed near
uniform (entropy 1.61 of 1.79 after 80M steps). A self-play share alone did not cure it (0.25 of
the envs: self-play 3 for FCP and 0 for MEP after 60M steps on counter_circuit), so ``init`` lets
the learner start from a skilled pool member instead of random weights.

``priority`` (MEP) maps the learner's running mean score with each pool member to sampling logits
after every call; without it the pool is sampled uniformly (FCP).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from proagent.training.algorithms.common import (
    AlgoConfig,
    Log,
    Stage,
    pair_totals,
    run_stage,
    warm_started,
)
from proagent.training.algorithms.pairings import best_response, self_play_envs
from proagent.training.population import (
    Pairing,
    PopMetrics,
    PopRunner,
    learner_params,
    stack_pool,
    with_learner_params,
)
from proagent.training.resume import ResumePolicy, StageSaves
from proagent.world.rl_spec import RLEnv

Priority = Callable[[np.ndarray], np.ndarray]  # mean score with each member -> logits


def pool_scores(score: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Learner 0's summed score and episode count with each pool member, both seats together."""
    s = score[0, 1:] + score[1:, 0]
    n = count[0, 1:] + count[1:, 0]
    return s, n


def rank_priority(beta: float) -> Priority:
    """MEP's rank-based prioritised sampling: the member the learner does worst with has the highest
    rank n, the best rank 1; p_i is proportional to rank_i ** beta."""

    def logits(mean_scores: np.ndarray) -> np.ndarray:
        order = np.argsort(-mean_scores, kind="stable")  # best first
        rank = np.empty(len(order))
        rank[order] = np.arange(1, len(order) + 1)
        return beta * np.log(rank)

    return logits


def train_best_response(
    algo: AlgoConfig,
    env: RLEnv,
    members: list[Any],
    steps: int,
    log: Log,
    name: str,
    priority: Priority | None = None,
    self_play_share: float = 0.0,
    init: Any = None,
    ema: float = 0.7,
    saves: StageSaves | None = None,
) -> tuple[Any, list[dict], dict]:
    """-> (learner params, history, details) after ``steps`` env steps against ``members``; the
    learner starts from ``init`` when given (else random, or the shipped SP with ``--warm-start sp``)."""
    config = algo.stage_config(steps)
    own = self_play_envs(config.num_envs, self_play_share)
    pairing = Pairing(num_learners=1, slots=best_response(config.num_envs, own), pool_size=len(members))
    stage = Stage(name, config, pairing, env, algo.updates_per_call)
    pool, logits = stack_pool(members, len(members))
    runner = warm_started(stage.init(jax.random.PRNGKey(algo.seed + 1), pool, logits), algo, [0])
    if init is not None and algo.warm_start == "none":  # an explicit warm start wins
        runner = with_learner_params(runner, [0], init)
    k = len(members)
    state = {"history": [], "running": np.full(k, np.nan), "total_s": np.zeros(k), "total_n": np.zeros(k)}

    def on_call(i: int, runner: PopRunner, metrics: PopMetrics, rec: dict, state: dict) -> PopRunner:
        s, n = pool_scores(*pair_totals(metrics))
        state["total_s"], state["total_n"] = state["total_s"] + s, state["total_n"] + n
        mean = np.where(n > 0, s / np.maximum(n, 1), np.nan)
        running = state["running"]
        running = np.where(np.isnan(running), mean, np.where(np.isnan(mean), running, ema * running + (1 - ema) * mean))
        state["running"] = running
        rec["pool_scores"] = [None if np.isnan(x) else round(float(x), 1) for x in running]
        rec["pool_episodes"] = [int(x) for x in n]
        if priority is not None and not np.isnan(running).any():
            new = priority(running)
            rec["pool_logits"] = [round(float(x), 3) for x in new]
            runner = runner._replace(pool_logits=jax.numpy.asarray(new, jax.numpy.float32))
        state["history"].append(rec)
        return runner

    saves = saves or StageSaves(None, {}, ResumePolicy())
    runner, state = run_stage(stage, runner, state, on_call, saves, log)
    details = {
        "br_steps": int(runner.update) * config.steps_per_update,
        "br_mean_score_with_each_member": [
            round(float(x), 1) for x in state["total_s"] / np.maximum(state["total_n"], 1)
        ],
        "br_episodes_with_each_member": [int(x) for x in state["total_n"]],
    }
    return learner_params(runner, 0), state["history"], details
