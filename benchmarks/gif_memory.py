"""Does an episode's GIF cost memory that grows with the horizon? Peak memory of a played episode
whose states are all kept for the GIF at the end (the old way) against `GifRecorder`, which draws
each chunk of states into frames as they come, at two horizons, in the same run.

    python benchmarks/gif_memory.py                    # counter_circuit, greedy + greedy, 400 and 1600 steps
    python benchmarks/gif_memory.py --horizons 200,800

Each variant plays in its own child process (peak RSS is per process): the scripted greedy pair
through the core runner (`run_episode`), then the GIF is written. Reported: each child's peak RSS
and, per variant, the growth per 1,000 steps between the two horizons. Target: the recorder grows
by at most a tenth of what keeping every state does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RATIO = 0.1


def child(variant: str, horizon: int, layout: str) -> None:
    """Play one episode, write its GIF, print the peak RSS in MiB as JSON."""
    from proagent.domains import get_domain
    from proagent.runner.episode import run_episode
    from proagent.world.kit.pictures import GifRecorder, save_gif

    domain = get_domain("overcooked")
    env = domain.make_env(layout, horizon)
    rendering = domain.capabilities.rendering
    assert rendering is not None
    team = [domain.make_partner("greedy", env) for _ in range(env.num_agents)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "episode.gif"
        sink = GifRecorder(env, rendering, path) if variant == "recorder" else []
        asyncio.run(run_episode(env, domain, team, 0, 0, 0, states=sink))
        if isinstance(sink, GifRecorder):
            sink.save()
        else:  # every state kept, then drawn at the end
            save_gif(env, rendering, sink, path)
    print(json.dumps({"peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def peak(variant: str, horizon: int, layout: str) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--child", variant, "--horizons", str(horizon), "--layout", layout],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["peak_mib"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--horizons", default="400,1600")
    parser.add_argument("--layout", default="counter_circuit")
    parser.add_argument("--child", choices=("states", "recorder"), default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    horizons = [int(h) for h in args.horizons.split(",")]
    if args.child is not None:
        child(args.child, horizons[0], args.layout)
        return 0
    short, long = horizons
    growth = {}
    for variant in ("states", "recorder"):
        a, b = peak(variant, short, args.layout), peak(variant, long, args.layout)
        growth[variant] = (b - a) / (long - short) * 1000
        print(
            f"{variant:9s}: peak {a:7.1f} MiB at {short} steps, {b:7.1f} MiB at {long}: {growth[variant]:+.1f} MiB per 1,000 steps"
        )
    ratio = growth["recorder"] / growth["states"] if growth["states"] > 0 else float("nan")
    print(f"growth ratio recorder / every state kept: {ratio:.3f} (target <= {TARGET_RATIO})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
