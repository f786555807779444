"""Any agent fills any seat: ProAgent with a copy of itself, LLM partners' money counted,
records that say who sat where, and seats checked against the layout."""

from __future__ import annotations

import pytest
from eval_helpers import config, run_eval

from proagent.eval.config import ConfigError
from proagent.eval.session import start_run


def test_proagent_plays_with_a_copy_of_itself(priced_world, tmp_path):
    cfg = config(agents=[{"kind": "proagent", "llm": "scripted"}], partners=["proagent", "greedy"], episodes=1)
    _, outcome = run_eval(cfg, priced_world, tmp_path)
    assert outcome.failures == [] and len(outcome.records) == 4
    by = {(r.partner, r.seat): r for r in outcome.records}
    mirror = by[("proagent", 1)]
    assert mirror.team == ["proagent", "proagent"] and mirror.seat == 1
    assert all(stats["llm_calls"] > 0 and stats["decisions"] > 0 for stats in mirror.agent_stats)
    assert mirror.llm_calls == mirror.agent_stats[1]["llm_calls"]  # top-level fields: the focal seat's agent
    # every LLM call of the episode is paid for, the partner copy's included
    assert mirror.spent_usd == pytest.approx(0.01 * sum(s["llm_calls"] for s in mirror.agent_stats))
    scripted = by[("greedy", 0)]
    assert scripted.team == ["proagent", "greedy"] and scripted.agent_stats[1] == {}
    assert scripted.spent_usd == pytest.approx(0.01 * scripted.llm_calls)
    assert scripted.domain_metrics.keys() == {"soups", "wrong_soups", "button_cost"}


def test_a_seat_the_layout_lacks_is_refused_before_any_episode(world, tmp_path):
    with pytest.raises(ConfigError, match=r"seats\[1\]: seat 2 does not exist on cramped_room"):
        start_run(config(seats=[0, 2]), world, "pytest", tmp_path)
    assert not any(tmp_path.iterdir())


def test_an_unknown_partner_lists_the_llm_agents_too(world, tmp_path):
    with pytest.raises(ConfigError, match=r"partners\[0\]: unknown partner 'nobody'.*or an LLM agent: proagent"):
        start_run(config(partners=["nobody"]), world, "pytest", tmp_path)


def test_records_written_before_domains_still_load_and_report(tmp_path):
    """An episodes.jsonl line from before domains: top-level soups, no team or domain_metrics."""
    from proagent.eval.records import EvalRecord
    from proagent.eval.stats import metric_value

    old = {
        "episode": 0, "seed": 0, "layout": "cramped_room", "partner": "greedy", "seat": 1, "score": 40.0, "soups": 2,
        "wrong_soups": 1, "steps": 400, "wall_time_s": 3.0, "shaped_return": [0.0, 0.0], "agent": "proagent", "agent_kind": "proagent",
    }  # fmt: skip
    record = EvalRecord.model_validate(old)
    assert record.domain_metrics == {"soups": 2, "wrong_soups": 1} and record.team == [] and record.agent_stats == []
    assert metric_value(record, "soups") == 2.0 and metric_value(record, "wrong_soups") == 1.0
    assert EvalRecord.model_validate_json(record.model_dump_json()) == record  # and round-trips in the new form
