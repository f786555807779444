"""`proagent play --domain macrafter` end to end on the scripted planner (``--llm scripted``: it
answers from each seat's grounding, no language model): a team of three on the easy world
under each of the four MAEIL topologies, and a ProAgent with scripted partners."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.maeil import TOPOLOGIES

SCRIPTED = ["--llm", "scripted"]


def _episode(run: Path) -> dict:
    (line,) = (run / "episodes.jsonl").read_text().splitlines()
    return json.loads(line)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_three_agents_play_the_easy_world_under_every_topology(topology: str, tmp_path: Path) -> None:
    argv = ["play", "--domain", "macrafter", "--layout", "easy_2a", "--agents", "3", "--topology", topology]
    flags = ["--partner", "proagent", "--horizon", "6", "--live", "off", "--no-gif", "--runs-dir", str(tmp_path)]
    assert main([*argv, *flags, *SCRIPTED]) == 0
    (run,) = tmp_path.glob("*-play-easy_2a@3-*")
    config = json.loads((run / "config.json").read_text())
    assert config["num_agents"] == 3 and config["topology"]["name"] == topology
    episode = _episode(run)
    assert episode["team"] == ["proagent"] * 3 and episode["steps"] == 6
    assert all(stats["llm_calls"] > 0 for stats in episode["agent_stats"])
    messages = episode["process_metrics"]["messages"]
    assert (messages == 0) == (topology == "individual")
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    prompt = trace[0]["decision"]["attempts"][0]["messages"][1]["content"]
    assert "Your view" in prompt and "Your bag" in prompt


def test_proagent_with_scripted_partners_records_the_settings(tmp_path: Path) -> None:
    argv = [
        "play",
        "--domain",
        "macrafter",
        "--layout",
        "easy_2a",
        "--partner",
        "helper",
        "--env",
        "collect_distance=2",
    ]
    flags = ["--horizon", "8", "--live", "off", "--no-gif", "--runs-dir", str(tmp_path)]
    assert main([*argv, *flags, *SCRIPTED]) == 0
    (run,) = tmp_path.glob("*-play-easy_2a-helper")
    episode = _episode(run)
    assert episode["team"] == ["proagent", "helper"] and episode["llm_calls"] > 0 and episode["fallbacks"] == 0
    assert "collect_distance" in (run / "config.json").read_text()


def test_a_bad_setting_is_one_clear_line(capsys: pytest.CaptureFixture) -> None:
    argv = ["play", "--domain", "macrafter", "--layout", "easy_2a", "--env", "gravity=2", "--live", "off"]
    assert main([*argv, "--llm", "openai/test", "--api-base", "http://127.0.0.1:9"]) == 2
    assert "unknown setting" in capsys.readouterr().err


def test_eval_runs_the_four_topologies_with_the_scripted_partner(tmp_path: Path) -> None:
    grid = [
        "--agents",
        "proagent",
        "--partners",
        "tech",
        "--layouts",
        "easy_2a@3",
        "--topologies",
        ",".join(TOPOLOGIES),
        "--seats",
        "0",
    ]
    base = ["eval", "--domain", "macrafter", "--episodes", "1", "--horizon", "4", "--progress", "off", "--name", "topo"]
    assert main([*base, *grid, *SCRIPTED, "--runs-dir", str(tmp_path)]) == 0
    records = [json.loads(line) for line in (next(tmp_path.glob("*-topo")) / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == len(TOPOLOGIES) and all(r["team"] == ["proagent", "tech", "tech"] for r in records)
    assert all("units_collected" in r["domain_metrics"] and r["llm_calls"] > 0 for r in records)
