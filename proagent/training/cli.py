"""`proagent train`: train a partner policy and write it to partners/<layout>/<algo>/.

    proagent train --algo sp|pbt|fcp|mep|cole --layout cramped_room --seed 0 --steps 1e7 [--encoder cnn|fast]
    proagent train --algo bc --layout cramped_room [--set epochs=100]   (human data; --steps unused)

``--steps`` is the whole env-step budget of the algorithm (all its stages and population members);
``--set`` overrides PPO fields and ``--algo-set`` the algorithm's own settings (e.g. ``pool_members=8``).

The encoder defaults to ``auto``: the paper's CNN when JAX sees a GPU, the fast 1x1 encoder on
CPU (the CNN trains ~10x slower there; see benchmarks/train_speed.py). Also runnable on its own as
``python -m proagent.training.cli ...`` (the same arguments).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ALGOS = ("sp", "pbt", "fcp", "mep", "cole", "bc", "human_proxy", "op", "state_aug")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--algo",
        choices=ALGOS,
        default="sp",
        help="sp: self-play PPO; pbt, fcp, mep, cole: population methods; bc: behaviour cloning of the human "
        "trials; human_proxy: a pool of style-rewarded PPO agents (partners human_proxy_<style>); op: Other-Play "
        "(permuted recipe ingredients); state_aug: state-augmented self-play (V2 paper, Algorithm 1)",
    )
    p.add_argument("--layout", required=True, help="layout name or file (e.g. cramped_room)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=float, default=10_000_000, help="environment steps (e.g. 1e7)")
    p.add_argument(
        "--encoder",
        choices=("auto", "cnn", "fast", "pointwise"),
        default="auto",
        help="auto: cnn on GPU, fast on CPU; on a partial-view (V2) layout, and for pointwise, the V2 paper's "
        "recurrent network (its CPU-sized sibling on CPU)",
    )
    p.add_argument(
        "--network-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a NetworkConfig field, e.g. memory=128 or pointwise='[128,128,8]' (JSON for lists)",
    )
    p.add_argument("--out", type=Path, default=None, help="checkpoint folder (default partners/<layout>/<algo>/)")
    p.add_argument("--num-envs", type=int, default=32, help="parallel environments")
    p.add_argument(
        "--shaping-horizon", type=float, default=None, help="env steps to anneal shaping to 0 (default steps/2)"
    )
    p.add_argument(
        "--updates-per-call", type=int, default=10, help="PPO updates per jitted call (progress granularity)"
    )
    p.add_argument("--eval-episodes", type=int, default=100, help="self-play episodes scored at the end")
    p.add_argument("--checkpoint-every", type=float, default=120.0, help="seconds between intermediate checkpoints")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run in --out from its last intermediate checkpoint (same arguments)",
    )
    p.add_argument(
        "--keep-best",
        type=int,
        default=0,
        metavar="CALLS",
        help="sp: keep the params of the best window of CALLS calls (sparse training score) and ship them if they "
        "evaluate higher than the final ones; the manifest records both (0: off)",
    )
    p.add_argument(
        "--init-from",
        type=Path,
        default=None,
        metavar="DIR",
        help="sp: fine-tune, starting from the params of checkpoint folder DIR (same layout, network and dynamics; "
        "a fresh optimizer and schedule); the manifest records DIR, its steps and its sha256",
    )
    p.add_argument(
        "--warm-start",
        choices=("none", "sp"),
        default="none",
        help="population methods: start the shipped agent(s) from partners/<layout>/sp (CPU-budget shortcut)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a PPOConfig field, e.g. ent_coef=0.01"
    )
    p.add_argument(
        "--algo-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="population methods: set one of the algorithm's own settings, e.g. pool_members=8 (fcp), "
        "population=8 (mep, pbt), generations=10 (cole), styles='[\"deliverer\"]' (human_proxy; JSON for lists)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train an RL partner (SP, PBT, FCP, MEP, COLE) and save it under partners/")
    add_arguments(p)
    p.set_defaults(run=run)


def resolve_encoder(choice: str) -> str:
    import jax

    if choice != "auto":
        return choice
    return "cnn" if jax.default_backend() == "gpu" else "fast"


def key_values(items: list[str], flag: str) -> dict[str, str]:
    """``--set``/``--algo-set`` items as a dict; an item without ``=`` is a ValueError naming it."""
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"{flag} {item!r}: expected KEY=VALUE")
        pairs[key] = value
    return pairs


def resolve_network(args: argparse.Namespace, layout: str):
    """The network: ``--encoder`` (auto: by backend and by whether the layout's agents see only a
    window, which needs the V2 recurrent network), then the ``--network-set`` overrides."""
    import jax
    from pydantic import ValidationError

    from envs.overcooked.presets import layout_dynamics
    from proagent.training.networks import V2_CPU_NETWORK, V2_PAPER_NETWORK, NetworkConfig

    partial_view = layout_dynamics(layout).get("agent_view_size") is not None
    if args.encoder == "pointwise" or (args.encoder == "auto" and partial_view):
        base = V2_PAPER_NETWORK if jax.default_backend() == "gpu" else V2_CPU_NETWORK
    else:
        base = NetworkConfig(encoder=resolve_encoder(args.encoder))
    pairs = key_values(getattr(args, "network_set", []), "--network-set")
    fields = {key: json.loads(value) if value[:1] in "[{" else value for key, value in pairs.items()}
    try:
        return NetworkConfig(**{**base.model_dump(), **fields})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"--network-set {where}: {first['msg']} (fields: {', '.join(NetworkConfig.model_fields)})") from None


def build_config(args: argparse.Namespace):
    from envs import get_layout
    from proagent.training.config import PPOConfig

    steps = int(args.steps)
    horizon = int(args.shaping_horizon) if args.shaping_horizon is not None else steps // 2
    overrides = key_values(args.set, "--set")
    layout = get_layout(args.layout).name
    return PPOConfig(
        layout=layout,
        seed=args.seed,
        total_steps=steps,
        num_envs=args.num_envs,
        shaping_horizon=horizon,
        network=resolve_network(args, layout),
        **overrides,
    )


def build_algo_config(args: argparse.Namespace):
    """The population algorithms' config: the same flags, PPO overrides passed through."""
    from proagent.training.algorithms import AlgoConfig

    ppo = build_config(args)  # validates layout and overrides the same way as sp
    # typed values from the validated config, so a manifest stores num_minibatches=8, not "8"
    overrides = {"num_envs": args.num_envs, **{key: getattr(ppo, key) for key in key_values(args.set, "--set")}}
    if args.shaping_horizon is not None:
        overrides["shaping_horizon"] = int(args.shaping_horizon)
    return AlgoConfig(
        layout=ppo.layout,
        seed=args.seed,
        total_steps=int(args.steps),
        network=ppo.network,
        ppo=overrides,
        updates_per_call=args.updates_per_call,
        eval_episodes=args.eval_episodes,
        warm_start=args.warm_start,
    )


def build_algo_settings(args: argparse.Namespace):
    """``--algo-set`` as the algorithm's settings model (None: its defaults). Values are strings that
    pydantic converts, or JSON for lists; an unknown key or a bad value is a ValueError naming it."""
    from pydantic import ValidationError

    from proagent.training.algorithms import SETTINGS

    if not args.algo_set:
        return None
    if args.algo not in SETTINGS:
        raise ValueError(f"--algo-set: {args.algo} has no algorithm settings (population methods: {sorted(SETTINGS)})")
    pairs = key_values(args.algo_set, "--algo-set")
    fields = {key: json.loads(value) if value[:1] in "[{" else value for key, value in pairs.items()}
    model = SETTINGS[args.algo]
    try:
        return model(**fields)
    except ValidationError as exc:
        known = ", ".join(model.model_fields)
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"--algo-set for {args.algo}: {where}: {first['msg']} (settings: {known})") from None


def run(args: argparse.Namespace) -> int:
    if args.resume and args.algo == "bc":
        print("error: --resume: bc trains in seconds and keeps no resume state; run it again", file=sys.stderr)
        return 2
    if args.keep_best and args.algo != "sp":
        print(f"error: --keep-best is for sp runs; {args.algo} ships its own final agent", file=sys.stderr)
        return 2
    if args.init_from is not None and args.algo != "sp":
        print(f"error: --init-from is for sp runs; {args.algo} starts from SP with --warm-start sp", file=sys.stderr)
        return 2
    if args.keep_best < 0:
        print(f"error: --keep-best must be 0 (off) or a number of calls, got {args.keep_best}", file=sys.stderr)
        return 2
    if args.algo == "bc":  # imitation, not PPO: its own config (--set sets BCConfig fields)
        return _run_bc(args)
    from envs import LayoutError
    from proagent.training import checkpoint

    try:
        config = build_config(args) if args.algo == "sp" else build_algo_config(args)
        settings = build_algo_settings(args)
    except (LayoutError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or checkpoint.partner_dir(config.layout, args.algo)
    print(
        f"training {args.algo} on {config.layout}: {config.total_steps:,} steps, encoder {config.network.encoder}, "
        f"device {checkpoint.device_description()} -> {out}",
        flush=True,
    )
    log = lambda line: print(line, flush=True)
    if args.algo == "sp":
        from proagent.training.trainer import train

        try:
            result = train(
                config,
                out,
                args.algo,
                args.updates_per_call,
                args.eval_episodes,
                args.checkpoint_every,
                log,
                args.resume,
                args.keep_best,
                args.init_from,
            )
        except ValueError as exc:  # e.g. --resume with other arguments, or an --init-from that does not fit
            print(f"error: {exc}", file=sys.stderr)
            return 2
        manifests = [result.manifest]
    else:
        from proagent.training.algorithms import TRAINERS
        from proagent.training.resume import ResumePolicy

        policy = ResumePolicy(resume=args.resume, every_s=args.checkpoint_every)
        try:
            result = TRAINERS[args.algo](config, out, log, settings, policy)
        except ValueError as exc:  # e.g. a run left to resume, or --resume with other arguments
            print(f"error: {exc}", file=sys.stderr)
            return 2
        manifests = result if isinstance(result, list) else [result]
    for manifest in manifests:
        sp = manifest.self_play
        print(f"saved {manifest.algorithm} ({manifest.train_wall_time_s:.0f}s; self-play {sp.mean:.1f} ± {sp.se:.1f})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="proagent train", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())


def _run_bc(args: argparse.Namespace) -> int:
    """``proagent train --algo bc``: --layout, --seed, --encoder (auto = fast), --out, --eval-episodes,
    --set KEY=VALUE for BCConfig fields (epochs, batch_size, lr, weight_decay, max_stay_run, val_fraction)."""
    from envs import LayoutError, get_layout
    from proagent.training import checkpoint
    from proagent.training.bc import BCConfig, train_bc
    from proagent.training.networks import NetworkConfig

    try:
        overrides: dict[str, str | None] = dict(key_values(args.set, "--set"))
        if overrides.get("max_stay_run", "").lower() == "none":
            overrides["max_stay_run"] = None
        encoder = "fast" if args.encoder == "auto" else args.encoder
        config = BCConfig(
            layout=get_layout(args.layout).name, seed=args.seed, network=NetworkConfig(encoder=encoder), **overrides
        )
        out = args.out or checkpoint.partner_dir(config.layout, "bc")
        manifest, _ = train_bc(config, out, args.eval_episodes, log=lambda line: print(line, flush=True))
    except (LayoutError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"saved {out}  (val accuracy {manifest.bc['val_accuracy']:.3f}; self-play {manifest.self_play.mean:.1f} ± {manifest.self_play.se:.1f})")
    return 0
