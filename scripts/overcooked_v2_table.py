"""The OvercookedV2 table, regenerated: the shipped V2 partners in self-play and cross-play, and
ProAgent with each of them (both seats), next to the V2 paper's Table 2.

    python scripts/overcooked_v2_table.py                        # RL cross-play + ProAgent (loopback)
    python scripts/overcooked_v2_table.py --llm embedded --episodes 1 --horizon 100
    python scripts/overcooked_v2_table.py --llm openai/gpt-4o-mini   # a real model (costs money)
    python scripts/overcooked_v2_table.py --skip-proagent           # the RL block only (minutes)

RL block: every trained partner of each layout (partners/overcooked/<layout>/<name>, the same network) plays
every other and itself in one vmapped program (`proagent.training.crossplay`), ``--rl-episodes``
episodes per ordered pair. SP is a partner with itself; XP is its mean with every *other* shipped
partner of the layout, both seats (cross-method here: the paper's XP pairs seeds of one method,
which needs several seeds per method: ``<method>_s<seed>`` folders are counted as the same method
and reported as "XP same method" when present). ProAgent block: `proagent eval` of ProAgent with
each partner, with the recipe-aware scripted chef (``recipe_greedy``: a teammate that shares
neither ProAgent's knowledge text nor an RL convention) and with itself, ``--episodes`` per seat, one run folder per layout under runs/ (each
layout has its own partners), so every finished episode is kept: ``--resume FOLDER`` (repeatable)
finishes a stopped layout's run with `proagent eval --resume` and reuses a finished one. With the loopback responder (the V2
test double in tests/support, no language model) the ProAgent numbers measure the framework and that
responder, not a model. Writes ``<out>.md`` (default docs/overcooked_v2_table.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

import numpy as np

from envs.overcooked.presets import COORDINATION_LAYOUTS
from proagent.cli import main as cli
from proagent.eval.records import read_records
from proagent.eval.stats import mean_se
from proagent.paths import PROJECT_ROOT
from proagent.tables_out import without_resume

LAYOUTS = COORDINATION_LAYOUTS
SCRIPTED = ("recipe_greedy",)  # the scripted partners that play V2 kitchens
PAPER = PROJECT_ROOT / "data" / "overcooked_v2_paper_table2.json"


def method_of(name: str) -> str:
    """``sp_s1`` -> ``sp``: seeds of one method."""
    head, sep, tail = name.rpartition("_s")
    return head if sep and tail.isdigit() else name


def rl_rows(layout: str, episodes: int, seed: int) -> list[dict]:
    """SP, XP (other partners) and XP (same method, other seeds) of each shipped partner of ``layout``."""
    from proagent.training.crossplay import zoo_crossplay

    try:
        xp = zoo_crossplay(layout, episodes=episodes, seed=seed)
    except (ValueError, FileNotFoundError):
        return []
    scores = np.asarray(xp.scores)  # (n, n, episodes)
    rows = []
    for i, name in enumerate(xp.names):
        others = [j for j in range(len(xp.names)) if j != i]
        same = [j for j in others if method_of(xp.names[j]) == method_of(name)]
        sp = mean_se(scores[i, i].tolist())
        cross, kin = mean_se(both_seats(scores, i, others)), mean_se(both_seats(scores, i, same))
        gap = sp.mean - cross.mean if sp.n and cross.n else None
        rows.append({"layout": layout, "name": name, "sp": sp, "xp": cross, "xp_same": kin, "gap": gap})
    return rows


def both_seats(scores: np.ndarray, i: int, partners: list[int]) -> list[float]:
    """Every episode of partner ``i`` with each of ``partners``, in seat 0 and in seat 1."""
    return [float(v) for j in partners for v in np.concatenate([scores[i, j], scores[j, i]])]


def run_proagent(args: argparse.Namespace, partners: dict[str, list[str]]) -> list[Path]:
    """`proagent eval` of ProAgent with each layout's partners and itself: one run folder a layout,
    the ``--resume`` folders finished (not replayed) and reused for their layouts."""
    folders = []
    for folder in args.resume:
        if cli(["eval", "--resume", str(folder), "--progress", "off"]) != 0:
            raise SystemExit(f"eval --resume {folder} failed")
        folders.append(folder)
    done = {r.layout for folder in folders for r in read_records(folder / "episodes.jsonl")}
    for layout in args.layouts:
        if layout not in done:
            folders.append(_eval_layout(args, layout, [*partners[layout], *SCRIPTED, "proagent"]))
    return folders


def _eval_layout(args: argparse.Namespace, layout: str, names: list[str]) -> Path:
    name = f"overcooked-v2-{layout}-{args.llm.replace('/', '_')}"
    argv = [
        "eval", "--name", name, "--layouts", layout, "--partners", ",".join(names),
        "--seats", "0,1", "--episodes", str(args.episodes), "--horizon", str(args.horizon), "--progress", "off",
        "--runs-dir", str(args.runs_dir), "--llm", args.llm,
    ]  # fmt: skip
    server = contextlib.nullcontext(None)
    if args.llm == "loopback":
        sys.path.insert(0, str(PROJECT_ROOT))  # the test doubles: tests.support (never tests/ itself)
        from tests.support.fake_server import FakeChatServer
        from tests.support.loopback import loopback_args
        from tests.support.responders.overcooked import overcooked_answer

        server = FakeChatServer(delay_s=0.0, responder=overcooked_answer)
    with server as fake:
        if fake is not None:
            argv[argv.index("--llm") :] = loopback_args(fake.url)
        code = cli(argv)
    if code != 0:
        raise SystemExit(f"eval failed ({code})")
    return max(args.runs_dir.glob(f"*-{name}"), key=lambda p: p.stat().st_mtime)


def proagent_table(folders: list[Path], layouts: list[str]) -> str:
    records = [r for folder in folders for r in read_records(folder / "episodes.jsonl")]
    lines = ["| layout | partner | seat 0 | seat 1 | both seats |", "|---|---|---|---|---|"]
    for layout in layouts:
        for partner in sorted({r.partner for r in records if r.layout == layout}):
            mine = [r for r in records if r.layout == layout and r.partner == partner]
            cells = [mean_se([r.score for r in mine if r.seat in seats]).text(1) for seats in ({0}, {1}, {0, 1})]
            lines.append(f"| {layout} | {partner} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rl_table(rows: list[dict], paper: dict) -> str:
    lines = [
        "| layout | partner | SP (ours) | XP vs other partners | XP same method | gap | paper SP | paper XP | paper gap |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ref = paper["layouts"].get(r["layout"], {}).get(method_of(r["name"]))
        fmt = lambda pair: f"{pair[0]} ± {pair[1]} (sd)" if pair else "-"
        gap = "-" if r["gap"] is None else f"{r['gap']:.1f}"
        lines.append(
            f"| {r['layout']} | {r['name']} | {r['sp'].text(1)} | {r['xp'].text(1)} | {r['xp_same'].text(1)} | {gap} | "
            + " | ".join(fmt(ref[k]) if ref else "-" for k in range(3))
            + " |"
        )
    return "\n".join(lines)


REACH = 0.9  # a seed "reaches" the paper when its SP is at least this share of the paper's SP mean


def seed_table(rows: list[dict], paper: dict) -> str:
    """Per layout and method: how many shipped seeds reach ``REACH`` x the paper's self-play, the
    best seed's share of it, and the seeds' cross-play with each other (mean of each seed's "XP
    same method" mean) next to the paper's XP, which pairs seeds of one method the same way."""
    lines = [
        f"| layout | method | seeds shipped | seeds >= {REACH}x paper SP | best SP / paper SP | XP among seeds | paper XP |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["layout"], method_of(r["name"])), []).append(r)
    for (layout, method), seeds in groups.items():
        ref = paper["layouts"].get(layout, {}).get(method)
        sps = [r["sp"].mean for r in seeds if r["sp"].n]
        kin = [r["xp_same"].mean for r in seeds if r["xp_same"].n]
        reach = f"{sum(sp >= REACH * ref[0][0] for sp in sps)}" if ref and sps else "-"
        best = f"{round(max(sps) / ref[0][0], 2) + 0.0:.2f}x" if ref and sps and ref[0][0] > 0 else "-"  # never -0.00x
        among = f"{np.mean(kin):.1f} (n={len(kin)} seeds)" if kin else "- (one seed)"
        paper_xp = f"{ref[1][0]} ± {ref[1][1]} (sd)" if ref else "-"
        lines.append(f"| {layout} | {method} | {len(seeds)} | {reach} | {best} | {among} | {paper_xp} |")
    return "\n".join(lines)


def shipped(layout: str, methods: list[str] | None = None) -> list[str]:
    """Every partner shipped for ``layout``, or with ``methods`` only each method's best seed by its
    manifest (``sp`` -> ``sp_s2`` on test_time_wide): a short run plays the partners worth meeting."""
    from proagent.training.partner import available_rl_partners, best_seed

    if methods is None:
        return available_rl_partners("overcooked", layout)
    chosen = (best_seed("overcooked", layout, method) for method in methods)
    return [name for name in chosen if name is not None]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--llm", default="loopback", help="'loopback' (the tests' Overcooked responder), 'embedded' or a litellm id"
    )
    p.add_argument("--layouts", type=lambda s: s.split(","), default=list(LAYOUTS))
    p.add_argument("--episodes", type=int, default=1, help="ProAgent episodes per partner and seat")
    p.add_argument("--horizon", type=int, default=400, help="steps per ProAgent episode (the paper's 400)")
    p.add_argument("--rl-episodes", type=int, default=50, help="RL cross-play episodes per ordered pair")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-proagent", action="store_true")
    p.add_argument(
        "--partners", type=lambda s: s.split(","), default=None,
        help="ProAgent's RL partners: these methods' best shipped seed per layout (default: every shipped partner)",
    )  # fmt: skip
    p.add_argument("--out", type=Path, default=Path("docs/overcooked_v2_table"))
    p.add_argument("--runs-dir", type=Path, default=Path("runs"))
    p.add_argument(
        "--resume", type=Path, action="append", default=[], help="finish (or reuse) this earlier layout's run folder"
    )
    args = p.parse_args(argv)
    paper = json.loads(PAPER.read_text())
    partners = {layout: shipped(layout, args.partners) for layout in args.layouts}
    rows = [row for layout in args.layouts for row in rl_rows(layout, args.rl_episodes, args.seed)]
    folders = [] if args.skip_proagent else run_proagent(args, partners)
    model = "the V2 loopback responder (scripted, no language model)" if args.llm == "loopback" else f"`{args.llm}`"
    command = " ".join(without_resume(argv if argv is not None else sys.argv[1:]))
    reused = " (this page's run reused the episodes of earlier run folders with `--resume`)" if args.resume else ""
    text = (
        f"# OvercookedV2: shipped partners{'' if args.skip_proagent else ' and ProAgent'}\n\n"
        f"Regenerate: `python scripts/overcooked_v2_table.py {command}`{reused}.\n\n"
        f"## RL partners ({args.rl_episodes} episodes of 400 steps per ordered pair, mean ± standard error; "
        "paper: 10 seeds, mean ± standard deviation)\n\n"
        + (rl_table(rows, paper) if rows else "No V2 partners are shipped for these layouts.")
        + "\n"
    )
    if rows:
        text += (
            f"\n## Seeds per method (SP as above; a seed reaches the paper at {REACH}x its SP mean)\n\n"
            + seed_table(rows, paper)
            + "\n"
        )
    if folders:
        text += (
            f"\n## ProAgent with {model}, {args.episodes} episode(s) of {args.horizon} steps per partner and seat\n\n"
            f"Run folders: {', '.join(f'`{f.name}`' for f in folders)}.\n\n" + proagent_table(folders, args.layouts) + "\n"
        )
    args.out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
