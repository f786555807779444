"""`proagent partners` groups checkpoints by world and layout, puts each layout's best self-play
first, and flags (with the rule printed) the checkpoints whose self-play is at chance level."""

from __future__ import annotations

import pytest

from proagent.cli import main
from proagent.cli.partners_cmd import CHANCE_NOTE, CHANCE_RULE, checkpoint_rows


def _mean(row: tuple[str, ...]) -> float:
    return float(row[8].split(" ")[0])


def test_rows_are_grouped_by_layout_best_first():
    rows = checkpoint_rows("overcooked")
    layouts = [row[0] for row in rows]
    assert layouts == sorted(layouts)
    for layout in set(layouts):
        means = [_mean(row) for row in rows if row[0] == layout]
        assert means == sorted(means, reverse=True), layout
    first_on = {layout: next(row[1] for row in rows if row[0] == layout) for layout in layouts}
    assert first_on["test_time_wide"] == "sp_s2" and first_on["grounded_coord_simple"] == "sp_s2"


def test_partners_at_chance_level_are_flagged():
    notes = {(row[0], row[1]): row[-1] for row in checkpoint_rows("overcooked")}
    assert notes[("test_time_wide", "sp")] == CHANCE_NOTE  # 0.0 against sp_s2's 191.6
    assert notes[("grounded_coord_simple", "sp")] == CHANCE_NOTE  # -0.05
    assert notes[("test_time_wide", "sp_s2")] == "" and notes[("cramped_room", "sp")] == ""
    assert notes[("test_time_simple", "sp")] == ""  # 11.6: weak, but above 1% of the best (104.6)
    assert all(row[-1] == "" for row in checkpoint_rows("cube"))  # every IPPO teammate scores


@pytest.mark.parametrize(("means", "bar"), [([], 0.0), ([-3.0, -1.0], 0.0), ([200.0, 0.5, None], 2.0)])
def test_the_chance_bar(means, bar):
    from proagent.cli.partners_cmd import chance_bar

    assert chance_bar(means) == pytest.approx(bar)


def test_without_a_domain_every_world_is_listed_with_the_rule(capsys):
    assert main(["partners"]) == 0
    out = capsys.readouterr().out
    assert out.index("cube partners: ") < out.index("overcooked partners: ")
    assert "| easy_2a | ippo_independent | ippo_independent |" in out  # the shipped IPPO teammates
    assert "| test_time_wide | sp | sp |" in out and CHANCE_RULE in out
    assert main(["partners", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.index("## cube") < out.index("## overcooked") and "| hard_4a | ippo_shared |" in out
