"""Cross-play table of the trained zoo (every partner with every other, both seats) per layout.

    python scripts/zoo_crossplay.py [--episodes 10] [--seed 0] [--out docs/results/zoo_crossplay_trained] [--root partners]
    python scripts/zoo_crossplay.py --world yokai --layouts 9c_2p --episodes 200 --out docs/results/zoo_crossplay_yokai

``--root`` scores another zoo laid out like partners/ (<root>/overcooked/<layout>/<name>/), e.g. candidate
checkpoints next to the shipped ones before they replace them. ``--heldout a,b`` names partners
kept out of "the rest of the zoo" and summarised on their own: each algorithm's mean with partners
it was not trained with or derived from (a zero-shot test).

Writes <out>.md (per-layout matrices of mean ± standard error over both seats, and each
algorithm's average with the rest of the zoo) and <out>.json (every episode's score).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Literal

import numpy as np

from proagent.numbers import format_mean
from proagent.paths import PARTNERS_DIR
from proagent.training.crossplay import CrossPlay, zoo_crossplay

LAYOUTS = ("cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit")
FOCUS = ("sp", "pbt", "fcp", "mep", "cole", "hsp")
Group = Literal["rest", "heldout", "independent"]
INDEPENDENT_NOTE = (
    "The rest of the zoo minus the partners that share the agent's ancestry: warm-started from it or trained beside "
    "it, its parent, or sharing its parent (`train_config.warm_start` or `details.trained_with_partner` of the "
    "manifests). Each agent's partner set differs; `–`: none left."
)


def mean_se(x: np.ndarray) -> str:
    """``mean ± se (n=…)`` by the one formatter (no ± from a single episode)."""
    se = x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return format_mean(float(x.mean()), float(se), len(x))


def layout_table(cp: CrossPlay) -> list[str]:
    lines = [f"### {cp.layout}", "", "| agent \\ partner | " + " | ".join(cp.names) + " |", "|---" * (len(cp.names) + 1) + "|"]
    for a in cp.names:
        lines.append(f"| **{a}** | " + " | ".join(mean_se(cp.both_seats(a, b)) for b in cp.names) + " |")
    return lines + [""]


def with_partners(cp: CrossPlay, agent: str, partners: list[str]) -> np.ndarray:
    """The agent's mean score with each of ``partners`` (not itself), both seats."""
    return np.array([cp.both_seats(agent, b).mean() for b in partners if b != agent])


def summary_partners(t: CrossPlay, algo: str, heldout: set[str], group: Group) -> list[str]:
    """``algo``'s partners in ``group``: the rest of the zoo (all but the held-out ones), the held-out
    ones, or the independent ones (the rest of the zoo minus partners sharing ``algo``'s ancestry)."""
    if group == "heldout":
        return [b for b in t.names if b in heldout]
    rest = [b for b in t.names if b not in heldout]
    return [b for b in rest if not t.related(algo, b)] if group == "independent" else rest


def summary_rows(tables: list[CrossPlay], world: str) -> list[str]:
    """The agents the summaries list: Overcooked's methods of the papers' tables (``FOCUS``, "–"
    where one is missing), every partner of another world's zoo."""
    if world == "overcooked":
        return list(FOCUS)
    return sorted({name for t in tables for name in t.names})


def summary(tables: list[CrossPlay], heldout: set[str], group: Group, rows: list[str]) -> list[str]:
    """Each of ``rows``' mean score with its partners of ``group`` (see ``summary_partners``)."""
    lines = ["| algorithm | " + " | ".join(t.layout for t in tables) + " | mean |", "|---" * (len(tables) + 2) + "|"]
    for algo in rows:
        cells, means = [], []
        for t in tables:
            x = with_partners(t, algo, summary_partners(t, algo, heldout, group)) if algo in t.names else np.array([])
            cells.append(f"{x.mean():.1f}" if x.size else "–")
            means += [x.mean()] if x.size else []
        overall = f"{np.mean(means):.1f}" if means else "–"
        lines.append(f"| {algo} | " + " | ".join(cells) + f" | {overall} |")
    return lines


def heldout_detail(t: CrossPlay, heldout: set[str]) -> list[str]:
    """Per layout, each agent's mean with every held-out partner (both seats) and pooled over all
    their episodes (mean ± standard error): the per-partner spread the one-number summary hides."""
    partners = [b for b in t.names if b in heldout]
    if not partners:
        return []
    lines = [f"### {t.layout}", "", "| agent | " + " | ".join(partners) + " | pooled |", "|---" * (len(partners) + 2) + "|"]
    for agent in [a for a in t.names if a not in heldout]:
        episodes = [t.both_seats(agent, b) for b in partners]
        cells = [f"{x.mean():.1f}" for x in episodes]
        lines.append(f"| {agent} | " + " | ".join(cells) + f" | {mean_se(np.concatenate(episodes))} |")
    return lines + [""]


def default_out(world: str) -> Path:
    """The shipped page of ``world``'s zoo, as docs/results/README.md names it: another world's
    table never lands on the Overcooked page."""
    return Path("docs/results") / ("zoo_crossplay_trained" if world == "overcooked" else f"zoo_crossplay_{world}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--world", default="overcooked", help="the world whose partners/<world>/ zoo plays")
    parser.add_argument("--layouts", default=None, help=f"comma-separated (overcooked's default: {','.join(LAYOUTS)})")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the page without suffix (default: docs/results/zoo_crossplay_trained for overcooked, "
        "docs/results/zoo_crossplay_<world> otherwise, the shipped pages' names)",
    )
    parser.add_argument("--root", type=Path, default=PARTNERS_DIR, help="zoo folder laid out like partners/")
    parser.add_argument("--heldout", default="", help="comma-separated partner names summarised apart")
    args = parser.parse_args()
    heldout = {name for name in args.heldout.split(",") if name}
    if args.layouts is None and args.world != "overcooked":
        parser.error(f"--layouts is required for --world {args.world}")
    args.out = args.out or default_out(args.world)
    tables, walls = [], {}
    for layout in (args.layouts or ",".join(LAYOUTS)).split(","):
        t0 = time.perf_counter()
        tables.append(zoo_crossplay(layout, args.episodes, args.seed, args.root, args.world))
        walls[layout] = round(time.perf_counter() - t0, 1)
        print(f"{layout}: {len(tables[-1].names)} partners in {walls[layout]} s", flush=True)
    command = " ".join(["python scripts/zoo_crossplay.py", *sys.argv[1:]])
    rows = summary_rows(tables, args.world)
    intro = (
        f"`{command}`: every trained partner with every other on each layout, {args.episodes} whole episodes "
        "in each seat (cells: mean ± standard error over both seats, 2 x episodes), stochastic actions as trained."
    )
    md = ["# Cross-play of the trained zoo", "", intro, "",
          "## Average score with the rest of the zoo (partners other than itself, both seats)", "",
          *summary(tables, heldout, "rest", rows), "",
          "## Average score with the independent rest of the zoo (zero-shot)", "",
          INDEPENDENT_NOTE, "",
          *summary(tables, heldout, "independent", rows), ""]  # fmt: skip
    if heldout:
        md += [f"## Average score with the held-out partners ({', '.join(sorted(heldout))}; both seats)", "",
               *summary(tables, heldout, "heldout", rows), "",
               "## Each partner with the held-out partners, per layout (both seats; pooled: mean ± se)", ""]  # fmt: skip
        md += [line for t in tables for line in heldout_detail(t, heldout)]
    for t in tables:
        md += layout_table(t)
        if t.skipped:
            md += [f"(skipped, a network per seat: {', '.join(t.skipped)})", ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".md").write_text("\n".join(md) + "\n")
    args.out.with_suffix(".json").write_text(json.dumps({"wall_s": walls, "tables": [t.model_dump() for t in tables]}))
    print("\n".join(md))


if __name__ == "__main__":
    main()
