"""EmCoop's MA-Crafter table, regenerated: topology x difficulty, with and without environment
feedback in the leader's messages (EmCoop's RQ3), ProAgent in every seat.

    python scripts/macrafter_table.py                      # the MA-Crafter loopback double (docs: 3 worlds each, 60 steps)
    python scripts/macrafter_table.py --llm embedded --seeds 1 --horizon 30 --out docs/macrafter_topologies_embedded
    python scripts/macrafter_table.py --llm openai/gpt-4o-mini   # a real model (costs money)

Cells: difficulty (easy: 2 agents, target coal; medium: 3, iron; hard: 4, diamond; random worlds
``random:<difficulty>:<seed>``, ``--seeds`` of each) x topology (individual, debate, centralized,
decentralized) x feedback (off; on for the topologies that send messages: individual sends none,
so nothing carries the snapshot there). One episode per world from seat 0. It runs `proagent eval`
twice, without and with ``--feedback`` (two run folders under runs/ with every record, report and
plot), and writes ``<out>.md`` with the table and ``<out>_score.png``, ``<out>_failures.png``,
``<out>_dz.png``, ``<out>_radar.png``. With the loopback responder the numbers measure the
framework and the responder's convention, not a language model; the page says so.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from proagent.cli import main as cli
from proagent.eval.process_plots import bars_by_difficulty, failure_bars, radar_by_topology
from proagent.eval.records import read_records
from proagent.eval.stats import INTERVAL_NOTE, mean_se, metric_value, paired_difference
from proagent.maeil import TOPOLOGIES
from proagent.paths import PROJECT_ROOT

DIFFICULTIES = ("easy", "medium", "hard")
TALKING = tuple(t for t in TOPOLOGIES if t != "individual")  # the topologies whose messages can carry feedback
COLUMNS = (
    ("score", "score"),
    ("units_collected", "units collected"),
    ("coop_rate", "C_coop rate"),
    ("failed_attempts", "failed attempts"),
    ("failures_dependency", "fail: dependency"),
    ("failures_participation", "fail: participation"),
    ("failures_spatial", "fail: spatial"),
    ("failures_temporal", "fail: temporal"),
    ("dz_tools_gained", "tools gained"),
    ("dz_items_gained", "items gained"),
    ("messages_per_step", "msgs/step"),
    ("plan_coherence", "coherence"),
)
PRIMARY = "score"  # the column that gets an interval and the paired feedback difference


def layouts(seeds: int) -> dict[str, str]:
    """Layout spec -> difficulty."""
    return {f"random:{d}:{s}": d for d in DIFFICULTIES for s in range(seeds)}


def _server(llm: str) -> contextlib.AbstractContextManager:
    """The loopback double's chat server for ``--llm loopback``; nothing for a real model."""
    if llm != "loopback":
        return contextlib.nullcontext(None)
    sys.path.insert(0, str(PROJECT_ROOT))  # the test doubles: tests.support (never tests/ itself)
    from tests.support.fake_server import FakeChatServer
    from tests.support.responders.macrafter import macrafter_answer

    return FakeChatServer(delay_s=0.0, responder=macrafter_answer)


def run_eval(args: argparse.Namespace, specs: list[str], feedback: bool) -> Path:
    """One `proagent eval` over every world: the four topologies without feedback, or the
    talking ones with it; returns its run folder."""
    name = f"macrafter-{'feedback' if feedback else 'plain'}-{args.llm.replace('/', '_')}"
    topologies = TALKING if feedback else TOPOLOGIES
    argv = [
        "eval", "--domain", "macrafter", "--name", name, "--layouts", ",".join(specs), "--partners", "proagent",
        "--seats", "0", "--topologies", ",".join(topologies), "--episodes", "1", "--progress", "off",
        "--runs-dir", str(args.runs_dir), "--llm", args.llm,
    ]  # fmt: skip
    argv += ["--feedback"] if feedback else []
    argv += ["--horizon", str(args.horizon)] if args.horizon else []  # 0: each world's own
    argv += ["--trace"] if args.trace else []
    with _server(args.llm) as fake:
        if fake is not None:
            from tests.support.loopback import loopback_args

            at = argv.index("--llm")
            argv[at : at + 2] = loopback_args(fake.url)
        code = cli(argv)
    if code != 0:
        raise SystemExit(f"eval failed ({code})")
    return max(args.runs_dir.glob(f"*-{name}"), key=lambda p: p.stat().st_mtime)


def rows_of(folder: Path, labels: dict[str, str], feedback: bool) -> list[dict]:
    """One row per episode: what it was played under and its score and process metrics."""
    from envs.macrafter import load_scenario

    names = {load_scenario(spec).name: spec for spec in labels}
    rows = []
    for r in read_records(folder / "episodes.jsonl"):
        spec = names[r.layout]
        rows.append({
            "topology": r.topology, "feedback": feedback, "difficulty": labels[spec], "scenario": spec,
            "team_size": len(r.team), "score": r.score, "steps": r.steps, "llm_calls_team": float(r.team_llm_calls),
            "units_collected": r.metric("units_collected"),
            **r.process_metrics, **{m: metric_value(r, m) for m in ("coop_rate", "resumption_rate")},
        })  # fmt: skip
    return rows


def _without_reuse(argv: list[str]) -> list[str]:
    """The command line without ``--from-runs FOLDERS``: run folders stay on the machine that made them."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--from-runs":
            skip = True
        elif not arg.startswith("--from-runs="):
            out.append(arg)
    return out


def _by_scenario(rows: list[dict]) -> dict[str, float]:
    return {str(r["scenario"]): float(r[PRIMARY]) for r in rows if r.get(PRIMARY) is not None}


def table(rows: list[dict]) -> str:
    """Per difficulty, topology and feedback: each column's mean ± se (n=…), the score's 95% t
    interval and, for feedback on, its difference from feedback off paired by world."""
    header = "| difficulty | topology | feedback | n | " + " | ".join(title for _, title in COLUMNS)
    header += f" | {PRIMARY} 95% CI | Δ {PRIMARY} feedback on − off [95% CI] |"
    lines = [header, "|" + "---|" * (6 + len(COLUMNS))]
    for difficulty in DIFFICULTIES:
        for topology in TOPOLOGIES:
            off = [r for r in rows if r["difficulty"] == difficulty and r["topology"] == topology and not r["feedback"]]
            for feedback in (False, True):
                cell = [
                    r
                    for r in rows
                    if r["difficulty"] == difficulty and r["topology"] == topology and r["feedback"] == feedback
                ]
                if feedback and topology not in TALKING:
                    lines.append(
                        f"| {difficulty} | {topology} | on | 0 | "
                        + " | ".join("–" for _ in COLUMNS)
                        + " | – | no messages carry it |"
                    )
                    continue
                stats = [mean_se([float(r[m]) for r in cell if r.get(m) is not None]) for m, _ in COLUMNS]
                primary = stats[[m for m, _ in COLUMNS].index(PRIMARY)]
                if feedback:
                    diff = paired_difference(_by_scenario(cell), _by_scenario(off))
                    delta = f"{diff.text(2)} {diff.interval_text(2)}"
                else:
                    delta = "baseline"
                cells = [*(s.text(2) for s in stats), primary.interval_text(2), delta]
                lines.append(
                    f"| {difficulty} | {topology} | {'on' if feedback else 'off'} | {len(cell)} | "
                    + " | ".join(cells)
                    + " |"
                )
    return "\n".join(lines)


def labelled(rows: list[dict]) -> list[dict]:
    """Rows for the plots: a feedback run's topology is drawn as ``<topology>+feedback``."""
    return [{**r, "topology": f"{r['topology']}+feedback" if r["feedback"] else r["topology"]} for r in rows]


def page(args: argparse.Namespace, argv: list[str], folders: list[Path], rows: list[dict], plots: list[Path]) -> str:
    model = "the loopback double, no language model" if args.llm == "loopback" else f"`{args.llm}`"
    command = " ".join(_without_reuse(argv))
    return (
        f"# MA-Crafter: topology x difficulty, with and without environment feedback ({model})\n\n"
        f"Regenerate: `{f'python scripts/macrafter_table.py {command}'.strip()}`"
        + (" (this page was rebuilt from earlier run folders with `--from-runs`)" if args.from_runs else "")
        + "; run folders "
        + ", ".join(f"`{f.name}`" for f in folders)
        + f" ({len(rows)} episodes: {args.seeds} random world(s) per difficulty, "
        + (f"{args.horizon} steps each" if args.horizon else "each world's own horizon")
        + ", ProAgent in every seat, one episode each from seat 0; mean ± standard error over worlds, n = worlds). "
        + ("Made with the MA-Crafter loopback double (`tests/support/responders/macrafter.py`: a scripted test double "
           "that answers from the seat's grounding by the tech-tree convention): the numbers measure the framework and "
           "the double's convention, not a language model. The double does not read the feedback, so feedback on and "
           "off play the same (Δ = 0 shows that attaching it changes nothing else); what feedback does for a team is "
           "measured with a model (`--llm`). " if args.llm == "loopback" else "")
        + "Feedback on: the world's constraint and dependency snapshot (environment truth: who is where, who holds "
        "which tool, what the next task lacks) attached to the leader's messages (centralized: the leader's "
        "directives; debate and decentralized: the messages of seat 0). "
        f"{PRIMARY} 95% CI: the {INTERVAL_NOTE}; Δ: feedback on minus off, paired by world (both runs play the same "
        "worlds), mean ± se (n = pairs) and its 95% t interval. Failures: failed collections and crafts, each "
        "attributed to one constraint (dependency, then participation, spatial, temporal); tools / items gained: "
        "the capability change dZ summed over agents and steps.\n\n"
        + table(rows)
        + "\n\n"
        + "\n\n".join(f"![{p.stem}]({p.name})" for p in plots)
        + "\n"
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--llm", default="loopback", help="'loopback' (the MA-Crafter responder), 'embedded' or a litellm id"
    )
    p.add_argument("--seeds", type=int, default=3, help="random worlds per difficulty")
    p.add_argument("--horizon", type=int, default=60, help="steps per episode (0: each world's own)")
    p.add_argument("--out", type=Path, default=Path("docs/macrafter_topologies"))
    p.add_argument("--runs-dir", type=Path, default=Path("runs"))
    p.add_argument("--trace", action="store_true")
    p.add_argument(
        "--from-runs",
        default=None,
        help="rebuild the page from two earlier run folders (feedback off,on) instead of playing",
    )
    args = p.parse_args(argv)
    labels = layouts(args.seeds)
    if args.from_runs:
        folders = [Path(f) for f in args.from_runs.split(",")]
        if len(folders) != 2 or not all((f / "episodes.jsonl").is_file() for f in folders):
            p.error("--from-runs: two run folders, feedback off then on, each with episodes.jsonl")
    else:
        folders = [run_eval(args, list(labels), feedback) for feedback in (False, True)]
    rows = [*rows_of(folders[0], labels, False), *rows_of(folders[1], labels, True)]
    out, drawn = args.out, labelled(rows)
    plain = [r for r in rows if not r["feedback"]]
    plots = [
        bars_by_difficulty(drawn, out.with_name(out.name + "_score.png"), "score", title="MA-Crafter: team score, feedback off / on"),
        failure_bars(drawn, out.with_name(out.name + "_failures.png"), title="MA-Crafter: failed attempts by the constraint they broke"),
        bars_by_difficulty(drawn, out.with_name(out.name + "_dz.png"), "dz_tools_gained", title="MA-Crafter: tools gained (dZ)"),
        radar_by_topology(plain, out.with_name(out.name + "_radar.png"), title="MA-Crafter: the cooperation process by topology (no feedback)"),
    ]  # fmt: skip
    text = page(args, argv if argv is not None else sys.argv[1:], folders, rows, plots)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
