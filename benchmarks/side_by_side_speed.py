"""Env-steps/s of K self-play learners trained side by side in one PPO program, against one learner.

    python benchmarks/side_by_side_speed.py [--layout grounded_coord_simple] [--members 1,2,4,8]
                                            [--num-envs 256] [--num-steps 256] [--minibatches 64]

Each learner has the OvercookedV2 paper's recipe to itself (``--num-envs`` envs x ``--num-steps``
steps, ``--minibatches`` minibatches, the paper's recurrent network or, with ``--network cpu``, its
CPU-sized sibling), so K learners
step K times the envs in one jitted update (``population.make_population_train`` with every learner
in self-play in its own envs: what ``proagent train --seeds K`` runs). On a GPU one small network's
update leaves the chip mostly idle, so K seeds should cost much less than K runs; the ratio column
says how much (K x the one-learner time = 1.00x: nothing gained). Each K is timed over ``--updates``
updates after a warm-up call (compilation excluded); it also prints the compile time.
"""

from __future__ import annotations

import argparse
import time

import jax

from proagent.domains.overcooked.rl_spec import OVERCOOKED_RL
from proagent.training.algorithms.pairings import self_play
from proagent.training.config import PPOConfig
from proagent.training.networks import V2_CPU_NETWORK, V2_PAPER_NETWORK
from proagent.training.population import Pairing, make_population_train


def time_members(config: PPOConfig, members: int, updates: int) -> tuple[float, float]:
    """(seconds per update, compile + first-call seconds) of ``members`` side-by-side learners."""
    env = OVERCOOKED_RL.make_env(config.layout)
    total = config.model_copy(update={"num_envs": members * config.num_envs})
    pairing = Pairing(num_learners=members, slots=self_play(members, total.num_envs))
    init, update = make_population_train(total, pairing, env, updates)
    runner = init(jax.random.PRNGKey(0))
    t0 = time.perf_counter()
    runner, metrics = update(runner)
    jax.block_until_ready(metrics)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    runner, metrics = update(runner)
    jax.block_until_ready(metrics)
    return (time.perf_counter() - t0) / updates, first


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layout", default="grounded_coord_simple")
    p.add_argument("--members", default="1,2,4,8", help="comma-separated learner counts; the first is the baseline")
    p.add_argument("--num-envs", type=int, default=256, help="envs per learner")
    p.add_argument("--num-steps", type=int, default=256)
    p.add_argument("--minibatches", type=int, default=64, help="minibatches per learner and epoch")
    p.add_argument("--updates", type=int, default=2, help="timed PPO updates per K (one jitted call)")
    p.add_argument(
        "--network", choices=("paper", "cpu"), default="paper", help="the V2 paper's network or its CPU-sized sibling"
    )
    args = p.parse_args(argv)
    network = V2_PAPER_NETWORK if args.network == "paper" else V2_CPU_NETWORK
    config = PPOConfig(
        layout=args.layout,
        num_envs=args.num_envs,
        num_steps=args.num_steps,
        num_minibatches=args.minibatches,
        network=network,
    )
    dev = jax.devices()[0]
    print(
        f"device {dev.platform}:{getattr(dev, 'device_kind', '')}  layout {args.layout}  per learner "
        f"{args.num_envs} envs x {args.num_steps} steps, {args.minibatches} minibatches; network {network}",
        flush=True,
    )
    base = None
    for members in (int(m) for m in args.members.split(",")):
        per_update, first = time_members(config, members, args.updates)
        sps = members * config.steps_per_update / per_update
        base = base or sps / members
        print(
            f"K={members:>2}: {sps:>12,.0f} env-steps/s  ({sps / members:>10,.0f} a learner)  "
            f"{sps / base:5.2f}x one learner's throughput  first call {first:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
