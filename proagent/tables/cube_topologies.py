"""EmCoop's topology x difficulty table for CUBE, regenerated: ProAgent in every seat, under each
communication topology, on random scenarios of each difficulty and team size.

Cells: topology (individual, debate, centralized, decentralized) x team (easy: 2 agents, medium:
3, hard: 4, hard with 6 agents), ``episodes`` random scenarios each (``random:<difficulty>:<seed>``,
``@6`` for six agents), one episode per scenario from seat 0. It plays one evaluation grid (so the
run folder has every record, report and plot) and writes ``<out>.md`` with the table and
``<out>_radar.png``, ``<out>_score.png``, ``<out>_failures.png`` (EmCoop's Figure 3 kinds).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from rich.console import Console

from proagent.eval.process_plots import bars_by_difficulty, failure_bars, radar_by_topology
from proagent.eval.records import read_records
from proagent.eval.stats import INTERVAL_NOTE, mean_se, metric_value, paired_difference
from proagent.maeil import EMCOOP_V1_TOPOLOGIES, TOPOLOGIES
from proagent.tables.common import LLMSettings, Plan, page_out, play_grids, proagent_agent, write_page

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


def team_key(difficulty: str, suffix: str) -> str:
    """The team's name in the ``teams`` setting: the difficulty, ``@6`` for six agents."""
    return difficulty + suffix


def layouts(seeds: int, teams: list[str] | None = None) -> dict[str, str]:
    """Layout spec -> team label (``teams``: only these, by team_key)."""
    chosen = [t for t in TEAMS if teams is None or team_key(t[0], t[2]) in teams]
    return {f"random:{d}:{s}{suffix}": team_label(d, n) for d, n, suffix in chosen for s in range(seeds)}


class Settings(LLMSettings):
    """Five random scenarios per team, each scenario's own horizon by default."""

    episodes: int = Field(5, ge=1, description="random scenarios per team (one episode each)")
    horizon: int | None = Field(None, ge=1, description="steps per episode (default: each scenario's)")
    trace: bool = False
    teams: list[str] = Field(default_factory=lambda: [team_key(d, x) for d, _, x in TEAMS], min_length=1)
    topologies: list[str] = Field(default_factory=lambda: list(EMCOOP_V1_TOPOLOGIES), min_length=1)


def plan(settings: Settings) -> Plan:
    n = len(layouts(settings.episodes, settings.teams)) * len(settings.topologies)
    return Plan(episodes=n, llm_episodes=n, horizon=settings.horizon)


def grid(settings: Settings, specs: list[str]) -> dict:
    """ProAgent with ProAgent in every seat, each topology, one episode a scenario from seat 0."""
    data = {
        "name": "cube-topologies", "domain": "cube", "agents": [proagent_agent(settings)], "partners": ["proagent"],
        "layouts": specs, "seats": [0], "topologies": settings.topologies, "episodes": 1, "trace": settings.trace,
    }  # fmt: skip
    return data | ({"horizon": settings.horizon} if settings.horizon else {})


def run(settings: Settings, console: Console) -> Path:
    """Play (or finish) the grid, then write the table and the three figures."""
    labels = layouts(settings.episodes, settings.teams)
    (folder,) = play_grids([grid(settings, list(labels))], settings, console)
    rows = rows_of(folder, labels)
    out = page_out(settings, [folder])
    out.parent.mkdir(parents=True, exist_ok=True)
    radar = radar_by_topology(
        rows, out.with_name(out.name + "_radar.png"), title="CUBE: the cooperation process by topology (all teams)"
    )
    score = bars_by_difficulty(
        rows, out.with_name(out.name + "_score.png"), "weight_share", title="CUBE: weight delivered / total"
    )
    fails = failure_bars(
        rows, out.with_name(out.name + "_failures.png"), title="CUBE: failed pushes by the constraint they broke"
    )
    text = (
        "# CUBE: topology x difficulty\n\n"
        + settings.model_line()
        + f"Regenerate: `{settings.command}`"
        f"{' (this page finished an earlier run folder with `--resume`)' if settings.resume else ''}; "
        f"run folder `{folder.name}` ({len(rows)} episodes: {settings.episodes} random scenario(s) per team, ProAgent "
        "in every seat, mean ± standard error over scenarios, n = scenarios). "
        f"{PRIMARY} 95% CI: the {INTERVAL_NOTE}; Δ: the topology minus `{BASELINE}`, paired by scenario "
        "(every topology plays the same scenarios), mean ± se (n = pairs) and its 95% t interval.\n\n"
        + table(rows)
        + f"\n\n![radar]({radar.name})\n\n![score]({score.name})\n\n![failures]({fails.name})\n"
    )  # fmt: skip
    return write_page(out, text)


def rows_of(folder: Path, labels: dict[str, str]) -> list[dict]:
    """One row per episode: its topology, team and scenario, score and process metrics."""
    from envs.cube.scenario import load_scenario

    rows = []
    for r in read_records(folder / "episodes.jsonl"):
        spec = next(s for s in labels if load_scenario(s).name == r.layout)
        total = load_scenario(spec).total_weight
        rows.append({
            "topology": r.topology, "difficulty": labels[spec], "scenario": spec, "team_size": len(r.team),
            "score": r.score, "steps": r.steps,
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
            if not cell:
                continue  # a team or topology this run left out
            stats = [mean_se([float(r[m]) for r in cell if r.get(m) is not None]) for m, _ in COLUMNS]
            primary = stats[[m for m, _ in COLUMNS].index(PRIMARY)]
            diff = paired_difference(_by_scenario(cell), baseline)
            delta = "baseline" if topology == BASELINE else f"{diff.text(2)} {diff.interval_text(2)}"
            cells = [*(s.text(2) for s in stats), primary.interval_text(2), delta]
            lines.append(f"| {label} | {topology} | {len(cell)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _by_scenario(rows: list[dict]) -> dict[str, float]:
    return {str(r["scenario"]): float(r[PRIMARY]) for r in rows if r.get(PRIMARY) is not None}
