"""What each communication structure costs in model calls, counted on one short designed episode:
three ProAgents on MA-Crafter's easy world (``--llm scripted``: the scripted planner answers from
each seat's grounding), one episode per COOP² structure.

Why: a centralized leader directs every follower to its own skill, which a follower often cannot
carry out where it stands (no tree in its view). A follower that proposed that refused skill again
on every retry spent the whole retry budget each step, fell back to a one-step wait and so asked the
leader for a plan again the next step: about seven times the calls of individual play. The
structure's own price is bounded (docs/coop2.md): a follower's request costs at most the leader's
answer and one deliberation per follower, so a team of n pays at most n times individual play.
"""

from __future__ import annotations

import json
from pathlib import Path

from proagent.cli import main

TEAM = 3
HORIZON = 8


def _play(topology: str, runs: Path) -> tuple[dict, list[dict]]:
    argv = ["play", "--domain", "macrafter", "--layout", "easy_2a", "--agents", str(TEAM), "--topology", topology]
    flags = ["--partner", "proagent", "--horizon", str(HORIZON), "--llm", "scripted", "--live", "off", "--no-gif"]
    assert main([*argv, *flags, "--runs-dir", str(runs / topology)]) == 0
    (run,) = (runs / topology).glob("*-play-easy_2a@3-*")
    (line,) = (run / "episodes.jsonl").read_text().splitlines()
    trace = [json.loads(t) for t in (run / "trace.jsonl").read_text().splitlines()]
    return json.loads(line), trace


def _decisions(trace: list[dict]) -> list[dict]:
    """Every seat's decisions of the episode (the traced seat's and its teammates')."""
    found = []
    for step in trace:
        found += [d for d in [step.get("decision"), *(step.get("team_decisions") or {}).values()] if d]
        found += step.get("earlier_decisions") or []
    return found


def _reproposals(decisions: list[dict]) -> list[tuple[int, str]]:
    """(step, skill) for every attempt that proposed a skill the Verificator had already refused in the same decision."""
    again = []
    for decision in decisions:
        refused: set[str] = set()
        for attempt in decision["attempts"]:
            if attempt["plan"] in refused:
                again.append((decision["step"], attempt["plan"]))
            if attempt["failures"]:
                refused.add(attempt["plan"])
    return again


def test_each_structure_pays_only_its_own_calls(tmp_path: Path) -> None:
    calls = {}
    for topology in ("individual", "centralized", "broadcast_chain"):
        episode, trace = _play(topology, tmp_path)
        calls[topology] = episode["team_llm_calls"]
        assert [s["fallbacks"] for s in episode["agent_stats"]] == [0] * TEAM, topology  # no retry budget ran out
        assert _reproposals(_decisions(trace)) == [], topology  # a refused skill is never proposed again
        assert episode["steps"] == HORIZON
    assert 0 < calls["individual"] <= calls["broadcast_chain"] <= TEAM * calls["individual"], calls
    assert calls["individual"] < calls["centralized"] <= TEAM * calls["individual"], calls
