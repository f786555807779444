"""Linear probes of shipped recurrent Yōkai partners (``proagent.domains.yokai.rl_probes``): for each
probed partner A, a colour probe fit on A's self-play memory (80% of the episodes), scored on the
held-out self-play episodes and on cross-play with each other named partner B (A in seat 0).

    python scripts/yokai_rl_probes.py --layout 9c_2p --partners sp_gru,sp_gru_s1 [--episodes 500] [--seed 0]

Prints a Markdown table: accuracy ± se over episodes (n episodes) per (A, B); the row B = A has no
cross-play column.
"""

from __future__ import annotations

import argparse
import sys

import jax

from proagent.domains.yokai.rl_probes import ProbeScore, probe_report, probe_samples
from proagent.domains.yokai.rl_spec import YOKAI_RL
from proagent.numbers import format_mean
from proagent.paths import PARTNERS_DIR, partner_dir
from proagent.training import checkpoint


def _text(score: ProbeScore) -> str:
    return format_mean(score.accuracy, score.se, score.episodes, 3)


def _load(layout: str, name: str):
    directory = partner_dir("yokai", layout, name, PARTNERS_DIR)
    if not (directory / checkpoint.MANIFEST_FILE).is_file():
        raise ValueError(f"no yokai partner {name!r} for {layout} (partners/yokai/{layout}/{name}/ holds none)")
    params, manifest = checkpoint.load(directory)
    if not manifest.network.recurrent:
        raise ValueError(f"partner {name!r} has no memory to probe (train one with --encoder pointwise)")
    return params, manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", default="9c_2p")
    parser.add_argument("--partners", required=True, help="comma-separated recurrent partner names")
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    names = [n for n in args.partners.split(",") if n]
    try:
        if args.episodes < 5:
            raise ValueError(f"--episodes must be at least 5, got {args.episodes}")
        loaded = {name: _load(args.layout, name) for name in names}
        networks = {m.network for _, m in loaded.values()}
        if len(networks) > 1:
            raise ValueError(f"partners {', '.join(names)} differ in network; cross-play here needs one network")
    except ValueError as error:
        print(f"yokai_rl_probes: {error}", file=sys.stderr)
        return 2
    print("| probed A | partner B | chance | fit (SP) | held-out SP | with B |")
    print("|---|---|---|---|---|---|")
    for i, (a, (params_a, manifest)) in enumerate(loaded.items()):
        env = YOKAI_RL.make_env(args.layout, record=manifest.dynamics)
        key = jax.random.PRNGKey(args.seed + 1000 * i)
        sp = probe_samples(env, manifest.network, params_a, params_a, key, args.episodes)
        # cross-play on deals the probe never saw: a probe that memorised the fitting games' deals
        # would otherwise read them again in cross-play and score above the held-out self-play
        xp_key = jax.random.fold_in(key, 1)
        for b, (params_b, _) in loaded.items():
            xp = sp if b == a else probe_samples(env, manifest.network, params_a, params_b, xp_key, args.episodes)
            report = probe_report(sp, xp, env.config.num_colours)
            with_b = "-" if b == a else _text(report.xp)
            cells = [f"{report.chance:.3f}", _text(report.fit), _text(report.sp_test), with_b]
            print(f"| {a} | {b} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
