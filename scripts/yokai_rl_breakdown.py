"""What a Yōkai RL checkpoint does in self-play or with a partner, beyond its return: how often the
game ends early, how many hints are placed right and wrong, how many colour clusters end complete,
and how long games last.

    python scripts/yokai_rl_breakdown.py random partners/yokai/9c_2p/sp [more checkpoint folders]
        [--with partners/yokai/9c_2p/op] [--layout 9c_2p] [--episodes 500] [--seed 0]
        [--group colour_rotation|colour|rotation]

``random`` is uniform play over the legal actions (every logit equal). Each policy plays both
seats (self-play), or with ``--with`` each policy plays seat 0 for ``--episodes`` games and seat 1
for as many, the partner in the other seat (cross-play, games pooled). Policies sample as trained;
each batch of games is one jitted, vmapped scan from fresh deals. Prints one line per policy: mean ±
standard error over games of eq. 4 (the return), win, ended early, wrong and right hints,
completed clusters, length in steps, and then each real colour's share of games that end with its
cards as one cluster ("colour k"): a policy that favours some colours by how it sees them (Other-Play
trained with every seat's colours permuted can learn to) shows it here in self-play, where both seats
see the same colours. ``--group`` plays the games Other-Play trains on instead: every seat sees them
through its own symmetry of that group, drawn per game (the same score there and in the plain game
means the policy does not lean on how the seats' views differ).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from envs.yokai import board
from envs.yokai.rules import HintStatus
from proagent.domains.yokai.rl_spec import GROUPS, YOKAI_RL, SymmetricState
from proagent.training import checkpoint
from proagent.training.evaluate import seat_params
from proagent.training.networks import init_params, mask_logits, policy_fns

COLUMNS = ("score", "won", "early", "wrong", "right", "clusters", "length")


def _policy(source: str, layout: str, seat: int):
    """(policy step function, params) of ``seat``: a checkpoint's, or a zeroed network (uniform over legal actions)."""
    env = YOKAI_RL.make_env(layout)
    if source == "random":
        network = YOKAI_RL.network("fast", layout, gpu=False)
        params = init_params(network, env.observe(env.reset(jax.random.PRNGKey(0))).shape[1:], jax.random.PRNGKey(0), env.num_actions)
        return policy_fns(network, env.num_actions).step, jax.tree.map(jnp.zeros_like, params)
    params, manifest = checkpoint.load(Path(source))
    if manifest.network.recurrent:
        raise SystemExit(f"{source}: a recurrent policy; this breakdown plays feedforward policies only")
    return policy_fns(manifest.network, env.num_actions).step, seat_params(params, manifest.seat_groups, env.num_agents)[seat]


def columns(layout: str) -> tuple[str, ...]:
    """``COLUMNS``, then one "colour k" column per colour of ``layout``."""
    return (*COLUMNS, *(f"colour {k}" for k in range(YOKAI_RL.make_env(layout).config.num_colours)))


def breakdown(
    seats: tuple[str, ...], layout: str, episodes: int, seed: int, group: str | None = None
) -> dict[str, np.ndarray]:
    """Per game, ``seats[s]`` playing seat s (each through its own symmetry of ``group``, if given):
    the columns of ``columns(layout)``."""
    env = YOKAI_RL.make_env(layout)
    if group is not None:
        env = YOKAI_RL.symmetries.permuted(env, None, group)[0]
    team = [_policy(source, layout, seat) for seat, source in enumerate(seats)]
    colours = env.config.num_colours

    def game(key: jax.Array) -> dict[str, jax.Array]:
        k_reset, k_run = jax.random.split(key)

        def step(carry, k):
            state, length = carry
            obs, legal = env.observe(state), env.legal_actions(state)
            keys = jax.random.split(k, env.num_agents + 1)
            actions = [
                jax.random.categorical(keys[s], mask_logits(step_fn(params, None, obs[s][None])[1][0], legal[s]))
                for s, (step_fn, params) in enumerate(team)
            ]
            out = env.step(keys[-1], state, jnp.stack(actions))
            return (out.state, length + (~_game(state).done).astype(jnp.int32)), out.score

        (state, length), scores = jax.lax.scan(step, (env.reset(k_reset), jnp.int32(0)), jax.random.split(k_run, env.horizon))
        g = _game(state)
        correct = board.hint_correct(g.hint_colours, g.hint_card, g.card_colour)
        placed = g.hint_status == HintStatus.PLACED
        clusters = board.colour_clusters(g.adjacency, g.card_colour, colours)
        return {
            "score": scores.sum(),
            "won": g.won.astype(jnp.float32),
            "early": g.ended_early.astype(jnp.float32),
            "wrong": jnp.sum(placed & ~correct),
            "right": jnp.sum(placed & correct),
            "clusters": jnp.sum(clusters),
            "length": length,
            **{f"colour {k}": clusters[k].astype(jnp.float32) for k in range(colours)},
        }

    per_game = jax.jit(jax.vmap(game))(jax.random.split(jax.random.PRNGKey(seed), episodes))
    return {name: np.asarray(values, np.float64) for name, values in per_game.items()}


def _game(state):
    """The game inside a plain or a symmetric env's state."""
    return state.world.game if isinstance(state, SymmetricState) else state.game


def _cell(values: np.ndarray) -> str:
    se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{values.mean():.2f} ± {se:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policies", nargs="+", help="checkpoint folders, or 'random'")
    parser.add_argument("--with", dest="partner", help="a partner (checkpoint folder or 'random') in the other seat")
    parser.add_argument("--layout", default="9c_2p")
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--group", choices=GROUPS, help="play with every seat's view permuted by this symmetry group")
    args = parser.parse_args()
    setting = f"with {args.partner}, {2 * args.episodes} games each (both seats)" if args.partner else f"self-play, {args.episodes} games each"
    view = f", each seat through its own {args.group} symmetry" if args.group else ""
    print(f"{args.layout}, {setting}{view}, mean ± se over games")
    names = columns(args.layout)
    print("| policy | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for source in args.policies:
        if args.partner is None:
            row = breakdown((source, source), args.layout, args.episodes, args.seed, args.group)
        else:
            first = breakdown((source, args.partner), args.layout, args.episodes, args.seed, args.group)
            second = breakdown((args.partner, source), args.layout, args.episodes, args.seed + 1, args.group)
            row = {name: np.concatenate([first[name], second[name]]) for name in names}
        print(f"| {source} | " + " | ".join(_cell(row[name]) for name in names) + " |")


if __name__ == "__main__":
    main()
