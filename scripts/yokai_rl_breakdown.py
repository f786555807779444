"""What a Yōkai RL checkpoint does in self-play, beyond its return: how often it ends early, how
many hints it places right and wrong, how many colour clusters it completes, and how long games last.

    python scripts/yokai_rl_breakdown.py random partners/yokai/9c_2p/sp [more checkpoint folders]
        [--layout 9c_2p] [--episodes 500] [--seed 0]

``random`` is uniform play over the legal actions (every logit equal). Each checkpoint plays both
seats, sampling as it was trained, ``--episodes`` games from fresh deals (one jitted, vmapped
scan). Prints one line per policy: mean ± standard error over games of eq. 4 (the return), win,
ended early, wrong and right hints, completed clusters and length in steps.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from envs.yokai import board
from envs.yokai.rules import HintStatus
from proagent.domains.yokai.rl_spec import YOKAI_RL
from proagent.training import checkpoint
from proagent.training.evaluate import seat_params
from proagent.training.networks import init_params, mask_logits, policy_fns

COLUMNS = ("score", "won", "early", "wrong", "right", "clusters", "length")


def _policy(source: str, layout: str):
    """(network, per-seat params): a checkpoint's, or a zeroed network (uniform over legal actions)."""
    env = YOKAI_RL.make_env(layout)
    if source == "random":
        network = YOKAI_RL.network("fast", layout, gpu=False)
        params = init_params(network, env.observe(env.reset(jax.random.PRNGKey(0))).shape[1:], jax.random.PRNGKey(0), env.num_actions)
        return network, (jax.tree.map(jnp.zeros_like, params),) * env.num_agents
    params, manifest = checkpoint.load(Path(source))
    if manifest.network.recurrent:
        raise SystemExit(f"{source}: a recurrent policy; this breakdown plays feedforward policies only")
    return manifest.network, seat_params(params, manifest.seat_groups, env.num_agents)


def breakdown(source: str, layout: str, episodes: int, seed: int) -> dict[str, np.ndarray]:
    """Per game: the columns of ``COLUMNS``."""
    env = YOKAI_RL.make_env(layout)
    network, team = _policy(source, layout)
    step_fn = policy_fns(network, env.num_actions).step
    colours = env.config.num_colours

    def game(key: jax.Array) -> dict[str, jax.Array]:
        k_reset, k_run = jax.random.split(key)

        def step(carry, k):
            state, length = carry
            obs, legal = env.observe(state), env.legal_actions(state)
            keys = jax.random.split(k, env.num_agents + 1)
            actions = [
                jax.random.categorical(keys[s], mask_logits(step_fn(team[s], None, obs[s][None])[1][0], legal[s]))
                for s in range(env.num_agents)
            ]
            out = env.step(keys[-1], state, jnp.stack(actions))
            return (out.state, length + (~state.game.done).astype(jnp.int32)), out.score

        (state, length), scores = jax.lax.scan(step, (env.reset(k_reset), jnp.int32(0)), jax.random.split(k_run, env.horizon))
        g = state.game
        correct = board.hint_correct(g.hint_colours, g.hint_card, g.card_colour)
        placed = g.hint_status == HintStatus.PLACED
        return {
            "score": scores.sum(),
            "won": g.won.astype(jnp.float32),
            "early": g.ended_early.astype(jnp.float32),
            "wrong": jnp.sum(placed & ~correct),
            "right": jnp.sum(placed & correct),
            "clusters": jnp.sum(board.colour_clusters(g.adjacency, g.card_colour, colours)),
            "length": length,
        }

    per_game = jax.jit(jax.vmap(game))(jax.random.split(jax.random.PRNGKey(seed), episodes))
    return {name: np.asarray(per_game[name], np.float64) for name in COLUMNS}


def _cell(values: np.ndarray) -> str:
    se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{values.mean():.2f} ± {se:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policies", nargs="+", help="checkpoint folders, or 'random'")
    parser.add_argument("--layout", default="9c_2p")
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"self-play on {args.layout}, {args.episodes} games each, mean ± se over games")
    print("| policy | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for source in args.policies:
        row = breakdown(source, args.layout, args.episodes, args.seed)
        print(f"| {source} | " + " | ".join(_cell(row[name]) for name in COLUMNS) + " |")


if __name__ == "__main__":
    main()
