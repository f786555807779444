"""The comparison table of an ablation: per variant, the values it actually ran with, each metric's
mean ± se with its 95% t interval, and the paired difference from the baseline variant.

The values come from config.json (what was run), never from a variant's name, so a table can not
say ``k0`` beside a run that played ``memory_k = 3``. The baseline is the first variant of the
file; a difference pairs each episode with the baseline's episode of the same partner, layout,
seat and seed (every variant plays the same seeds), so what a seed decides cancels out.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from pydantic import BaseModel
from rich.table import Table

from proagent.eval.manifest import EvalManifest
from proagent.eval.model_names import adapter_words
from proagent.eval.records import EvalRecord
from proagent.eval.render import label_text
from proagent.eval.stats import INTERVAL_NOTE, RATE_NOTE, MeanSE, is_rate, metric_value, paired_difference
from proagent.eval.tables import Labels, Summary, SummaryRow, summarize
from proagent.tables_out import markdown_rows

PAIR_KEYS = ("partner", "layout", "seat", "seed")
PAIRING_NOTE = "paired by partner, layout, seat and seed (each variant plays the same seeds)"


class AblationRow(BaseModel):
    labels: Labels
    config: dict[str, str]  # varied field -> the value the variant ran with
    stats: dict[str, MeanSE]
    differences: dict[str, MeanSE]  # metric -> paired difference from the baseline; empty for the baseline


class AblationTable(BaseModel):
    title: str
    baseline: str
    varied: list[str]
    group_keys: list[str]
    metrics: list[str]
    rows: list[AblationRow]

    def summary(self) -> Summary:
        """The means alone, as a `Summary` (for the comparison chart)."""
        rows = [SummaryRow(labels=row.labels, stats=row.stats) for row in self.rows]
        return Summary(group_keys=self.group_keys, metrics=self.metrics, rows=rows)


def run_values(manifest: EvalManifest, variants: Sequence[str]) -> dict[str, dict[str, object]]:
    """Variant -> its agent fields as run: the effective AgentConfig ('auto' settled) over the spec."""
    specs = {a.name: a.model_dump(exclude={"label"}) for a in manifest.config.agents}
    return {v: {**specs.get(v, {}), **manifest.agent_configs.get(v, {})} for v in variants}


def shown_value(field: str, value: object) -> str:
    """A varied value as the table shows it: an adapter by its folder and file (the path it was run
    from is the machine's, not the result's), the raw model as ``none``."""
    if field != "adapter" or value == "–":
        return str(value)
    return "none (the raw model)" if value is None else adapter_words(str(value)) or str(value)


def varied_fields(manifest: EvalManifest, values: dict[str, dict[str, object]]) -> list[str]:
    """The fields the file varies, and any other field whose value differs between the variants."""
    assert manifest.ablation is not None
    fields = list(manifest.ablation.varied)
    known = list(dict.fromkeys(f for v in values.values() for f in v))
    differing = [f for f in known if len({repr(v.get(f)) for v in values.values()}) > 1]
    return list(dict.fromkeys([*fields, *differing]))


def _paired(records: Sequence[EvalRecord], metric: str) -> dict[tuple, float]:
    out = {}
    for r in records:
        value = metric_value(r, metric)
        if value is not None:
            out[tuple(getattr(r, k) for k in PAIR_KEYS)] = value
    return out


def ablation_table(records: Sequence[EvalRecord], manifest: EvalManifest, order: dict[str, list]) -> AblationTable:
    """The table of ``manifest``'s ablation from its variants' records (split by partner and layout
    when the file lists several)."""
    info = manifest.ablation
    assert info is not None
    variants = [r for r in records if r.agent in info.variants]
    multi = (("partner", manifest.config.partners), ("layout", manifest.layout_names))
    keys = ["agent"] + [k for k, listed in multi if len(listed) > 1]
    summary = summarize(variants, keys, info.metrics, {**order, "agent": info.variants})
    values = run_values(manifest, info.variants)
    varied = varied_fields(manifest, values)
    baseline = info.variants[0]
    rows = []
    for row in summary.rows:
        agent = str(row.labels["agent"])
        rest = {k: v for k, v in row.labels.items() if k != "agent"}
        mine = [r for r in variants if r.agent == agent and all(getattr(r, k) == v for k, v in rest.items())]
        base = [r for r in variants if r.agent == baseline and all(getattr(r, k) == v for k, v in rest.items())]
        differences = (
            {}
            if agent == baseline
            else {m: paired_difference(_paired(mine, m), _paired(base, m)) for m in info.metrics}
        )
        config = {f: shown_value(f, values.get(agent, {}).get(f, "–")) for f in varied}
        rows.append(AblationRow(labels=row.labels, config=config, stats=row.stats, differences=differences))
    return AblationTable(
        title=info.title, baseline=baseline, varied=varied, group_keys=keys, metrics=info.metrics, rows=rows
    )


def _header(table: AblationTable) -> list[str]:
    per_metric = [[m, f"{m} 95% CI", f"Δ {m} vs {table.baseline} [95% CI]"] for m in table.metrics]
    return [" / ".join(table.group_keys), *table.varied, *(h for triple in per_metric for h in triple)]


def _cells(row: AblationRow, metric: str, digits: int) -> list[str]:
    stat, rate = row.stats[metric], is_rate(metric)
    if metric not in row.differences:
        return [stat.text(digits), stat.interval_text(digits, rate), "baseline"]
    diff = row.differences[metric]
    return [stat.text(digits), stat.interval_text(digits, rate), f"{diff.text(digits)} {diff.interval_text(digits)}"]


def ablation_rows(table: AblationTable, digits: int = 2) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the table as text, shared by the Markdown and the terminal renderings."""
    rows = [
        [
            label_text(row.labels),
            *(row.config[f] for f in table.varied),
            *(c for m in table.metrics for c in _cells(row, m, digits)),
        ]
        for row in table.rows
    ]
    return _header(table), rows


def ablation_markdown(table: AblationTable, digits: int = 2) -> str:
    """The table with a header that says what each column holds, what is paired and which interval."""
    header, rows = ablation_rows(table, digits)
    note = (
        f"Columns {', '.join(f'`{f}`' for f in table.varied) or '(none)'}: the values each variant ran with "
        "(config.json). "
        f"Cells: mean ± se (n = episodes); 95% CI: the {INTERVAL_NOTE}; {RATE_NOTE}. "
        f"Δ: the variant minus the baseline `{table.baseline}`, {PAIRING_NOTE}: mean ± se (n = pairs) [95% t "
        "interval].\n\n"
    )
    return f"# {table.title}\n\n" + note + markdown_rows(header, rows)


def ablation_rich(table: AblationTable, digits: int = 2) -> Table:
    header, rows = ablation_rows(table, digits)
    out = Table(title=f"{table.title} (Δ: vs {table.baseline}, {PAIRING_NOTE})", title_justify="left")
    for i, column in enumerate(header):
        out.add_column(column, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for row in rows:
        out.add_row(*row)
    return out



def ablation_csv(table: AblationTable) -> str:
    """One line per row: labels, the varied values, and per metric mean, se, n, the interval and the
    paired difference from the baseline (mean, se, pairs, interval); empty where undefined."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    parts = (
        "mean",
        "se",
        "n",
        "ci_low",
        "ci_high",
        "diff_mean",
        "diff_se",
        "diff_pairs",
        "diff_ci_low",
        "diff_ci_high",
    )
    writer.writerow([*table.group_keys, *table.varied, *(f"{m}_{part}" for m in table.metrics for part in parts)])
    for row in table.rows:
        cells = [
            x for m in table.metrics
            for x in (*_numbers(row.stats[m], is_rate(m)), *_numbers(row.differences.get(m, MeanSE(n=0))))
        ]  # fmt: skip
        writer.writerow([*row.labels.values(), *(row.config[f] for f in table.varied), *cells])
    return out.getvalue()


def _numbers(stat: MeanSE, rate: bool = False) -> list[str]:
    low, high = stat.interval(rate) or (None, None)
    return [_num(stat.mean), _num(stat.se), str(stat.n), _num(low), _num(high)]


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"
