"""N seeds of one recipe trained side by side in one vmapped program (``proagent train --seeds N``,
self-play ``sp`` or Other-Play ``op``). Why: a small network on 256 envs leaves a GPU mostly idle,
and the PPO program already runs K learners in one jitted update: N seeds fill one program instead
of N programs each leaving the chip idle.

Each seed gets the whole per-seed recipe: the program runs ``N * num_envs`` envs (learner k plays
itself in its own ``num_envs``, `pairings.self_play`), ``N * steps`` env steps and shaping annealed
over ``N * shaping_horizon`` (``ppo.shaping_coef`` counts the whole program's env steps), so the
number of updates, the learning-rate schedule and each learner's minibatches are one lone run's.

The seeds are ``S .. S+N-1`` (``S`` = ``--seed``): member k is saved with seed ``S+k``, scored in
self-play with evaluation seed ``S+k+10_000`` as a lone run is, in its own folder (`member_name`).
Its initial params come from the program's key (``PRNGKey(S)`` split over the learners), so it is
not bit-identical to a lone ``--seed S+k`` run; the manifest's ``details.side_by_side`` says so
(program seed, number of seeds, member), and the same command reproduces it. The resume state of
the one program lives in the run's own folder (``--out``; with ``--ship`` the first member's).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import jax
from pydantic import BaseModel, ConfigDict, Field

from proagent.limits import MAX_SEEDS
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
from proagent.training.algorithms.other_play import OtherPlaySettings, permuted_env, plain_game_recorder
from proagent.training.algorithms.pairings import self_play
from proagent.training.config import PPOConfig
from proagent.training.population import Pairing, learner_params
from proagent.training.resume import ResumePolicy
from proagent.world.rl_spec import RLEnv

ALGORITHMS = ("sp", "op")  # the CLI's SIDE_BY_SIDE (kept apart so the CLI imports no jax)


class SideBySide(BaseModel):
    """What a resumed run must share besides the per-seed config: the number of seeds and the
    algorithm's own settings (op's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seeds: int = Field(ge=1, le=MAX_SEEDS)
    settings: dict = Field(default_factory=dict)


def member_name(name: str, seed: int) -> str:
    """The folder of seed ``seed``: ``name`` for seed 0, else ``name_s<seed>`` (``sp``, ``sp_s1``, ...),
    the names the shipped seeds of a partner have."""
    return name if seed == 0 else f"{name}_s{seed}"


def program_config(algo: AlgoConfig, seeds: int) -> PPOConfig:
    """The one program's PPO config: one seed's (``algo``), with ``seeds`` times its envs, steps and
    shaping horizon, so updates, schedule and per-learner batches stay one seed's."""
    one = algo.stage_config(algo.total_steps)
    scaled = {name: getattr(one, name) * seeds for name in ("num_envs", "total_steps", "shaping_horizon")}
    return one.model_copy(update=scaled)


def program_stage(algo: AlgoConfig, algorithm: str, seeds: int, env: RLEnv) -> Stage:
    """The one program: ``seeds`` learners, each playing itself in its own envs of ``env``."""
    config = program_config(algo, seeds)
    pairing = Pairing(num_learners=seeds, slots=self_play(seeds, config.num_envs, env.num_agents))
    return Stage(algorithm, config, pairing, env, algo.updates_per_call)


def member_history(history: list[dict], member: int, seeds: int) -> list[dict]:
    """Member ``member``'s view of the program's call records: its own env steps, training score
    (``learner_scores``) and, for op, plain-game score (``plain_learner_scores``); the losses, speed
    and episodes stay the whole program's."""

    def own(rec: dict) -> dict:
        score = rec["learner_scores"][member]
        mine = {"env_steps": rec["env_steps"] // seeds, "score": float("nan") if score is None else score}
        if "plain_learner_scores" in rec:
            mine["plain_score"] = rec["plain_learner_scores"][member]
        return {**rec, **mine}

    return [own(rec) for rec in history]


def train_side_by_side(
    algo: AlgoConfig,
    algorithm: str,
    outs: Sequence[Path | None],
    run_dir: Path | None,
    log: Log = print,
    settings: OtherPlaySettings | None = None,
    policy: ResumePolicy | None = None,
) -> list[checkpoint.Manifest]:
    """Train ``len(outs)`` seeds of ``algorithm`` (``algo``: one seed's config, seed ``S``) in one
    program, resumable from ``run_dir``; member k is saved to ``outs[k]``. -> their manifests."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"--seeds trains {' or '.join(ALGORITHMS)} side by side, not {algorithm}")
    seeds = len(outs)
    if algorithm == "op":
        settings = settings or OtherPlaySettings()
        env, train_env, details = permuted_env(algo, settings)
        on_call = plain_game_recorder(env, algo, settings, log)
    else:
        env = train_env = algo.make_env()
        details, on_call = {}, record_history
    identity = SideBySide(seeds=seeds, settings=settings.model_dump(mode="json") if settings else {})
    saves = open_saves(run_dir, algorithm, algo, identity, policy)
    stage = program_stage(algo, algorithm, seeds, train_env)
    runner = stage.init(jax.random.PRNGKey(algo.seed))
    runner, state = run_stage(stage, runner, {"history": []}, on_call, saves, log)
    trained = saves.trained(int(runner.update) * stage.config.steps_per_update // seeds)  # each seed's env steps
    manifests = []
    for k, out in enumerate(outs):
        member = algo.model_copy(update={"seed": algo.seed + k})
        info = {**details, "side_by_side": {"program_seed": algo.seed, "seeds": seeds, "member": k}}
        history = member_history(state["history"], k, seeds)
        params = learner_params(runner, k)
        manifests.append(save_agent(out, member, algorithm, params, env, trained, info, history, log))
    saves.clear()
    return manifests
