"""The one way numbers are written for people: same rounding everywhere, no uncertainty from n=1."""

from proagent.numbers import episode_label, format_mean, format_score, format_score_mean


def test_a_score_reads_the_same_however_it_was_accumulated():
    assert format_score(5) == "5"
    assert format_score(5.5) == "5.5"
    assert format_score(-0.20999999530613422) == "-0.21"
    assert format_score(240.0) == "240"
    assert format_score(-0.001) == "0"


def test_no_standard_error_below_two_samples():
    assert format_mean(5.5, 0.0, 1) == "5.5 (n=1)"
    assert "±" not in format_mean(5.5, 0.0, 1)
    assert format_mean(5.5, 0.25, 4) == "5.5 ± 0.2 (n=4)"
    assert format_mean(0.0, 0.0, 0) == "n/a (n=0)"


def test_episodes_are_counted_from_one_for_people():
    assert episode_label(0) == "episode 1"


def test_a_mean_score_is_written_as_the_scores_it_summarises():
    assert format_score_mean(-0.20999999530613422, 0.0, 1) == f"{format_score(-0.20999999530613422)} (n=1)"
    assert format_score_mean(5.5, 0.25, 4) == "5.5 ± 0.25 (n=4)"
