"""Train one CUBE IPPO teammate and write its checkpoint (what ships under partners/cube/).

    .venv/bin/python scripts/train_cube_ippo.py --scenario easy_2a --params shared --steps 2e6 --seed 0
    .venv/bin/python scripts/train_cube_ippo.py --scenario medium_3a --params independent --steps 4e6
    .venv/bin/python scripts/train_cube_ippo.py ... --set ent_coef=0.02 --set approach_shaping=0.5

Writes ``--out`` (default ``partners/cube/<scenario>/ippo_<params>/``): params.msgpack,
history.jsonl and manifest.json, whose self-play scores are measured here over ``--eval-episodes``
vmapped episodes to the scenario's horizon (stochastic and greedy), beside one episode of the
scripted ``pusher`` team (deterministic).
Prints the README table row at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import jax
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.cube import make
from proagent.domains.cube.rl import checkpoint
from proagent.domains.cube.rl.observation import obs_dim
from proagent.domains.cube.rl.train import IppoConfig, evaluate, train


def score_summary(scores: np.ndarray, horizon: int, stochastic: bool) -> checkpoint.SelfPlayScore:
    n = len(scores)
    std = float(scores.std(ddof=1)) if n > 1 else 0.0
    return checkpoint.SelfPlayScore(
        mean=float(scores.mean()), se=std / np.sqrt(n), std=std, episodes=n, horizon=horizon, stochastic=stochastic
    )


def pusher_team_score(scenario: str) -> tuple[float, int]:
    """(score, steps) of one episode (deterministic) of a team of scripted pushers, stepped here
    directly: the same loop as ``run_episode`` without the domain's recording."""
    from proagent.domains.cube.partners import PusherPartner

    env = make(scenario)
    team = [PusherPartner() for _ in range(env.num_agents)]
    for seat, agent in enumerate(team):
        agent.reset(seat, seat)
    state = env.jit_reset(jax.random.PRNGKey(0))
    while not bool(state.done):
        view = env.symbolic(state)
        actions = np.array([agent.policy(view, state) for agent in team], np.int32)
        state = env.jit_step(jax.random.PRNGKey(0), state, actions).state
    return float(state.score), int(state.step)


def parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="easy_2a")
    parser.add_argument("--params", choices=["shared", "independent"], default="shared")
    parser.add_argument("--steps", type=float, default=2e6, help="env steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--log-every", type=int, default=10, help="updates per history record")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="an IppoConfig field")
    args = parser.parse_args(argv)

    overrides = dict(kv.split("=", 1) for kv in args.set)
    config = IppoConfig(
        scenario=args.scenario,
        params=args.params,
        seed=args.seed,
        total_steps=int(args.steps),
        **{k: parse_value(v) for k, v in overrides.items()},
    )
    algorithm = f"ippo_{args.params}"
    out = args.out or checkpoint.partner_dir(args.scenario, algorithm)
    print(f"training {algorithm} on {args.scenario}: {config.num_updates} updates -> {out}", flush=True)
    result = train(config, log_every=args.log_every, on_log=lambda r: print(json.dumps(r), flush=True))
    env = make(args.scenario)
    horizon = env.scenario.horizon
    eval_key = jax.random.PRNGKey(config.seed + 1000)
    stochastic, steps = evaluate(
        result.params, args.scenario, args.params, config.network, eval_key, args.eval_episodes, True, with_steps=True
    )
    greedy = evaluate(result.params, args.scenario, args.params, config.network, eval_key, args.eval_episodes, False)
    sp, sp_greedy = score_summary(stochastic, horizon, True), score_summary(greedy, horizon, False)
    pusher, pusher_steps = pusher_team_score(args.scenario)
    learned = sp.mean > 0
    best = env.scenario.total_weight
    notes = (
        f"self-play delivers {sp.mean:.2f} of {best} (stochastic), {sp_greedy.mean:.2f} greedy; "
        f"scripted pusher team {pusher:.0f}"
        if learned
        else f"did NOT learn to deliver in {result.env_steps} env steps: self-play score 0 (pusher team {pusher:.0f})"
    )
    manifest = checkpoint.CubeManifest(
        algorithm=algorithm,
        params_mode=args.params,
        scenario=args.scenario,
        seed=config.seed,
        env_steps=result.env_steps,
        train_wall_time_s=round(result.wall_time_s, 1),
        device=checkpoint.device_description(),
        network=config.network,
        obs_dim=obs_dim(env.scenario),
        num_agents=env.num_agents,
        self_play=sp,
        self_play_greedy=sp_greedy,
        pusher_team=pusher,
        pusher_team_steps=pusher_steps,
        self_play_steps=float(steps.mean()),
        max_score=best,
        learned=learned,
        notes=notes,
        git_commit=checkpoint.git_commit(),
        train_config=config.model_dump(),
    )
    manifest = checkpoint.save(out, result.params, manifest, result.history)
    print(notes)
    print(
        f"| {args.scenario} | {algorithm} | {result.env_steps / 1e6:.2f}M | {result.wall_time_s / 60:.1f} min | "
        f"{sp.mean:.2f} ± {sp.se:.2f} | {sp_greedy.mean:.2f} ± {sp_greedy.se:.2f} | {steps.mean():.1f} | "
        f"{pusher:.0f} | {pusher_steps} | {best} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
