"""A page sets our numbers beside a paper's only when the run played the paper's setting: its
horizon, seats and partners (and layouts, where a paper's cell pools them); fewer episodes never
withhold the comparison, they only widen the error bars."""

from __future__ import annotations

import pytest

from proagent.eval.paper_setting import setting_differences, withheld_line
from proagent.eval.reproduce import checked_config, grid_data, load_registry
from proagent.eval.reproduce_table import PaperNumbers, PaperRow, compare, comparison_markdown
from tests.eval.eval_helpers import rec

GRID_TARGETS = [t.name for t in load_registry().targets if t.implementation != "table"]


@pytest.mark.parametrize("name", GRID_TARGETS)
def test_every_grid_target_at_its_own_setting_is_the_papers(name: str) -> None:
    target = load_registry().get(name)
    assert target is not None
    config = checked_config(grid_data(target)[0], name)
    assert setting_differences(config, config, ("agent",)) == []
    fewer = config.model_copy(update={"episodes": 1})
    assert setting_differences(fewer, config, ("agent",)) == []  # fewer episodes: the same setting, noisier


def test_a_shorter_horizon_other_seats_or_partners_are_named() -> None:
    target = load_registry().get("proagent-table1")
    assert target is not None
    paper = checked_config(grid_data(target)[0], target.name)
    run = paper.model_copy(update={"horizon": 100, "seats": [0], "partners": ["sp"], "layouts": ["cramped_room"]})
    found = setting_differences(run, paper, ("agent", "layout", "seat"))
    assert found == ["steps per episode 100 vs 400", "seats 0 vs 0, 1", "partners sp vs sp, pbt, fcp, mep, cole"]
    pooled = setting_differences(run, paper, ("agent",))  # a cell over every layout: a subset is another cell
    assert pooled[-1].startswith("layouts cramped_room vs cramped_room, asymmetric_advantages")


def test_a_withheld_paper_leaves_our_cells_alone_with_one_line_saying_why() -> None:
    paper = PaperNumbers(source="a paper: 123.4 in Table 9", metric="score",
                         rows=[PaperRow(agent="x", layout="cramped_room", mean=123.4, se=5.0)])  # fmt: skip
    records = [rec("x", "greedy", 0, episode, score) for episode, score in enumerate((80.0, 90.0))]
    hidden = paper.withheld("Table 9 of a paper, its numbers withheld")
    why = withheld_line(["steps per episode 100 vs 400"])
    text = comparison_markdown("t", compare(records, hidden), hidden, [why])
    assert "| agent | layout | ours (score) |" in text and "| x | cramped_room | 85.0 ± 5.0 (n=2) |" in text
    assert "123.4" not in text and "z (SEs)" not in text and "Where we stand" not in text
    assert why in text and "(steps per episode 100 vs 400)" in why
