"""COOP²'s grid, regenerated for one world: communication structure x team size x repair off / on,
ProAgent in every seat (``coop2-cube``, ``coop2-macrafter``).

COOP² (EmCoop v2; its code ``HappyEureka/coop2-llm-mas``, ``cube/experiment/run_grid.py`` and
``ma_crafter/experiment/run_grid.py``) runs Individual, Centralized and Broadcast Chain teams with
and without COOP²-Repair: CUBE with 3 agents on its 15x15 nine-block world for 50 steps, MA-Crafter
with 3 and 6 agents on its 64x64 world for 200 steps, seed 42. One evaluation grid plays every cell
with ``repair = both``: each episode once without repair (the estimator predicts and is scored,
never intervenes) and once with it, on the same world and seed, so the repair columns are paired.

The columns map to COOP²'s ``coop2_metrics.csv`` (``build_results_table.py``) where they have a
counterpart (the page says which); model use is per team and per agent, as theirs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from rich.console import Console

from proagent.eval.process_plots import bars_by_difficulty
from proagent.eval.records import EvalRecord, read_records
from proagent.eval.stats import INTERVAL_NOTE, mean_se, paired_difference, process_value
from proagent.llm.scripted import is_scripted
from proagent.maeil import COOP2_STRUCTURES
from proagent.tables.common import TEST_DOUBLES, LLMSettings, Plan, page_out, play_grids, proagent_agent, write_page

SEED = 42  # COOP²'s grid seed (run_grid.py --seeds)
# Per world: COOP²'s scenario spec for a seed and team size, its team sizes and horizon.
WORLDS: dict[str, dict] = {
    "cube": {"spec": "coop2:{seed}@{n}", "teams": [3], "horizon": 50, "name": "CUBE"},
    "macrafter": {"spec": "emcoop:{seed}@{n}", "teams": [3, 6], "horizon": 200, "name": "MA-Crafter"},
}
# (our metric, the page's title, COOP²'s counterpart: a `coop2_metrics.csv` row (its `save_metrics_csv`),
# or where else COOP² reports it, or "" where it has none)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("score", "score", "S_team"),
    ("score_per_agent", "score / agent", "S_team_per_agent"),
    ("coop_success", "attempt success", "not in the CSV: build_results_table.py's attempt success rate"),
    ("messages", "messages", "L_tot (theirs counts every message; ours the spoken ones, protocol messages apart)"),
    ("interruptions", "interruptions", "P_int"),
    ("plan_coherence", "coherence", "P_coherence"),
    ("llm_calls_team", "LLM calls (team)", "not in the CSV: llm_usage.json's aggregate"),
    (
        "llm_calls_agent",
        "LLM calls / agent",
        "not in the CSV: llm_usage.json's per-agent usage (ours: the team's mean)",
    ),
    ("tokens_team", "tokens (team)", "not in the CSV: llm_usage.json's aggregate"),
    ("tokens_per_score", "tokens / score", "S_tokens_per_score"),
    ("repairs_triggered", "repairs", ""),
    ("repair_calls", "repair calls", ""),
    ("repair_revisions", "revisions", ""),
    ("estimator_precision", "est. precision", ""),
    ("estimator_recall", "est. recall", ""),
)
PRIMARY = "score"
# Each world's cooperative success rate, and what the page says it is.
SUCCESS_METRIC = {"cube": "coop_rate", "macrafter": "attempt_success_rate"}
SUCCESS_MEANING = {
    "cube": "the share of task-steps whose constraints all held (`coop_rate`, docs/cube_maeil.md)",
    "macrafter": "EmCoop's attempt success rate: successful collection attempts / attempts",
}


class Settings(LLMSettings):
    """COOP²'s grid for ``world`` at its sizes by default; smaller with ``--set``/``--horizon``."""

    world: Literal["cube", "macrafter"] = "cube"
    episodes: int = Field(1, ge=1, description="worlds per team size (seeds 42, 43, ...), one episode each")
    horizon: int = Field(0, ge=0, description="steps per episode (0: COOP²'s: CUBE 50, MA-Crafter 200)")
    trace: bool = False
    teams: list[int] = Field(default_factory=list, description="team sizes (empty: COOP²'s)")
    structures: list[str] = Field(default_factory=lambda: list(COOP2_STRUCTURES), min_length=1)


def team_sizes(settings: Settings) -> list[int]:
    return list(settings.teams) or list(WORLDS[settings.world]["teams"])


def layouts(settings: Settings) -> dict[str, int]:
    """Layout spec -> team size."""
    spec = WORLDS[settings.world]["spec"]
    return {spec.format(seed=SEED + i, n=n): n for n in team_sizes(settings) for i in range(settings.episodes)}


def horizon(settings: Settings) -> int:
    return settings.horizon or int(WORLDS[settings.world]["horizon"])


def plan(settings: Settings) -> Plan:
    n = len(layouts(settings)) * len(settings.structures) * 2
    return Plan(episodes=n, llm_episodes=n, horizon=horizon(settings))


def grid(settings: Settings) -> dict:
    return {
        "name": f"coop2-{settings.world}", "domain": settings.world, "agents": [proagent_agent(settings)],
        "partners": ["proagent"], "layouts": list(layouts(settings)), "seats": [0], "topologies": settings.structures,
        "repair": "both", "episodes": 1, "trace": settings.trace, "horizon": horizon(settings),
    }  # fmt: skip


def run(settings: Settings, console: Console) -> Path:
    """Play the grid, then write the table and the score-against-cost plot."""
    (folder,) = play_grids([grid(settings)], settings, console)
    rows = rows_of(folder, settings)
    out = page_out(settings, [folder])
    out.parent.mkdir(parents=True, exist_ok=True)
    drawn = [
        {
            **r,
            "topology": r["structure"] + ("+repair" if r["repair"] == "on" else ""),
            "difficulty": f"{r['team']} agents",
        }
        for r in rows
    ]
    plots = [
        bars_by_difficulty(
            drawn, out.with_name(out.name + "_score.png"), "score", title=f"COOP² on {_name(settings)}: score"
        ),
        score_cost_plot(rows, out.with_name(out.name + "_cost.png"), _name(settings)),
    ]
    return write_page(out, page(settings, folder, rows, plots))


def _name(settings: Settings) -> str:
    return str(WORLDS[settings.world]["name"])


def row(record: EvalRecord, team: int, world: str) -> dict:
    """One episode's row: what it was played under, its outcome, its model use and repair figures."""
    p = record.process_metrics
    return {
        "structure": record.topology, "repair": "on" if record.repair == "on" else "off", "team": team,
        "scenario": record.layout, "score": record.score, "coop_success": process_value(p, SUCCESS_METRIC[world]),
        "score_per_agent": record.score / max(1, len(record.team)), "messages": p.get("messages"),
        "interruptions": p.get("interruptions"), "plan_coherence": p.get("plan_coherence"),
        "llm_calls_team": float(record.team_llm_calls),
        "llm_calls_agent": record.team_llm_calls / max(1, len(record.team)),
        "tokens_team": float(record.team_tokens),
        "tokens_per_score": record.team_tokens / record.score if record.score > 0 else None,
        **{k: p.get(k) for k in (
            "repairs_triggered", "repair_calls", "repair_revisions", "estimator_precision", "estimator_recall",
        )},
    }  # fmt: skip


def rows_of(folder: Path, settings: Settings) -> list[dict]:
    """One row per episode (the team size is the record's team)."""
    return [row(r, len(r.team), settings.world) for r in read_records(folder / "episodes.jsonl")]


def table(rows: list[dict]) -> str:
    """Per team size, structure and repair arm: each column's mean ± se (n), and for repair on its
    score difference from repair off, paired by world."""
    header = "| agents | structure | repair | n | " + " | ".join(t for _, t, _ in COLUMNS)
    header += f" | {PRIMARY} 95% CI | Δ {PRIMARY} repair on − off [95% CI] |"
    lines = [header, "|" + "---|" * (6 + len(COLUMNS))]
    for team in sorted({r["team"] for r in rows}):
        for structure in COOP2_STRUCTURES:
            off = [r for r in rows if r["team"] == team and r["structure"] == structure and r["repair"] == "off"]
            for arm in ("off", "on"):
                cell = [r for r in rows if r["team"] == team and r["structure"] == structure and r["repair"] == arm]
                if not cell:
                    continue
                stats = [mean_se([float(r[m]) for r in cell if r.get(m) is not None]) for m, _, _ in COLUMNS]
                primary = stats[0]
                if arm == "on" and off:
                    diff = paired_difference(_scores(cell), _scores(off))
                    delta = f"{diff.text(2)} {diff.interval_text(2)}"
                else:
                    delta = "baseline"
                cells = [*(s.text(2) for s in stats), primary.interval_text(2), delta]
                lines.append(f"| {team} | {structure} | {arm} | {len(cell)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _scores(rows: list[dict]) -> dict[str, float]:
    return {str(r["scenario"]): float(r["score"]) for r in rows}


def score_cost_plot(rows: list[dict], path: Path, world: str) -> Path:
    """COOP²'s score-against-cost figure: each cell's mean team LLM calls against its mean score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for structure in COOP2_STRUCTURES:
        for arm, marker in (("off", "o"), ("on", "^")):
            cell = [r for r in rows if r["structure"] == structure and r["repair"] == arm]
            if cell:
                x = sum(r["llm_calls_team"] for r in cell) / len(cell)
                y = sum(r["score"] for r in cell) / len(cell)
                ax.scatter([x], [y], marker=marker, label=f"{structure}, repair {arm}")
    ax.set_xlabel("LLM calls per episode (team)")
    ax.set_ylabel("score")
    ax.set_title(f"COOP² on {world}: score against cost")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def smaller_than_coop2(settings: Settings) -> str:
    """A sentence naming where the page's grid is not COOP²'s (steps, team sizes, structures), or ''."""
    world = WORLDS[settings.world]
    theirs = {
        "steps per episode": (str(world["horizon"]), str(horizon(settings))),
        "team sizes": (" and ".join(map(str, world["teams"])), " and ".join(map(str, team_sizes(settings)))),
        "structures": (", ".join(COOP2_STRUCTURES), ", ".join(settings.structures)),
    }
    changed = [f"{what} {ours} (COOP²'s: {paper})" for what, (paper, ours) in theirs.items() if ours != paper]
    return f"Smaller than COOP²'s grid: {'; '.join(changed)}. " if changed else ""


def page(settings: Settings, folder: Path, rows: list[dict], plots: list[Path]) -> str:
    """The page: how it was made, the column mapping to COOP²'s, the table and the figures."""
    double = settings.llm is not None and (settings.llm.startswith(TEST_DOUBLES) or is_scripted(settings.llm))
    mapping = "; ".join(f"{title}: {theirs or 'none in COOP²'}" for _, title, theirs in COLUMNS)
    return (
        f"# COOP² on {_name(settings)}: structure x team size x repair\n\n"
        + settings.model_line()
        + f"Regenerate: `{settings.command}`; run folder `{folder.name}` ({len(rows)} episodes: "
        f"{settings.episodes} world(s) per team size from seed {SEED}, {horizon(settings)} steps, ProAgent in every "
        "seat, one episode each from seat 0, every episode played without and with COOP²-Repair on the same world; "
        "mean ± standard error over worlds, n = worlds). "
        + smaller_than_coop2(settings)
        + ("Made with a scripted planner (answers from each seat's state by a fixed convention, not a language "
           "model): it does not read repair guidance, so what repair shows here is its cost in calls; a revision "
           "counted here is the planner choosing again on a later state, not an answer to the guidance. What repair "
           "does for a team is measured with a model (`--llm`). " if double else "")
        + f"{PRIMARY} 95% CI: the {INTERVAL_NOTE}; Δ: repair on minus off, paired by world. Repair off is the "
        "estimator watching (it predicts and is scored, never intervenes): est. precision / recall are its "
        "predicted failures against the attempts that followed (docs/coop2.md). Columns and their COOP² "
        f"counterparts (`coop2_metrics.csv` rows unless said): {mapping}. Attempt success here is "
        f"{SUCCESS_MEANING[settings.world]}.\n\n"
        + table(rows)
        + "\n\n"
        + "\n\n".join(f"![{p.stem}]({p.name})" for p in plots)
        + "\n"
    )  # fmt: skip
