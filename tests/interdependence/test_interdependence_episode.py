"""A real episode on counter_circuit: onion_passer (the paper's green-hat chef) with greedy as the
receiver. Every passed onion that ends in a delivered soup must be constructive, counted here a
second, independent way from the raw event stream; then `proagent analyze` on its run folder."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

import envs
from envs import EventKind
from proagent.cli import main
from proagent.domains.overcooked import OvercookedDomain
from proagent.domains.overcooked.interdependence import event_from_record
from proagent.domains.overcooked.partners.registry import make_partner
from proagent.runner.episode import run_episode
from proagent.runner.run_folder import RunFolder

HORIZON = 200


@pytest.fixture(scope="module")
def episode():
    env = envs.make("counter_circuit", envs.Dynamics(horizon=HORIZON))
    trace: list[dict] = []
    passer, receiver = make_partner("onion_passer", "counter_circuit"), make_partner("greedy", "counter_circuit")
    record = asyncio.run(run_episode(env, OvercookedDomain(), [passer, receiver], 0, 3, 0, trace=trace.append))
    return record, trace


def independent_counts(trace: list[dict]) -> tuple[int, int]:
    """(onions picked up from a counter where the other player put them, how many of those end in a
    delivered soup), with plain counters instead of object identities."""
    placed_by: dict[tuple, int] = {}
    in_hand = Counter()  # passed onions held, per player
    in_pot = Counter()
    soup_of: dict[tuple, int] = {}
    on_dish = Counter()
    passes = delivered = 0
    for line in trace:
        for e in map(event_from_record, line["events"]):
            pos = e.position
            if e.kind == EventKind.PLACE_ON_COUNTER:
                placed_by[pos] = e.agent
                in_hand[e.agent] = 0
            elif e.kind == EventKind.PICKUP_FROM_COUNTER:
                passed = placed_by.pop(pos) != e.agent and e.item.kind == "ingredient"
                passes += passed
                in_hand[e.agent] = int(passed)
            elif e.kind == EventKind.PUT_IN_POT:
                in_pot[pos] += in_hand[e.agent]
                in_hand[e.agent] = 0
            elif e.kind == EventKind.START_COOKING:
                soup_of[pos], in_pot[pos] = in_pot[pos], 0
            elif e.kind == EventKind.FILL_DISH:
                on_dish[e.agent] = soup_of.pop(pos, 0)
            elif e.kind == EventKind.DELIVER and e.correct:
                delivered += on_dish.pop(e.agent, 0)
    return passes, delivered


def test_every_passed_onion_in_a_delivered_soup_is_constructive(episode):
    record, trace = episode
    passes, delivered = independent_counts(trace)
    assert record.metric("soups") >= 2 and passes >= 6, "the receiver should take the passed onions and serve"
    assert record.int_total == passes, "the only interdependencies are the hand-overs"
    assert record.int_constructive == delivered
    assert record.int_non_constructive == passes - delivered
    assert record.int_accepted[1] == passes and record.int_accepted[0] == 0
    assert record.int_initiated[0] == record.events["place_on_counter"][0]


def test_analyze_a_run_folder(episode, tmp_path, capsys):
    record, trace = episode
    folder = RunFolder(tmp_path / "20260101-000000-play-counter_circuit-greedy")
    folder.write_json("config.json", {"command": "play", "layout": "counter_circuit", "partner": "greedy", "seat": 0})
    folder.append_jsonl("episodes.jsonl", record)
    for line in trace:
        folder.append_jsonl("trace.jsonl", line)
    assert main(["analyze", str(folder.path)]) == 0
    out = capsys.readouterr().out
    assert "cooperation metrics" in out and "| proagent / greedy / counter_circuit / p0 |" in out  # Markdown: no terminal
    result = json.loads((folder.path / "interdependence.json").read_text())
    (ep,) = result["episodes"]
    assert ep["source"] == "trace" and ep["interdependence"]["total"] == record.int_total
    assert ep["interdependence"]["constructive"] == record.int_constructive
    pddl = (folder.path / "episode_000.pddl.txt").read_text()
    assert "(:init" in pddl and "(pickup_from_counter p1 onion" in pddl and "(deliver p1 soup" in pddl
    analysis = (folder.path / "analysis.md").read_text()
    assert "## Intention accuracy: recorded and recomputed" in analysis and "| proagent / greedy / counter_circuit / p0 |" in analysis


def test_analyze_refuses_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert main(["analyze", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
    (tmp_path / "config.json").write_text("{}")
    assert main(["analyze", str(tmp_path)]) == 2
