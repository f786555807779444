"""End to end: ProAgent in both seats plays every OvercookedV2 coordination layout with the scripted
planner (``--llm scripted``, no language model), under the paper's dynamics (view radius 2, random
starts, wrong-soup penalty, a new recipe after each delivery), through `proagent eval`. Each layout's recipe has to cross from the chef who sees it
to the chef who cooks (the button, a counter signal, a demo in the pot): every episode must serve
at least one correct soup and end with a positive score."""

from __future__ import annotations

import json

import pytest

from envs.overcooked.presets import COORDINATION_LAYOUTS
from proagent.cli import main

V2 = COORDINATION_LAYOUTS


@pytest.mark.slow  # ~30 s: 6 episodes of 200 steps; the slow CI step runs it
def test_proagent_pairs_cook_correct_soups_on_every_v2_layout(tmp_path):
    # Both chefs are ProAgent, so the agent's seat 1 is the same pair mirrored: seat 0 covers both
    # roles of every layout (docs/results/overcooked-v2-table2_loopback.md shows equal scores from both seats).
    args = ["eval", "--layouts", ",".join(V2), "--partners", "proagent", "--seats", "0", "--episodes", "1"]
    args += ["--horizon", "200", "--runs-dir", str(tmp_path), "--progress", "off"]
    assert main([*args, "--llm", "scripted"]) == 0
    (run,) = tmp_path.iterdir()
    episodes = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]
    results = {
        (e["layout"], e["seat"]): (
            e["score"],
            e["domain_metrics"]["soups"],
            e["domain_metrics"]["wrong_soups"],
            sum(e["events"]["activate_indicator"]),
        )
        for e in episodes
    }
    assert sorted(results) == sorted((layout, 0) for layout in V2)
    for key, (score, correct, wrong, presses) in results.items():
        assert correct >= 1 and score > 0, (key, results[key])
        assert wrong == 0, (key, results[key])
        assert presses <= correct + 1, (key, results[key])  # about one press per recipe, not one per light
