"""Measure each world's uniform-random baseline: the self-play score of a policy whose every
parameter is zero (all logits equal: uniform over the legal actions), per layout with shipped
checkpoints, written to data/random_baselines.json. `proagent partners` flags a checkpoint "at
chance" against this number, not against 0: a world whose scores are negative (Yōkai's random
play scores about -4) would otherwise call every partner above random "at chance".

    PYTHONPATH=. python scripts/random_baselines.py                   # every world, every layout
    PYTHONPATH=. python scripts/random_baselines.py --world yokai --episodes 500
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from proagent.paths import DATA_DIR, PARTNERS_DIR

OUT = DATA_DIR / "random_baselines.json"


def trained_layouts(world: str) -> list[str]:
    """The layouts ``world`` ships checkpoints for (partners/<world>/<layout>/<name>/manifest.json)."""
    return sorted({p.parent.parent.name for p in (PARTNERS_DIR / world).glob("*/*/manifest.json")})


def measure(world: str, layout: str, episodes: int, seed: int) -> dict:
    """The uniform-random self-play score of ``layout``: mean, standard error, games, seconds."""
    import jax

    from proagent.training.evaluate import self_play_score
    from proagent.training.networks import init_params
    from proagent.training.worlds import rl_spec

    spec = rl_spec(world)
    env, net = spec.make_env(layout), spec.network("auto", layout, False)
    obs_shape = env.observe(env.reset(jax.random.PRNGKey(0))).shape[1:]
    zeros = jax.tree.map(lambda x: 0 * x, init_params(net, obs_shape, jax.random.PRNGKey(0), env.num_actions))
    started = time.perf_counter()
    score = self_play_score(env, net, zeros, seed=seed, episodes=episodes)
    return {"mean": round(score.mean, 4), "se": round(score.se, 4), "episodes": score.episodes,
            "steps": env.horizon, "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--world", action="append", help="only this world (repeatable); default: every world with checkpoints")
    p.add_argument("--episodes", type=int, default=200, help="self-play games per layout")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    worlds = args.world or sorted(d.name for d in PARTNERS_DIR.iterdir() if d.is_dir() and trained_layouts(d.name))
    data = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
    data["how"] = (
        "uniform random over the legal actions (a policy with every parameter zero) in self-play; "
        f"scripts/random_baselines.py, seed {args.seed}"
    )
    for world in worlds:
        for layout in trained_layouts(world):
            found = measure(world, layout, args.episodes, args.seed)
            data.setdefault("layouts", {}).setdefault(world, {})[layout] = found
            print(f"{world} {layout}: {found}", file=sys.stderr)
            args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
