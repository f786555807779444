"""EmCoop's MA-Crafter table, regenerated: topology x world, with and without environment
feedback in the leader's messages (EmCoop's RQ3), ProAgent in every seat.

Cells: world (by default EmCoop's: ``emcoop_3a`` and ``emcoop_6a``, its 64x64 world with teams of
3 and 6, ``emcoop:<seed>`` worlds; also our smaller maps, easy: 2 agents, target coal; medium: 3,
iron; hard: 4, diamond, ``random:<difficulty>:<seed>``; ``episodes`` worlds of each) x topology (individual, debate,
centralized, decentralized) x feedback (off; on for the topologies that send messages: individual sends none,
so nothing carries the snapshot there). One episode per world from seat 0. It plays two evaluation
grids, without and with feedback (two run folders with every record, report and plot), and writes
``<out>.md`` with the table and ``<out>_score.png``, ``<out>_failures.png``, ``<out>_dz.png``,
``<out>_radar.png``. ``from_runs`` rebuilds the page from two earlier run folders instead of playing.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from rich.console import Console

from proagent.eval.model_names import TEST_DOUBLES
from proagent.eval.process_plots import RADAR_METRICS, bars_by_difficulty, failure_bars, radar_by_topology
from proagent.eval.records import read_records
from proagent.eval.stats import INTERVAL_NOTE, mean_se, metric_value, paired_difference
from proagent.llm.scripted import is_scripted
from proagent.maeil import EMCOOP_V1_TOPOLOGIES, TOPOLOGIES
from proagent.tables.common import LLMSettings, Plan, page_out, play_grids, proagent_agent, write_page

EMCOOP_WORLDS = {"emcoop_3a": "", "emcoop_6a": "@6"}  # EmCoop's grid: its 64x64 world, teams of 3 and 6
DIFFICULTIES = (*EMCOOP_WORLDS, "easy", "medium", "hard")
TALKING = tuple(t for t in TOPOLOGIES if t != "individual")  # the topologies whose messages can carry feedback
# EmCoop's process columns (proagent/domains/macrafter/constraints.py names the EmCoop code of each).
COLUMNS = (
    ("score", "score"),
    ("units_collected", "units collected"),
    ("attempt_success_rate", "attempt success"),
    ("spatial_violation_rate", "spat. viol."),
    ("temporal_violation_rate", "temp. viol."),
    ("dependency_violation_rate", "dep. viol."),
    ("C_plus", "C+"),
    ("C_minus", "C−"),
    ("delta_Z", "ΔZ"),
    ("dz_tools_gained", "tools gained"),
    ("messages_per_step", "msgs/step"),
    ("plan_coherence", "coherence"),
)
# EmCoop's process radar, with its attempt success rate for the constraint axis.
RADAR = (*RADAR_METRICS[:-1], "attempt_success_rate")
PRIMARY = "score"  # the column that gets an interval and the paired feedback difference


def layouts(seeds: int, difficulties: list[str] | None = None) -> dict[str, str]:
    """Layout spec -> world (``difficulties``: only these): ``emcoop:<seed>[@6]`` for EmCoop's
    world, ``random:<difficulty>:<seed>`` for ours."""
    chosen = [d for d in DIFFICULTIES if difficulties is None or d in difficulties]
    return {
        (f"emcoop:{s}{EMCOOP_WORLDS[d]}" if d in EMCOOP_WORLDS else f"random:{d}:{s}"): d
        for d in chosen
        for s in range(seeds)
    }


class Settings(LLMSettings):
    """Two of EmCoop's worlds per team size at 60 steps by default (the shipped page's setting)."""

    episodes: int = Field(2, ge=1, description="worlds per team size or difficulty (one episode each)")
    horizon: int = Field(60, ge=0, description="steps per episode (0: each world's own)")
    trace: bool = False
    difficulties: list[str] = Field(default_factory=lambda: list(EMCOOP_WORLDS), min_length=1)
    topologies: list[str] = Field(default_factory=lambda: list(EMCOOP_V1_TOPOLOGIES), min_length=1)
    from_runs: list[Path] = Field(default_factory=list, description="two earlier run folders, feedback off then on")

    @field_validator("from_runs")
    @classmethod
    def _two_runs(cls, folders: list[Path]) -> list[Path]:
        if folders and (len(folders) != 2 or not all((f / "episodes.jsonl").is_file() for f in folders)):
            raise ValueError("two run folders, feedback off then on, each with episodes.jsonl")
        return folders


def plan(settings: Settings) -> Plan:
    talking = [t for t in settings.topologies if t in TALKING]
    n = (
        0
        if settings.from_runs
        else len(layouts(settings.episodes, settings.difficulties)) * (len(settings.topologies) + len(talking))
    )
    return Plan(episodes=n, llm_episodes=n, horizon=settings.horizon or None)


def grid(settings: Settings, specs: list[str], feedback: bool) -> dict:
    """Every world under the four topologies without feedback, or the talking ones with it."""
    data = {
        "name": f"macrafter-{'feedback' if feedback else 'plain'}", "domain": "macrafter",
        "agents": [proagent_agent(settings)], "partners": ["proagent"], "layouts": specs, "seats": [0],
        "topologies": [t for t in settings.topologies if not feedback or t in TALKING], "episodes": 1,
        "trace": settings.trace,
    }  # fmt: skip
    return data | ({"feedback": True} if feedback else {}) | ({"horizon": settings.horizon} if settings.horizon else {})


def run(settings: Settings, console: Console) -> Path:
    """Play both grids (or read ``from_runs``), then write the table and the four figures."""
    labels = layouts(settings.episodes, settings.difficulties)
    talks = any(t in TALKING for t in settings.topologies)
    runs = (False, True) if talks else (False,)
    folders = settings.from_runs or play_grids([grid(settings, list(labels), f) for f in runs], settings, console)
    rows = [r for folder, f in zip(folders, (False, True)) for r in rows_of(folder, labels, f)]
    out, drawn = page_out(settings, [] if settings.from_runs else folders), labelled(rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    plain = [r for r in rows if not r["feedback"]]
    kinds = ("score", "failures", "dz", "radar")
    score, failures, dz, radar = (out.with_name(f"{out.name}_{kind}.png") for kind in kinds)
    plots = [
        bars_by_difficulty(drawn, score, "score", title="MA-Crafter: team score, feedback off / on"),
        failure_bars(drawn, failures, title="MA-Crafter: failed collections' violations per constraint (EmCoop)"),
        bars_by_difficulty(drawn, dz, "dz_tools_gained", title="MA-Crafter: tools gained (dZ)"),
        radar_by_topology(plain, radar, RADAR, title="MA-Crafter: the cooperation process by topology (no feedback)"),
    ]
    return write_page(out, page(settings, folders, rows, plots))


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


def _by_scenario(rows: list[dict]) -> dict[str, float]:
    return {str(r["scenario"]): float(r[PRIMARY]) for r in rows if r.get(PRIMARY) is not None}


def table(rows: list[dict]) -> str:
    """Per difficulty, topology and feedback: each column's mean ± se (n=…), the score's 95% t
    interval and, for feedback on, its difference from feedback off paired by world."""
    header = "| world | topology | feedback | n | " + " | ".join(title for _, title in COLUMNS)
    header += f" | {PRIMARY} 95% CI | Δ {PRIMARY} feedback on − off [95% CI] |"
    lines = [header, "|" + "---|" * (6 + len(COLUMNS))]
    for difficulty in DIFFICULTIES:
        for topology in TOPOLOGIES:
            off = [r for r in rows if r["difficulty"] == difficulty and r["topology"] == topology and not r["feedback"]]
            if not off:
                continue  # a difficulty or topology this run left out
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


def page(settings: Settings, folders: list[Path], rows: list[dict], plots: list[Path]) -> str:
    """The page: how it was made, what the columns mean, the table and the figures."""
    scripted = settings.llm is not None and (settings.llm.startswith(TEST_DOUBLES) or is_scripted(settings.llm))
    return (
        "# MA-Crafter: topology x world, with and without environment feedback\n\n"
        + settings.model_line()
        + f"Regenerate: `{settings.command}`"
        + (" (this page was rebuilt from earlier run folders with `--set from_runs=...`)" if settings.from_runs else "")
        + "; run folders "
        + ", ".join(f"`{f.name}`" for f in folders)
        + f" ({len(rows)} episodes: {settings.episodes} world(s) per team size or difficulty "
        + "(emcoop_3a / emcoop_6a: EmCoop's 64x64 world, teams of 3 and 6; easy / medium / hard: our smaller maps), "
        + (f"{settings.horizon} steps each" if settings.horizon else "each world's own horizon")
        + ", ProAgent in every seat, one episode each from seat 0; mean ± standard error over worlds, n = worlds). "
        + ("Made with the MA-Crafter scripted planner (`proagent/domains/macrafter/scripted.py`, not a language model: "
           "it answers from the seat's grounding by the tech-tree convention): the numbers measure the framework and "
           "the planner's convention, not a language model. The planner does not read the feedback, so feedback on and "
           "off play the same (Δ = 0 shows that attaching it changes nothing else); what feedback does for a team is "
           "measured with a model (`--llm`). " if scripted else "")
        + "Feedback on: the world's constraint and dependency snapshot (environment truth: who is where, who holds "
        "which tool, what the next task lacks) attached to the leader's messages (centralized: the leader's "
        "directives; debate and decentralized: the messages of seat 0). "
        f"{PRIMARY} 95% CI: the {INTERVAL_NOTE}; Δ: feedback on minus off, paired by world (both runs play the same "
        "worlds), mean ± se (n = pairs) and its 95% t interval. The process columns are EmCoop's, computed as its "
        "code does (docs/macrafter_process.md): attempt success and the spatial / temporal / dependency violation "
        "rates over collection attempts (a failed attempt's violation of a constraint is 1 − min(count / quorum, 1)); "
        "C+ / C−: distinct resource cells whose spatial, temporal or dependency count rose / fell at some step; ΔZ: "
        "capability gain records minus loss records (vitals and saplings aside); tools gained: the tool units in "
        "ΔZ, summed over agents and steps.\n\n"
        + table(rows)
        + "\n\n"
        + "\n\n".join(f"![{p.stem}]({p.name})" for p in plots)
        + "\n"
    )  # fmt: skip
