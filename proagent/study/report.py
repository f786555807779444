"""`proagent study report`'s files: the paper's Tables 2-4 and the questionnaire analysis as
Markdown (report.md, for people) and CSV (one file per table, for a lab's own statistics), and
plots where matplotlib is installed.

The report writes only the files named in `OUTPUTS` (atomically), so re-running it over the same
folder replaces its own files and touches nothing else. Every mean carries its n
(`proagent.numbers.format_mean`), every test its n and df.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from proagent.files import write_atomic
from proagent.numbers import format_mean
from proagent.study import tables
from proagent.study.plots import draw_plots
from proagent.study.read import Study
from proagent.study.stats import Mean
from proagent.tables_out import markdown_rows

REPORT_FILE = "report.md"
CSV_FILES = ("table2.csv", "table3.csv", "table4.csv", "rounds.csv", "ratings.csv", "tests.csv", "correlations.csv")
DIGITS = 2


def _m(value: Mean) -> str:
    return (
        format_mean(value.mean, value.se if value.se is not None else float("nan"), value.n, DIGITS)
        if value.mean is not None
        else "n/a (n=0)"
    )


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None, rounds: int) -> str:
    return f"n/a (no triggers, n={rounds})" if value is None else f"{value:.2f}% (n={rounds})"


def _p(value: float | None) -> str:
    return "n/a" if value is None else ("< 0.001" if value < 0.001 else f"{value:.3f}")


def _outcome_md(study: Study, rows: list[tables.OutcomeRow], best: bool) -> str:
    layouts = study.config.layouts
    header = ["agent", *(["best team"] if best else [])]
    for metric in ("reward", "Int_cons", "Int_non-cons"):
        header += [f"{metric} {x.label}" for x in layouts]
    body = []
    for partner in study.config.partners:
        mine = {r.layout: r for r in rows if r.partner == partner.name}
        line = [partner.shown]
        if best:
            line.append(
                ", ".join(
                    f"{x.label}: {mine[x.name].participant}" if x.name in mine else f"{x.label}: -" for x in layouts
                )
            )
        for field in ("reward", "constructive", "non_constructive"):
            line += [_m(getattr(mine[x.name], field)) if x.name in mine else "n/a (n=0)" for x in layouts]
        body.append(line)
    return markdown_rows(header, body)


def _share_md(study: Study, rows: list[tables.ShareRow]) -> str:
    layouts = study.config.layouts
    header = [
        "agent",
        *(f"%H-sub initiated {x.label}" for x in layouts),
        *(f"%H-sub accepted {x.label}" for x in layouts),
    ]
    body = []
    for partner in study.config.partners:
        mine = {r.layout: r for r in rows if r.partner == partner.name}
        line = [partner.shown]
        line += [_pct(mine[x.name].h_sub_initiated, mine[x.name].rounds) if x.name in mine else "n/a" for x in layouts]
        line += [_pct(mine[x.name].h_sub_accepted, mine[x.name].rounds) if x.name in mine else "n/a" for x in layouts]
        body.append(line)
    return markdown_rows(header, body)


def _sides_md(study: Study, rows: list[tables.ShareRow]) -> str:
    header = ["agent", "layout", "human initiated", "agent initiated", "human accepted", "agent accepted"]
    body = [
        [
            study.config.partner_label(r.partner),
            study.config.layout_label(r.layout),
            _m(r.human_initiated),
            _m(r.agent_initiated),
            _m(r.human_accepted),
            _m(r.agent_accepted),
        ]
        for r in rows
    ]
    return markdown_rows(header, body)


def _ratings_md(study: Study, result: tables.StudyTables) -> str:
    out = []
    for layout in study.config.layouts:
        header = ["scale", *(p.shown for p in study.config.partners)]
        body = []
        for s in result.scales:
            cells = {r.partner: r.rating for r in result.ratings if r.scale == s.key and r.layout == layout.name}
            body.append([_scale_name(s), *(_m(cells[p.name]) for p in study.config.partners)])
        out.append(f"**{layout.label}** ({layout.name}), mean rating over rounds:\n\n" + markdown_rows(header, body))
    return "\n".join(out)


def _scale_name(scale: tables.Scale) -> str:
    return f"{scale.key}: {scale.label}" if scale.kind == "item" else f"{scale.label} ({', '.join(scale.items)})"


def _layout_name(study: Study, layout: str) -> str:
    names = {x.name: x.label for x in study.config.layouts}
    if layout in names:
        return names[layout]
    if " - " in layout:
        second, first = layout.split(" - ")
        return f"{names.get(second, second)} - {names.get(first, first)}"
    return layout


def _tests_md(study: Study, result: tables.StudyTables) -> str:
    header = ["scale", "test", "layout", "n", "mean", "t", "df", "p", "d"]
    keys = {s.key: s for s in result.scales}
    body = [
        [
            _scale_name(keys[r.scale]),
            r.test,
            _layout_name(study, r.layout),
            str(r.result.n),
            _num(r.result.mean),
            _num(r.result.t),
            str(r.result.df or "n/a"),
            _p(r.result.p),
            _num(r.result.d),
        ]
        for r in result.tests
    ]
    return markdown_rows(header, body)


def _correlations_md(study: Study, result: tables.StudyTables) -> str:
    header = ["scale", "metric", "layout", "n", "Pearson r", "p", "Spearman rho", "p"]
    categories = {s.key for s in result.scales if s.kind == "category"}
    body = [
        [
            r.scale,
            r.metric,
            _layout_name(study, r.layout),
            str(r.result.n),
            _num(r.result.pearson_r),
            _p(r.result.pearson_p),
            _num(r.result.spearman_rho),
            _p(r.result.spearman_p),
        ]
        for r in result.correlations
        if r.scale in categories
    ]
    return markdown_rows(header, body)


def markdown(
    study: Study, result: tables.StudyTables, command: str, plots: Sequence[str], plot_note: str | None
) -> str:
    """report.md: the tables in the paper's order, each with its unit; then what was skipped."""
    answered = sum(r.answers is not None for r in study.rounds)
    parts = [
        f"# Study report: {study.config.name}\n",
        (
            f"{len({r.participant for r in study.rounds})} participants, {len(study.rounds)} analysed rounds "
            f"({answered} with questionnaire answers). "
            f"Regenerate: `{command}`. Means are `mean ± standard error (n=rounds)`.\n"
        ),
        "## Table 2: reward and interdependence per agent and layout\n\n"
        + _outcome_md(study, result.table2, best=False),
        "## Table 3: the best team per agent (highest mean reward of one participant with the agent on the layout)\n\n"
        + _outcome_md(study, result.table3, best=True),
        "## Table 4(a): %H-sub, the human's share of the interdependencies initiated and accepted "
        "(pooled over all rounds)\n\n"
        + _share_md(study, result.table4_all)
        + "\nTriggers per round on each side:\n\n"
        + _sides_md(study, result.table4_all),
        "## Table 4(b): %H-sub of the best team\n\n" + _share_md(study, result.table4_best),
        "## Questionnaire: ratings per agent\n\n" + _ratings_md(study, result),
        f"## Questionnaire tests (unit: participant; one-sample against the neutral {study.neutral}; "
        "paired between the layouts)\n\n"
        + _tests_md(study, result),
        "## Ratings and interdependence (unit: answered round; every item is in correlations.csv)\n\n"
        + _correlations_md(study, result),
    ]
    if plots:
        parts.append("## Plots\n\n" + "\n".join(f"![{name}]({name})" for name in plots) + "\n")
    if plot_note:
        parts.append(f"Plots: {plot_note}\n")
    if study.notes:
        parts.append("## Skipped while reading\n\n" + "\n".join(f"- {note}" for note in study.notes) + "\n")
    return "\n".join(parts)


def _csv(header: list[str], rows: list[list]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _mean_cols(name: str) -> list[str]:
    return [f"{name}_mean", f"{name}_se", f"{name}_n"]


def _mean_vals(value: Mean) -> list:
    return [value.mean, value.se, value.n]


OUTCOME_HEADER = [
    "partner",
    "layout",
    "participant",
    "participants",
    *_mean_cols("reward"),
    *_mean_cols("constructive"),
    *_mean_cols("non_constructive"),
]
SIDES = ("human_initiated", "agent_initiated", "human_accepted", "agent_accepted")
SHARE_HEADER = [
    "partner",
    "layout",
    "scope",
    "rounds",
    *(c for s in SIDES for c in _mean_cols(s)),
    "h_sub_initiated_pct",
    "h_sub_accepted_pct",
]
ROUND_HEADER = [
    "participant",
    "round",
    "layout",
    "partner",
    "folder",
    "reward",
    "constructive",
    "non_constructive",
    *SIDES,
]
TEST_HEADER = ["scale", "test", "layout", "n", "mean", "t", "df", "p", "d"]
CORRELATION_HEADER = ["scale", "metric", "layout", "n", "pearson_r", "pearson_p", "spearman_rho", "spearman_p"]


def _outcome_csv(rows: list[tables.OutcomeRow]) -> str:
    return _csv(
        OUTCOME_HEADER,
        [
            [
                r.partner,
                r.layout,
                r.participant,
                r.participants,
                *_mean_vals(r.reward),
                *_mean_vals(r.constructive),
                *_mean_vals(r.non_constructive),
            ]
            for r in rows
        ],
    )


def _share_csv(rows: list[tables.ShareRow]) -> str:
    return _csv(
        SHARE_HEADER,
        [
            [
                r.partner,
                r.layout,
                r.scope,
                r.rounds,
                *(v for s in SIDES for v in _mean_vals(getattr(r, s))),
                r.h_sub_initiated,
                r.h_sub_accepted,
            ]
            for r in rows
        ],
    )


def _rounds_csv(study: Study) -> str:
    """Every analysed round with its answers: the data a lab's own statistics start from."""
    ids = [q.id for q in study.questionnaire.questions]
    rows = [
        [
            r.participant,
            r.k,
            r.layout,
            r.partner,
            r.folder,
            r.score,
            r.constructive,
            r.non_constructive,
            r.human_initiated,
            r.agent_initiated,
            r.human_accepted,
            r.agent_accepted,
        ]
        + [(r.answers or {}).get(i) for i in ids]
        for r in sorted(study.rounds, key=lambda r: (r.participant, r.k))
    ]
    return _csv([*ROUND_HEADER, *ids], rows)


def csv_files(study: Study, result: tables.StudyTables) -> dict[str, str]:
    """File name -> its CSV text; numbers unrounded, a missing value empty."""
    return {
        "table2.csv": _outcome_csv(result.table2),
        "table3.csv": _outcome_csv(result.table3),
        "table4.csv": _share_csv(result.table4_all + result.table4_best),
        "rounds.csv": _rounds_csv(study),
        "ratings.csv": _csv(
            ["scale", "partner", "layout", *_mean_cols("rating")],
            [[r.scale, r.partner, r.layout, *_mean_vals(r.rating)] for r in result.ratings],
        ),
        "tests.csv": _csv(
            TEST_HEADER,
            [
                [t.scale, t.test, t.layout, t.result.n, t.result.mean, t.result.t, t.result.df, t.result.p, t.result.d]
                for t in result.tests
            ],
        ),
        "correlations.csv": _csv(
            CORRELATION_HEADER,
            [
                [
                    c.scale,
                    c.metric,
                    c.layout,
                    c.result.n,
                    c.result.pearson_r,
                    c.result.pearson_p,
                    c.result.spearman_rho,
                    c.result.spearman_p,
                ]
                for c in result.correlations
            ],
        ),
    }


def write_report(study: Study, out: Path, command: str) -> list[Path]:
    """Every output file into ``out`` (created); returns their paths."""

    out.mkdir(parents=True, exist_ok=True)
    result = tables.compute(study)
    written = []
    for name, text in csv_files(study, result).items():
        write_atomic(out / name, text)
        written.append(out / name)
    plots, note = draw_plots(study, result, out)
    write_atomic(out / REPORT_FILE, markdown(study, result, command, [p.name for p in plots], note))
    return [out / REPORT_FILE, *written, *plots]
