"""More than two agents, in a world that is not Overcooked: a toy relay of boxes over shelves.

The toy domain implements ``InterdependenceModel`` with nothing but the generic package, which is
what another domain would do; the counts per ordered pair of agents (who offered, who acted upon
it) are checked by hand, then the same through the collector, a run folder and the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from proagent.interdependence.analysis import analyze
from proagent.interdependence.episode import EpisodeCollector, record_fields
from proagent.interdependence.folder import EpisodeAnalysis, analyze_folder
from proagent.interdependence.identity import ObjectTracker
from proagent.interdependence.model import StepInput
from proagent.interdependence.records import EpisodeInterdependence
from proagent.interdependence.report import columns, group_rows, markdown_table
from proagent.interdependence.strips import Domain, GroundedTrace, Proposition, agent_name, ground

RELAY = Domain.model_validate(
    {
        "name": "relay",
        "tracked_types": ["box"],
        "goal_predicates": ["delivered"],
        "predicates": {
            "hand-empty": {"args": ["agent"], "role": "infrastructure"},
            "shelf-empty": {"args": ["shelf"], "role": "infrastructure"},
            "holding": {"args": ["agent", "box"], "role": "holder"},
            "on": {"args": ["box", "shelf"], "role": "location"},
            "delivered": {"args": ["box"], "role": "goal"},
        },
        "operators": {
            "fetch": {"parameters": {"?a": "agent", "?o": "box"}, "pre": ["hand-empty ?a"], "add": ["holding ?a ?o"], "delete": ["hand-empty ?a"]},
            "put": {
                "parameters": {"?a": "agent", "?o": "box", "?s": "shelf"},
                "pre": ["holding ?a ?o", "shelf-empty ?s"],
                "add": ["on ?o ?s", "hand-empty ?a"],
                "delete": ["holding ?a ?o", "shelf-empty ?s"],
            },
            "take": {
                "parameters": {"?a": "agent", "?o": "box", "?s": "shelf"},
                "pre": ["hand-empty ?a", "on ?o ?s"],
                "add": ["holding ?a ?o", "shelf-empty ?s"],
                "delete": ["on ?o ?s", "hand-empty ?a"],
            },
            "deliver": {"parameters": {"?a": "agent", "?o": "box"}, "pre": ["holding ?a ?o"], "add": ["delivered ?o", "hand-empty ?a"], "delete": ["holding ?a ?o"]},
        },
    }
)
SHELVES = ("a", "b", "c", "d")


@dataclass(frozen=True)
class RelayEvent:
    agent: int
    kind: str  # fetch, put, take, deliver
    shelf: str = ""

    def to_record(self) -> dict:
        return asdict(self)


class RelayModel:
    """The toy world's mapping: events -> operators over tracked boxes (every run starts empty)."""

    strips = RELAY

    def action_name(self, action: int) -> str:
        return ("wait", "act")[action]

    def scene_of(self, first: Any) -> None:
        return None

    def skill_of_event(self, event: RelayEvent) -> None:
        return None

    def scene_from_trace(self, line: Mapping[str, Any]) -> None:
        return None

    def event_from_record(self, record: Mapping[str, Any]) -> RelayEvent:
        return RelayEvent(**record)

    def ground(self, steps: Iterable[StepInput], scene: None, agents: int) -> GroundedTrace:
        tracker, ops, count = ObjectTracker(), [], 0
        for s in steps:
            count += 1
            for e in s.events:
                if e.kind == "fetch":
                    obj = tracker.take_new(e.agent, "box", "box")
                elif e.kind == "put":
                    obj = tracker.put_down(e.agent, e.shelf, "box", "box")
                elif e.kind == "take":
                    obj = tracker.pick_up(e.agent, e.shelf, "box", "box", f"on shelf {e.shelf}")
                else:
                    obj = tracker.release(e.agent, "box", "box")
                binding = {"?a": agent_name(e.agent), "?o": obj, "?s": f"shelf_{e.shelf}"}
                ops.append(ground(RELAY, e.kind, binding, index=len(ops), step=s.step, agent=e.agent))
        initial = {Proposition("hand-empty", (agent_name(i),)) for i in range(agents)}
        initial |= {Proposition("shelf-empty", (f"shelf_{x}",)) for x in SHELVES}
        objects = {**tracker.types, **{f"shelf_{x}": "shelf" for x in SHELVES}, **{agent_name(i): "agent" for i in range(agents)}}
        return GroundedTrace("relay", objects, frozenset(initial), ops, count, agents)


# 0 relays box1 to 1, who relays it to 2, who delivers it; 0 hands box2 straight to 2 (delivered);
# 1 offers box3, which 0 takes and keeps (not goal-reaching); nobody gives anything to 1 after that.
STORY = [
    RelayEvent(0, "fetch"), RelayEvent(0, "put", "a"), RelayEvent(1, "take", "a"), RelayEvent(1, "put", "b"),
    RelayEvent(2, "take", "b"), RelayEvent(2, "deliver"), RelayEvent(0, "fetch"), RelayEvent(0, "put", "c"),
    RelayEvent(2, "take", "c"), RelayEvent(2, "deliver"), RelayEvent(1, "fetch"), RelayEvent(1, "put", "d"),
    RelayEvent(0, "take", "d"),
]


def steps() -> list[StepInput]:
    return [StepInput(t, ("act", "wait", "wait"), (e,)) for t, e in enumerate(STORY)]


def check(result: EpisodeInterdependence) -> None:
    assert (result.total, result.constructive, result.irrelevant) == (4, 3, 1)
    pairs = {k: (p.total, p.constructive, p.accepted) for k, p in result.pairs.items()}
    assert pairs == {"0->1": (1, 1, 1), "0->2": (1, 1, 1), "1->0": (1, 0, 1), "1->2": (1, 1, 1), "2->0": (0, 0, 0), "2->1": (0, 0, 0)}
    assert [(a.initiated, a.initiated_accepted, a.accepted) for a in result.agents] == [(2, 2, 1), (2, 2, 1), (0, 0, 2)]
    for j, a in enumerate(result.agents):  # per agent = the sum over the pairs it received in
        assert a.accepted == sum(p.accepted for p in result.pairs.values() if p.receiver == j)
        assert a.received == sum(p.total for p in result.pairs.values() if p.receiver == j)


def test_three_agents_counted_per_ordered_pair():
    model = RelayModel()
    check(analyze(model.ground(steps(), None, 3), RELAY))


def test_the_collector_takes_any_number_of_agents():
    collector = EpisodeCollector(RelayModel(), None, 3)
    for s in steps():
        collector.add(s.step, (1, 0, 0), s.events)
    result = collector.result()
    check(result)
    assert record_fields(result) == {"int_total": 4, "int_constructive": 3, "int_non_constructive": 1, "int_initiated": [2, 2, 0], "int_accepted": [1, 1, 2]}


def test_a_three_agent_run_folder_and_its_table(tmp_path: Path):
    (tmp_path / "config.json").write_text(json.dumps({"command": "play", "layout": "relay", "seat": 0}))
    (tmp_path / "episodes.jsonl").write_text(json.dumps({"episode": 0, "layout": "relay", "partner": "team", "agent_kind": "scripted"}) + "\n")
    lines = [{"episode": 0, "step": s.step, "actions": list(s.actions), "events": [e.to_record() for e in s.events]} for s in steps()]
    (tmp_path / "trace.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = analyze_folder(tmp_path, lambda layout: RelayModel(), recompute_intentions=False)
    (episode,) = result.episodes
    assert episode.source == "trace" and episode.intention_recomputed is None
    check(episode.interdependence)
    assert "(take p2 box1 shelf_b)" in (tmp_path / "episode_000.pddl.txt").read_text()
    saved = json.loads((tmp_path / "interdependence.json").read_text())
    assert saved["episodes"][0]["interdependence"]["pairs"]["1->0"]["accepted"] == 1
    (row,) = group_rows(result.episodes)
    assert row.agents == 3 and row.values["accepted_1_by_0"] == 50.0 and row.values["accepted_0_by_2"] == 50.0
    assert "| init p2 | p0 acc. p2 % | p1 acc. p2 % |" in markdown_table([row])


def test_two_agents_keep_the_papers_columns():
    assert [h for _, h in columns(2)][6:] == ["init p0", "p1 acc. %", "init p1", "p0 acc. %", "intention"]
    stored = EpisodeInterdependence.model_validate({"total": 2, "constructive": 1, "agents": [{"agent": 0, "initiated": 4, "accepted": 1}, {"agent": 1, "initiated": 2, "accepted": 3}]})
    (row,) = group_rows([EpisodeAnalysis(id="0", group="g", layout="x", seat=0, source="record", interdependence=stored)])
    assert (row.values["accepted_by_1"], row.values["accepted_by_0"]) == (75.0, 50.0)  # records carry no pairs
