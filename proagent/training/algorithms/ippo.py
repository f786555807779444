"""Independent PPO (``proagent train --algo ippo``, any world): one network per seat, each trained
on its own seat's experience in every env (the PPO program with ``Pairing.independent``: learner
s always in seat s). Self-play (``--algo sp``) is the other IPPO: one network shared by every seat.

The shipped agent is the team: every learner's parameters stacked on a leading seat axis
(``seat_groups`` = seats in the manifest), each seat played by its own network, as CUBE's
``ippo_independent`` partners are.
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
from pydantic import BaseModel, ConfigDict

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
from proagent.training.population import Pairing
from proagent.training.resume import ResumePolicy


class IPPOSettings(BaseModel):
    """Independent PPO has no knobs of its own (the PPO ones are ``--set``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def train_ippo(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: IPPOSettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or IPPOSettings()
    saves = open_saves(out_dir, "ippo", algo, settings, policy)
    env = algo.make_env()
    config = algo.stage_config(algo.total_steps)
    seats = env.num_agents
    stage = Stage("ippo", config, Pairing.independent(config.num_envs, seats), env, algo.updates_per_call)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    runner, state = run_stage(stage, runner, {"history": []}, record_history, saves, log)
    steps = int(runner.update) * config.steps_per_update
    team = jax.tree.map(np.asarray, runner.learners.params)  # leaves (seats, ...): seat s plays learner s
    details = {"seats": seats}
    trained = saves.trained(steps)
    manifest = save_agent(out_dir, algo, "ippo", team, env, trained, details, state["history"], log, seat_groups=seats)
    saves.clear()
    return manifest
