"""The report of an evaluation run, computed from episodes.jsonl (and config.json for order and
ablation info) only, so `proagent report` reproduces it at any time without playing anything.

Files: table.{md,csv,json} (score: rows layout x seat, columns agent x partner, plus the
columns pooled over partners as in ProAgent's Table 1), metrics.{md,csv,json} (every metric per
agent x partner x layout x seat), scores.png (Fig. 2 style), clock.png (the clock's metrics per
agent x partner, when some agent played under a clock other than turns), and for ablations
ablation.{md,csv,json,png}.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from rich.console import Console

from proagent.eval.ablation_table import (
    AblationTable,
    ablation_csv,
    ablation_markdown,
    ablation_rich,
    ablation_rows,
    ablation_table,
)
from proagent.eval.clock_plots import CLOCK_FIGURE, clock_chart, clock_summary, clocks_short
from proagent.eval.manifest import EvalManifest
from proagent.eval.model_names import LlmSeat, eval_llm_seats, models_caption, models_short
from proagent.eval.plots import comparison_chart, score_chart
from proagent.eval.process_plots import failure_bars, radar_by_topology
from proagent.eval.records import EvalRecord
from proagent.eval.render import (
    pivot_csv,
    pivot_markdown,
    pivot_rich,
    summary_csv,
    summary_markdown,
    summary_rich,
)
from proagent.eval.stats import CAPABILITY_METRICS, METRICS, PROCESS_METRICS, domain_metric_names
from proagent.eval.tables import Pivot, Summary, pivot, summarize
from proagent.tables_out import markdown_rows, print_table

# metric -> short header, for the per-pair table printed at the end of a run
CONSOLE_METRICS = MappingProxyType({
    "score": "score", "llm_calls": "agent calls", "team_llm_calls": "team calls", "tokens": "agent tokens",
    "team_tokens": "team tokens", "spent_usd": "team $",
    "skill_success_rate": "skill ok", "intention_accuracy": "intention", "overhead_ms_median": "ovh ms",
    "oscillations": "loops",
    "int_constructive": "Int cons", "int_non_constructive": "Int non-cons",
})  # fmt: skip

# The clock's columns (``--clock tokens:N`` or ``seconds:S``), short headers for the console: in the
# per-pair and metrics tables where some episode was played under such a clock, nowhere else.
CLOCK_METRICS = MappingProxyType({
    "clock_stale_steps": "stale", "clock_idle_steps": "idle", "clock_fallback_steps": "fallback",
    "decisions_per_100_steps": "dec/100", "decision_steps_mean": "steps/dec",
})  # fmt: skip

# The cooperation metrics table (interdependence.md): per agent x partner x layout x seat.
INTERDEPENDENCE_METRICS = (
    "score", "int_total", "int_constructive", "int_non_constructive", "int_constructive_share",
    "int_initiated_agent", "int_accepted_agent", "int_initiated_partner", "int_accepted_partner", "intention_accuracy",
)  # fmt: skip


@dataclass
class Report:
    title: str
    by_partner: Pivot
    pooled: Pivot
    metrics: Summary  # all metrics, per agent x partner x layout x seat
    pairs: Summary  # key metrics per agent x partner, pooled over layouts and seats
    interdependence: Summary | None = None  # cooperation metrics per agent x partner x layout x seat
    process: Summary | None = (
        None  # cooperation-process metrics (MAEIL, constraints) per agent x partner x layout x seat
    )
    process_rows: list[dict] | None = None  # one per episode played under a topology, for EmCoop's plots
    ablation: AblationTable | None = None
    clock: Summary | None = None  # the clock's metrics per agent x partner, where some episode was clocked
    clocks: str = ""  # which clock each clocked agent played under, under the clock figure's title
    world: str = ""  # the world the run played (`world_of`), named in every table's heading
    models: str = ""  # which model and prompt set each LLM agent played with, a line under every heading
    models_short: str = ""  # the same in a few words, under every plot's title


def declared_metrics(world: str) -> list[str]:
    """A registered world's own metric names, in its order: its columns even where no record has
    the metric (Yōkai's WEE in a run where no game ended early: "n/a (n=0)", not a missing column).
    Nothing for a world named as ``module:attribute``: a report of a run folder imports no code it names."""
    from proagent.domains import builtin_domain_names, get_domain

    return list(get_domain(world).metric_names) if world in builtin_domain_names() else []


def _with_domain(metrics: list[str], records: list[EvalRecord], first_only: bool = False, world: str = "") -> list[str]:
    """``metrics`` with the domain's own metrics right after the score (the console table shows
    only the first, e.g. the deliveries, to stay narrow)."""
    extra = list(dict.fromkeys([*declared_metrics(world), *domain_metric_names(records)]))
    return [metrics[0], *(extra[:1] if first_only else extra), *metrics[1:]]


def clocked(records: list[EvalRecord]) -> bool:
    """Whether some episode was played under a clock other than turns (its record has the clock's fields)."""
    return any(r.clock_idle_steps is not None for r in records)


def _console_metrics(records: list[EvalRecord], world: str = "") -> list[str]:
    """The per-pair console columns; the interdependence ones only when the records have them, the
    clock's only when some episode was played under a clock other than turns."""
    metrics = _with_domain(list(CONSOLE_METRICS), records, first_only=True, world=world)
    if not any(r.int_total is not None for r in records):
        metrics = [m for m in metrics if not m.startswith("int_")]
    return metrics + list(CLOCK_METRICS) if clocked(records) else metrics


def _all_metrics(records: list[EvalRecord], world: str = "") -> list[str]:
    """The metrics table's columns: every metric, the clock's only under a clock other than turns."""
    metrics = _with_domain(list(METRICS), records, world=world)
    return metrics if clocked(records) else [m for m in metrics if m not in CLOCK_METRICS]


def run_order(manifest: EvalManifest | None) -> dict[str, list]:
    if manifest is None:
        return {}
    config = manifest.config
    return {
        "agent": [a.name for a in config.agents],
        "partner": config.partners,
        "layout": manifest.layout_names,
        "seat": config.seats,
    }


def build_report(
    records: list[EvalRecord],
    manifest: EvalManifest | None,
    title: str,
    world: str = "",
    seats: list[LlmSeat] | None = None,
) -> Report:
    """The tables and figures' data. ``seats``: the LLM agents of a run without an evaluation
    manifest (a play or human run, from its config.json); an evaluation's come from its manifest."""
    order = run_order(manifest)
    config = manifest.config if manifest is not None else None
    if manifest is not None:
        seats = eval_llm_seats(config, manifest.models)
    report = Report(
        title=f"{title} ({world})" if world else title,
        world=world,
        models=models_caption(seats),
        models_short=models_short(seats),
        by_partner=pivot(records, "score", ["layout", "seat"], ["agent", "partner"], order),
        pooled=pivot(records, "score", ["layout", "seat"], ["agent"], order),
        metrics=summarize(records, ["agent", "partner", "layout", "seat"], _all_metrics(records, world), order),
        pairs=summarize(records, ["agent", "partner"], _console_metrics(records, world), order),
        interdependence=summarize(records, ["agent", "partner", "layout", "seat"], list(INTERDEPENDENCE_METRICS), order)
        if any(r.int_total is not None for r in records)
        else None,  # a domain without an interdependence model: no table of dashes
        process=summarize(
            records,
            ["agent", "partner", "layout", "seat"],
            ["score", *PROCESS_METRICS, *_capability_metrics(records)],
            order,
        )
        if any(r.process_metrics for r in records)
        else None,
        process_rows=process_rows(records),
        clock=clock_summary(records, order),
        clocks=clocks_short(config),
    )
    if manifest is not None and manifest.ablation is not None:
        report.ablation = ablation_table(records, manifest, order)
    return report


def captioned(text: str, caption: str) -> str:
    """``text`` (a Markdown page) with ``caption`` under its first heading: which model played."""
    heading, sep, rest = text.partition("\n\n")
    return f"{heading}\n\n{caption}\n\n{rest}" if sep and caption else text


def write_report(report: Report, folder: Path) -> list[Path]:
    """Every table and plot of the run, each naming the model(s) and prompt set(s) that played."""

    def md(name: str, text: str) -> Path:
        return _write(folder / name, captioned(text, report.models))

    written = [
        md("table.md", _table_markdown(report)),
        _write(folder / "table.csv", pivot_csv(report.by_partner)),
        _write(
            folder / "table.json",
            json.dumps({"by_partner": report.by_partner.model_dump(), "pooled": report.pooled.model_dump()}, indent=1),
        ),
        md("metrics.md", _metrics_markdown(report)),
        _write(folder / "metrics.csv", summary_csv(report.metrics)),
        _write(folder / "metrics.json", report.metrics.model_dump_json(indent=1)),
    ]
    if report.interdependence is not None and report.interdependence.rows:
        written.append(md("interdependence.md", _interdependence_markdown(report)))
    if report.process is not None and report.process.rows:
        written += [
            md("process.md", _process_markdown(report)),
            _write(folder / "process.csv", summary_csv(report.process)),
            _write(folder / "process.json", report.process.model_dump_json(indent=1)),
        ]
        written += _process_plots(report, folder)
    if report.by_partner.rows:
        title = f"{report.title}: score (mean ± se)\n{report.models_short}"
        written.append(score_chart(report.by_partner, folder / "scores.png", title))
    if report.clock is not None and report.clock.rows:
        title = f"{report.title}: the clock per agent / partner (mean ± se)\n{report.models_short}; {report.clocks}"
        written.append(clock_chart(report.clock, folder / CLOCK_FIGURE, title))
    if report.ablation is not None and report.ablation.rows:
        written += [
            md("ablation.md", ablation_markdown(report.ablation)),
            _write(folder / "ablation.csv", ablation_csv(report.ablation)),
            _write(folder / "ablation.json", report.ablation.model_dump_json(indent=1)),
            comparison_chart(
                report.ablation.summary(), folder / "ablation.png", f"{report.ablation.title}\n{report.models_short}"
            ),
        ]
    return written


def _table_markdown(report: Report) -> str:
    return (
        f"# {report.title}: score (mean ± se over episodes, n = episodes; no ± below n = 2; "
        "\"identical\": the n episodes played out exactly alike, one result repeated; "
        "a row's strictly best mean in bold, none on a tie)\n\n"
        "Rows: layout and the evaluated agent's seat (P0 = player 0). Columns: agent / partner.\n\n"
        + pivot_markdown(report.by_partner)
        + "\n## Pooled over partners (each agent with all partners, as in ProAgent's Table 1)\n\n"
        + pivot_markdown(report.pooled)
    )


def _metrics_markdown(report: Report) -> str:
    """metrics.md, with a pointer to the clock's figure where the run has one (`write_report` draws it)."""
    text = f"# {report.title}: metrics (mean ± se over episodes)\n\n" + summary_markdown(report.metrics)
    if report.clock is None or not report.clock.rows:
        return text
    return (
        text + f"\nThe clock's columns per agent / partner, pooled over layouts and seats ({report.clocks}):\n\n"
        f"![the clock per agent / partner]({CLOCK_FIGURE})\n"
    )


def _interdependence_markdown(report: Report) -> str:
    assert report.interdependence is not None
    return (
        f"# {report.title}: cooperation metrics (mean ± se over episodes)\n\n"
        "Interdependencies: pairs of actions where one player's effect satisfied the other's precondition "
        "(constructive: the object reaches a goal, e.g. a delivery, and is not passed back and forth). "
        "initiated: trigger actions (offers); accepted: the other player's offers acted upon. "
        "`proagent analyze <run>` gives the details when the run has a trace.\n\n"
        + summary_markdown(report.interdependence)
    )


def process_rows(records: list[EvalRecord]) -> list[dict]:
    """EmCoop's plot rows: the episodes played under a topology (the layout stands for the difficulty)."""
    return [
        {
            "topology": r.topology,
            "difficulty": r.layout,
            "team_size": len(r.team),
            "score": r.score,
            "steps": r.steps,
            **r.process_metrics,
        }
        for r in records
        if r.topology is not None and "task_steps" in r.process_metrics
    ]


def _process_plots(report: Report, folder: Path) -> list[Path]:
    """process_radar.png (a polygon per topology) and process_failures.png (failures attributed to
    each constraint, by layout and topology) when episodes were played under topologies."""
    rows = report.process_rows or []
    if not rows:
        return []
    return [
        radar_by_topology(
            rows,
            folder / "process_radar.png",
            title=f"{report.title}: the cooperation process by topology\n{report.models_short}",
        ),
        failure_bars(
            rows,
            folder / "process_failures.png",
            title=f"{report.title}: failed attempts by the constraint they broke\n{report.models_short}",
        ),
    ]


def _capability_metrics(records: list[EvalRecord]) -> list[str]:
    """The metrics only some worlds record (dZ, EmCoop's own: `CAPABILITY_METRICS`), where some record has them."""
    return [m for m in CAPABILITY_METRICS if any(m in r.process_metrics for r in records)]


def _process_markdown(report: Report) -> str:
    assert report.process is not None
    texts = {**PROCESS_METRICS, **CAPABILITY_METRICS}
    legend = "\n".join(f"- `{name}`: {texts[name]}" for name in report.process.metrics if name in texts)
    return (
        f"# {report.title}: the cooperation process (mean ± se over episodes)\n\n"
        "EmCoop's observable process: MAEIL's messages, interruptions and stages (agents run under a "
        "topology are labelled agent@topology) and the domain's cooperation constraints per task and step.\n\n"
        + legend + "\n\n" + summary_markdown(report.process, 2)
    )


def _write(path: Path, text: str) -> Path:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def print_report(report: Report, console: Console) -> None:
    """The score table, the per-pair metrics and the ablation: rich tables on a terminal, the
    Markdown of the report files otherwise (rich would cut every cell to 80 columns in a log)."""
    title = f"{report.title}: score (mean ± se); columns agent / partner"
    print_table(console, pivot_rich(report.by_partner, title), pivot_markdown(report.by_partner))
    pairs = "per agent / partner, pooled over layouts and seats"
    headers = {**CONSOLE_METRICS, **CLOCK_METRICS}
    print_table(console, summary_rich(report.pairs, pairs, 1, headers), summary_markdown(report.pairs, 1, headers))
    if report.ablation is not None:
        print_table(console, ablation_rich(report.ablation), markdown_rows(*ablation_rows(report.ablation)))
