"""Where a reproduction stands against the paper: each cell's gap in standard errors of the
difference, a summary that counts cells above and below (and those beyond two standard errors), and
the plot of ours against the paper's means."""

from __future__ import annotations

import math
from pathlib import Path

from proagent.eval.paper_gap import Gap, gap_plot, summary_markdown
from proagent.eval.reproduce_table import PaperNumbers, PaperRow, cell_gaps, compare, comparison_markdown
from proagent.eval.stats import MeanSE, mean_se
from tests.eval.eval_helpers import rec


def test_the_gap_is_scaled_by_both_sides_standard_errors() -> None:
    cell = Gap(label="a", ours=MeanSE(n=4, mean=110.0, se=3.0), paper_mean=100.0, paper_se=4.0)
    assert cell.difference == 10.0 and cell.se == 5.0 and cell.z == 2.0
    one_episode = Gap(label="b", ours=MeanSE(n=1, mean=90.0, se=None), paper_mean=100.0, paper_se=5.0)
    assert one_episode.z == -2.0  # only the paper's error bar counts
    nothing = Gap(label="c", ours=MeanSE(n=1, mean=90.0, se=None), paper_mean=100.0, paper_se=None)
    assert nothing.se is None and nothing.z is None  # no certainty made up


def test_the_summary_counts_cells_above_below_and_beyond_two_standard_errors() -> None:
    cells = [
        Gap(label="far above", ours=mean_se([200.0, 210.0, 190.0]), paper_mean=100.0, paper_se=5.0),
        Gap(label="near below", ours=mean_se([95.0, 105.0, 97.0]), paper_mean=100.0, paper_se=10.0),
        Gap(label="far below", ours=mean_se([10.0, 12.0]), paper_mean=100.0, paper_se=2.0),
        Gap(label="no error", ours=MeanSE(n=1, mean=50.0), paper_mean=60.0),
        Gap(label="not played", ours=MeanSE(n=0), paper_mean=60.0, paper_se=1.0),
    ]
    text = summary_markdown(cells)
    assert "Of 4 cells with both numbers, ours is above the paper's in 1, below in 3." in text
    assert "above in 1, below in 1, within in 1; 1 cell(s) have no standard error on either side" in text
    far_below = cells[2]
    assert far_below.z is not None and math.isclose(far_below.z, -89.0 / math.hypot(1.0, 2.0))
    largest = text.split("Largest gaps (ours vs the paper's): ")[1]
    assert largest.startswith(f"far below: 11.0 vs 100.0 (z = {far_below.z:+.1f}); far above")


def test_a_page_has_the_z_column_the_summary_and_the_plot(tmp_path: Path) -> None:
    paper = PaperNumbers(source="a paper", metric="score", rows=[PaperRow(agent="x", layout="cramped_room", mean=100.0, se=5.0)])
    records = [rec("x", "greedy", 0, episode, score) for episode, score in enumerate((80.0, 90.0))]
    rows = compare(records, paper)
    plot = gap_plot(cell_gaps(rows), tmp_path / "page_vs_paper.png", "t")
    assert plot is not None and plot.stat().st_size > 0
    text = comparison_markdown("t", rows, paper, [], plot)
    z = (85.0 - 100.0) / math.hypot(5.0, 5.0)
    assert f"| x | cramped_room | 85.0 ± 5.0 (n=2) | 100.0 ± 5 | -15.0 | {z:+.1f} |" in text
    assert "## Where we stand" in text and "![ours against the paper](page_vs_paper.png)" in text


def test_no_plot_without_a_cell_on_both_sides(tmp_path: Path) -> None:
    assert gap_plot([Gap(label="a", ours=MeanSE(n=0), paper_mean=1.0)], tmp_path / "p.png", "t") is None
    assert not (tmp_path / "p.png").exists()


def test_cells_the_paper_lacks_come_in_one_order_whatever_order_the_episodes_finished() -> None:
    """Concurrency decides which episode finishes first; the page's rows must not depend on it."""
    paper = PaperNumbers(source="a paper", metric="score", rows=[PaperRow(agent="z", layout="cramped_room", mean=1.0)])
    records = [rec(agent, "greedy", 0, 0, 10.0) for agent in ("z", "on", "llm3", "off")]
    orders = {tuple(row.cell["agent"] for row in compare(list(done), paper)) for done in (records, records[::-1])}
    assert orders == {("z", "llm3", "off", "on")}  # the paper's cell first, then the others by name


def test_a_table_of_agents_is_also_laid_out_as_the_paper_prints_it() -> None:
    paper = PaperNumbers(source="a paper", metric="score", rows=[
        PaperRow(agent=a, layout="cramped_room", seat=0, mean=m, se=1.0) for a, m in (("x", 100.0), ("y", 50.0), ("z", 7.0))
    ])  # fmt: skip
    records = [rec("x", "greedy", 0, 0, 80.0), rec("y", "greedy", 0, 0, 40.0)]
    text = comparison_markdown("t", compare(records, paper), paper, [])
    wide = text.split("As the paper lays it out")[1]
    assert "| layout | seat | x | y | z |" in wide and "| cramped_room | 0 | 80.0 / 100.0 | 40.0 / 50.0 | – / 7.0 |" in wide
