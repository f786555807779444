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
    # -0.05 is above random play's -12.2 there (random presses the recipe button, which costs points)
    assert notes[("grounded_coord_simple", "sp")] == ""
    assert notes[("test_time_wide", "sp_s2")] == "" and notes[("cramped_room", "sp")] == ""
    assert notes[("test_time_simple", "sp")] == ""  # 11.6: weak, but above 1% of the best (104.6)
    assert all(row[-1] == "" for row in checkpoint_rows("cube"))  # every IPPO teammate scores


@pytest.mark.parametrize(
    ("means", "baseline", "bar"),
    [
        ([], (0.0, 0.0), 0.0),
        ([200.0, 0.5, None], (0.0, 0.0), 2.0),  # random play scores nothing: 1% of the way to the best
        ([1.9, -0.6, -4.3], (-4.08, 0.09), -4.08 + 0.18),  # negative scores: two of random play's standard errors
        ([-3.0, -1.0], None, None),  # no random baseline measured: nothing is flagged
    ],
)
def test_the_chance_bar_is_measured_from_random_play(means, baseline, bar):
    from proagent.cli.partners_cmd import Baseline, chance_bar

    found = chance_bar(means, None if baseline is None else Baseline(*baseline))
    assert found == (None if bar is None else pytest.approx(bar))


def test_yokai_partners_well_above_random_play_are_not_at_chance():
    """Random play scores about -4.08 in Yōkai: a partner at -0.6 is far above it, one at -4.3 is not."""
    from proagent.cli.partners_cmd import random_baselines

    assert random_baselines("yokai")["9c_2p"].mean < -3.5
    notes = {row[1]: row[-1] for row in checkpoint_rows("yokai")}
    assert notes["sp_pointer_lr1e3_s1"] == "" and notes["op_pointer_lr1e3"] == ""  # -0.59, -0.64
    assert notes["sp"] == CHANCE_NOTE and notes["op"] == CHANCE_NOTE  # -4.29, -4.40


def test_every_layout_with_checkpoints_has_a_random_baseline():
    from proagent.cli.partners_cmd import _checkpoints, random_baselines

    for world in ("cube", "overcooked", "yokai"):
        assert {c.layout for c in _checkpoints(world)} <= set(random_baselines(world)), world


def test_without_a_domain_every_world_is_listed_with_the_rule(capsys):
    assert main(["partners"]) == 0
    out = capsys.readouterr().out
    assert out.index("cube partners: ") < out.index("overcooked partners: ")
    assert "| easy_2a | ippo_independent | ippo_independent |" in out  # the shipped IPPO teammates
    assert "| test_time_wide | sp | sp |" in out and CHANCE_RULE in out
    assert main(["partners", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.index("## cube") < out.index("## overcooked") and "| hard_4a | ippo_shared |" in out
