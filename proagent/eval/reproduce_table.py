"""Our numbers beside a paper's: the table `proagent reproduce` writes after an evaluation run.

The paper's numbers are a JSON file of rows (data/proagent_paper_*.json), each naming the cell it
belongs to by agent, layout and/or seat; ours are the run's records of that cell. Rows are read from
the records, never typed in, so the table can only say what the run did; a cell the paper has and
the run lacks shows "–" on our side, and one the run has and the paper lacks shows "–" on theirs.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from proagent.eval.paper_gap import Gap, summary_markdown
from proagent.eval.records import EvalRecord
from proagent.eval.stats import MeanSE, metric_stat
from proagent.numbers import format_published

KEYS = ("agent", "layout", "seat")
Cell = tuple[str | int | None, ...]


class PaperRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agent: str | None = None
    layout: str | None = None
    seat: int | None = None
    mean: float
    se: float | None = None

    def cell(self, keys: tuple[str, ...]) -> Cell:
        fields = self.model_dump(include=set(KEYS))
        return tuple(fields[k] for k in keys)


class PaperNumbers(BaseModel):
    """A paper's numbers for one table: where they come from, the metric and the rows."""

    model_config = ConfigDict(extra="forbid")
    source: str
    metric: str
    self_play: bool = Field(
        True, description="False: the paper's cells average an agent with the others only, so ours leave out self-play"
    )
    rows: list[PaperRow]
    cell_keys: list[str] | None = Field(
        None, description="the fields cells are named by, when the rows are withheld (ours keep the paper's cells)"
    )

    def keys(self) -> tuple[str, ...]:
        """The fields the rows name their cells by (those set in some row), in KEYS order; all of
        them when there is no row (a paper that gives a figure only: ours alone, cell by cell)."""
        if self.cell_keys is not None:
            return tuple(k for k in KEYS if k in self.cell_keys)
        return tuple(k for k in KEYS if any(row.cell((k,)) != (None,) for row in self.rows)) or KEYS

    def withheld(self, source: str) -> PaperNumbers:
        """The same table without the paper's numbers (a run not at the paper's setting): our cells
        are named as the paper's are, nothing is set beside them, and ``source`` names the table
        without quoting its numbers (a source line may quote them)."""
        return self.model_copy(update={"rows": [], "cell_keys": list(self.keys()), "source": source})


class ComparisonRow(BaseModel):
    cell: dict[str, str | int | None]
    ours: MeanSE
    paper: PaperRow | None

    @property
    def difference(self) -> float | None:
        return None if self.paper is None or self.ours.mean is None else self.ours.mean - self.paper.mean

    def gap(self) -> Gap | None:
        """The cell's gap to the paper (None where the paper has no number for it)."""
        if self.paper is None:
            return None
        label = " ".join(str(v) for v in self.cell.values() if v is not None)
        return Gap(label=label, ours=self.ours, paper_mean=self.paper.mean, paper_se=self.paper.se)


def cell_gaps(rows: list[ComparisonRow]) -> list[Gap]:
    return [g for row in rows if (g := row.gap()) is not None]


def read_paper_numbers(path: Path) -> PaperNumbers:
    return PaperNumbers.model_validate(json.loads(path.read_text(encoding="utf-8")))


def record_cell(record: EvalRecord, keys: tuple[str, ...]) -> Cell:
    values = {"agent": record.agent, "layout": record.layout, "seat": record.seat}
    return tuple(values[k] for k in keys)


def compare(records: list[EvalRecord], paper: PaperNumbers) -> list[ComparisonRow]:
    """One row per cell the paper or the run has: paper cells in the paper's order, then the run's
    other cells sorted by name (not in the order episodes happened to finish, which concurrency
    decides, so a page is the same every time its records are). Where the paper pairs an agent with the
    others only (``self_play`` False), an agent's episodes with itself are left out of ours too."""
    keys = paper.keys()
    by_cell: dict[Cell, list[EvalRecord]] = {}
    for record in records if paper.self_play else [r for r in records if r.agent != r.partner]:
        by_cell.setdefault(record_cell(record, keys), []).append(record)
    paper_cells = {row.cell(keys): row for row in paper.rows}
    cells = [*paper_cells, *sorted((c for c in by_cell if c not in paper_cells), key=lambda c: tuple(map(str, c)))]
    return [
        ComparisonRow(
            cell=dict(zip(keys, cell)),
            ours=metric_stat(by_cell.get(cell, []), paper.metric),
            paper=paper_cells.get(cell),
        )
        for cell in cells
    ]


def _number(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def comparison_markdown(
    title: str, rows: list[ComparisonRow], paper: PaperNumbers, notes: list[str], plot: Path | None = None
) -> str:
    """The table: one line per cell, ours (mean ± se (n)), the paper's, ours minus the paper's and
    that in standard errors; then where we stand (`paper_gap`) and the plot, when there is one. A
    paper without numbers here (none given, or withheld) gives our column alone."""
    if not paper.rows:
        return ours_markdown(title, rows, paper, notes, plot)
    theirs = [row.paper.mean for row in rows if row.paper]
    digits = 2 if theirs and all(abs(mean) <= 1 for mean in theirs) else 1  # rates get two, scores one
    keys = paper.keys()
    header = [*keys, f"ours ({paper.metric})", "paper", "difference (ours − paper)", "z (SEs)"]
    lines = [*heading(title, paper, notes), "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for row in rows:
        theirs = (
            "–"
            if row.paper is None
            else format_published(_number(row.paper.mean, digits), row.paper.se)
        )
        cells = [str(row.cell[k]) for k in keys]
        gap = row.gap()
        z = "–" if gap is None or row.ours.mean is None or gap.z is None else f"{gap.z:+.1f}"
        lines.append(
            "| " + " | ".join([*cells, row.ours.text(digits), theirs, _number(row.difference, digits), z]) + " |"
        )
    lines += wide_markdown(rows, keys, digits)
    lines += ["", summary_markdown(cell_gaps(rows), digits).rstrip("\n")]
    if plot is not None:
        caption = "ours against the paper" if cell_gaps(rows) else "ours (the paper gives no number to set beside it)"
        lines += ["", f"![{caption}]({plot.name})"]
    return "\n".join(lines) + "\n"


def heading(title: str, paper: PaperNumbers, notes: list[str]) -> list[str]:
    return [
        f"# {title}",
        "",
        *notes,
        "",
        f"Paper: {paper.source}.",
        *(
            []
            if paper.self_play
            else ["", "Ours leave out each agent's episodes with itself, as the paper's cells do."]
        ),
        "",
    ]


def ours_markdown(
    title: str, rows: list[ComparisonRow], paper: PaperNumbers, notes: list[str], plot: Path | None
) -> str:
    """Our cells alone: no paper column, no difference, no z (nothing of the paper's to set them beside)."""
    ours = [row.ours.mean for row in rows if row.ours.mean is not None]
    digits = 2 if ours and all(0 <= mean <= 1 for mean in ours) and paper.metric != "score" else 1
    keys = paper.keys()
    header = [*keys, f"ours ({paper.metric})"]
    lines = [*heading(title, paper, notes), "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    lines += ["| " + " | ".join([*(str(row.cell[k]) for k in keys), row.ours.text(digits)]) + " |" for row in rows]
    if plot is not None:
        lines += ["", f"![ours alone]({plot.name})"]
    return "\n".join(lines) + "\n"


def wide_markdown(rows: list[ComparisonRow], keys: tuple[str, ...], digits: int) -> list[str]:
    """The same cells laid out as a paper's agent table (a row per layout and seat, a column per
    agent: ours / the paper's means), where the cells name all three and several agents."""
    agents = list(dict.fromkeys(str(row.cell["agent"]) for row in rows)) if keys == KEYS else []
    if len(agents) < 2:
        return []
    places = list(dict.fromkeys((row.cell["layout"], row.cell["seat"]) for row in rows))
    found = {(row.cell["agent"], row.cell["layout"], row.cell["seat"]): row for row in rows}
    lines = ["", "As the paper lays it out (ours / the paper's mean; – where one side has no number):", "",
             "| layout | seat | " + " | ".join(agents) + " |", "|---" * (len(agents) + 2) + "|"]  # fmt: skip
    for layout, seat in places:
        cells = []
        for agent in agents:
            row = found.get((agent, layout, seat))
            ours = None if row is None else row.ours.mean
            theirs = None if row is None or row.paper is None else row.paper.mean
            cells.append(f"{_number(ours, digits)} / {_number(theirs, digits)}")
        lines.append(f"| {layout} | {seat} | " + " | ".join(cells) + " |")
    return lines
