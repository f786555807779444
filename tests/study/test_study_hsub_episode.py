"""%H-sub from a hand-built episode: the interdependence analysis counts a scripted hand-over
(`tests/interdependence`), the counts go into the round's episode record exactly as the runner
writes them (`record_fields`), and the report's shares are the ones worked out here."""

from __future__ import annotations

from proagent.interdependence.episode import record_fields
from proagent.study import tables
from proagent.study.read import read_study
from tests.interdependence.interdependence_helpers import Script
from tests.study.study_helpers import HandRound, answers, write_round, write_study

POT, ONIONS, DISHES, SERVE = (3, 0), (3, 4), (0, 2), (7, 2)
MIDDLE = [(2, 2), (3, 2), (4, 2)]


def _hand_over() -> dict:
    """Player 0 puts three onions on the middle counters; player 1 takes each, cooks and serves."""
    s = Script("counter_circuit")
    for counter in MIDDLE:
        s.fetch_onion(0, ONIONS).place(0, counter)
    for i, counter in enumerate(MIDDLE):
        s.take(1, counter).put_in_pot(1, POT, starts=i == 2)
    s.fetch_dish(1, DISHES).fill(1, POT).deliver(1, SERVE)
    return record_fields(s.analyze()[1])


def test_h_sub_of_a_hand_built_hand_over(tmp_path):
    fields = _hand_over()
    # the passer offered 3 onions, all taken; the receiver's 3 offers (pot contents) were not taken
    assert (fields["int_initiated"], fields["int_accepted"], fields["int_constructive"]) == ([3, 3], [0, 3], 3)
    study_dir = write_study(tmp_path / "study", {"P1": []})
    played = HandRound(
        1,
        "counter_circuit",
        "greedy",
        20,
        fields["int_constructive"],
        fields["int_total"],
        fields["int_initiated"],
        fields["int_accepted"],
        answers(4),
    )
    write_round(study_dir, "P1", played, human_seat=0)  # the person was the passer
    write_round(
        study_dir,
        "P1",
        HandRound(
            2,
            "counter_circuit",
            "greedy",
            20,
            fields["int_constructive"],
            fields["int_total"],
            fields["int_initiated"],
            fields["int_accepted"],
            answers(4),
        ),
        human_seat=1,
    )
    every, _ = tables.table4(read_study(study_dir))
    row = next(r for r in every if (r.partner, r.layout) == ("greedy", "counter_circuit"))
    # initiated: human 3 (round 1, seat 0) + 3 (round 2, seat 1) of 12 -> 50 %;
    # accepted: human 0 + 3, agent 3 + 0 -> 50 %
    assert (row.h_sub_initiated, row.h_sub_accepted, row.rounds) == (50.0, 50.0, 2)
    assert (row.human_accepted.mean, row.agent_accepted.mean) == (1.5, 1.5)
    only_passer = tables.share_row(
        "greedy", "counter_circuit", "one", [r for r in read_study(study_dir).rounds if r.k == 1]
    )
    assert (only_passer.h_sub_initiated, only_passer.h_sub_accepted) == (50.0, 0.0)  # the passer accepted none of 3
