"""EmCoop's topology x difficulty table for CUBE, regenerated: ProAgent in every seat, under each
communication topology, on random scenarios of each difficulty and team size.

    python scripts/cube_topology_table.py                       # the CUBE loopback responder (docs)
    python scripts/cube_topology_table.py --llm embedded --seeds 1 --horizon 30 --out docs/cube_topologies_embedded
    python scripts/cube_topology_table.py --llm openai/gpt-4o-mini   # a real model (costs money)

Cells: topology (individual, debate, centralized, decentralized) x team (easy: 2 agents, medium:
3, hard: 4, hard with 6 agents), ``--seeds`` random scenarios each (``random:<difficulty>:<seed>``,
``@6`` for six agents), one episode per scenario from seat 0. It runs `proagent eval` (so the run
folder under runs/ has every record, report and plot) and writes ``<out>.md`` with the tables and
``<out>_radar.png``, ``<out>_score.png``, ``<out>_failures.png`` (EmCoop's Figure 3 kinds).
With the loopback responder the numbers measure the framework and the responder's convention
(everyone on the heaviest block; a leader that sends everyone there), not a language model.
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
from proagent.tables_out import without_resume

TEAMS = (("easy", 2, ""), ("medium", 3, ""), ("hard", 4, ""), ("hard", 6, "@6"))
COLUMNS = (
    ("score", "score"),
    ("weight_share", "weight delivered / total"),
    ("messages_per_step", "msgs/step"),
    ("interruptions", "interrupts"),
    ("resumption_rate", "resume rate"),
    ("plan_coherence", "coherence"),
    ("coop_rate", "C_coop rate"),
    ("failed_attempts", "failed pushes"),
    ("llm_calls_team", "team LLM calls"),
)
PRIMARY = "score"  # the column that gets an interval and a paired difference
BASELINE = "individual"  # the topology the others are compared with: no conversation


def team_label(difficulty: str, agents: int) -> str:
    return f"{difficulty} ({agents} agents)"


def layouts(seeds: int) -> dict[str, str]:
    """Layout spec -> team label."""
    return {f"random:{d}:{s}{suffix}": team_label(d, n) for d, n, suffix in TEAMS for s in range(seeds)}


def run_eval(args: argparse.Namespace, specs: list[str]) -> Path:
    name = f"cube-topologies-{args.llm.replace('/', '_')}"
    if args.resume is not None:  # finish a run that was stopped: its finished episodes are kept
        if cli(["eval", "--resume", str(args.resume), "--progress", "off"]) != 0:
            raise SystemExit("eval --resume failed")
        return args.resume
    argv = [
        "eval", "--domain", "cube", "--name", name, "--layouts", ",".join(specs), "--partners", "proagent",
        "--seats", "0", "--topologies", ",".join(TOPOLOGIES), "--episodes", "1", "--progress", "off",
        "--runs-dir", str(args.runs_dir), "--llm", args.llm,
    ]  # fmt: skip
    if args.horizon:
        argv += ["--horizon", str(args.horizon)]
    if args.trace:
        argv += ["--trace"]
    server = contextlib.nullcontext(None)
    if args.llm == "loopback":
        sys.path.insert(0, str(PROJECT_ROOT))  # the test doubles: tests.support (never tests/ itself)
        from tests.support.fake_server import FakeChatServer
        from tests.support.loopback import loopback_args
        from tests.support.responders.cube import cube_answer

        server = FakeChatServer(delay_s=0.0, responder=cube_answer)
    with server as fake:
        if fake is not None:
            at = argv.index("--llm")
            argv[at : at + 2] = loopback_args(fake.url)
        code = cli(argv)
    if code != 0:
        raise SystemExit(f"eval failed ({code})")
    return max(args.runs_dir.glob(f"*-{name}"), key=lambda p: p.stat().st_mtime)


def rows_of(folder: Path, labels: dict[str, str]) -> list[dict]:
    from envs.cube.scenario import load_scenario

    rows = []
    for r in read_records(folder / "episodes.jsonl"):
        spec = next(s for s in labels if load_scenario(s).name == r.layout)
        total = load_scenario(spec).total_weight
        rows.append({
            "topology": r.topology, "difficulty": labels[spec], "scenario": spec, "team_size": len(r.team), "score": r.score, "steps": r.steps,
            "weight_share": r.metric("weight_delivered") / total, "llm_calls_team": float(r.team_llm_calls),
            **r.process_metrics,
            **{m: metric_value(r, m) for m in ("coop_rate", "resumption_rate")},
        })  # fmt: skip
    return rows


def table(rows: list[dict]) -> str:
    """Per team and topology: each column's mean ± se (n=…), then the score's 95% t interval and its
    difference from the baseline topology, paired by scenario (every topology plays the same ones)."""
    header = "| team | topology | n | " + " | ".join(title for _, title in COLUMNS)
    header += f" | {PRIMARY} 95% CI | Δ {PRIMARY} vs {BASELINE} [95% CI] |"
    lines = [header, "|" + "---|" * (5 + len(COLUMNS))]
    for difficulty, agents, _ in TEAMS:
        label = team_label(difficulty, agents)
        baseline = _by_scenario([r for r in rows if r["difficulty"] == label and r["topology"] == BASELINE])
        for topology in TOPOLOGIES:
            cell = [r for r in rows if r["difficulty"] == label and r["topology"] == topology]
            stats = [mean_se([float(r[m]) for r in cell if r.get(m) is not None]) for m, _ in COLUMNS]
            primary = stats[[m for m, _ in COLUMNS].index(PRIMARY)]
            diff = paired_difference(_by_scenario(cell), baseline)
            delta = "baseline" if topology == BASELINE else f"{diff.text(2)} {diff.interval_text(2)}"
            cells = [*(s.text(2) for s in stats), primary.interval_text(2), delta]
            lines.append(f"| {label} | {topology} | {len(cell)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _by_scenario(rows: list[dict]) -> dict[str, float]:
    return {str(r["scenario"]): float(r[PRIMARY]) for r in rows if r.get(PRIMARY) is not None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--llm", default="loopback", help="'loopback' (the CUBE responder), 'embedded' or a litellm id")
    p.add_argument("--seeds", type=int, default=5, help="random scenarios per team")
    p.add_argument("--horizon", type=int, default=None, help="steps per episode (default: each scenario's)")
    p.add_argument("--out", type=Path, default=Path("docs/cube_topologies"))
    p.add_argument("--runs-dir", type=Path, default=Path("runs"))
    p.add_argument("--trace", action="store_true")
    p.add_argument("--resume", type=Path, default=None, help="finish this earlier run folder (same --seeds) instead of starting one")
    args = p.parse_args(argv)
    labels = layouts(args.seeds)
    folder = run_eval(args, list(labels))
    rows = rows_of(folder, labels)
    out = args.out
    radar = radar_by_topology(rows, out.with_name(out.name + "_radar.png"), title="CUBE: the cooperation process by topology (all teams)")
    score = bars_by_difficulty(rows, out.with_name(out.name + "_score.png"), "weight_share", title="CUBE: weight delivered / total")
    fails = failure_bars(rows, out.with_name(out.name + "_failures.png"), title="CUBE: failed pushes by the constraint they broke")
    model = "the CUBE loopback responder (scripted, no language model)" if args.llm == "loopback" else f"`{args.llm}`"
    text = (
        f"# CUBE: topology x difficulty ({model})\n\n"
        f"Regenerate: `python scripts/cube_topology_table.py {' '.join(without_resume(argv if argv is not None else sys.argv[1:]))}`"
        f"{' (this page reused an earlier run folder with `--resume`)' if args.resume else ''}; "
        f"run folder `{folder.name}` ({len(rows)} episodes: {args.seeds} random scenario(s) per team, ProAgent in every seat, "
        "mean ± standard error over scenarios, n = scenarios). "
        f"{PRIMARY} 95% CI: the {INTERVAL_NOTE}; Δ: the topology minus `{BASELINE}`, paired by scenario "
        "(every topology plays the same scenarios), mean ± se (n = pairs) and its 95% t interval.\n\n"
        + table(rows)
        + f"\n\n![radar]({radar.name})\n\n![score]({score.name})\n\n![failures]({fails.name})\n"
    )
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
