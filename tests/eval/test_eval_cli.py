"""`proagent eval` / `ablate` / `report` end to end through the real HTTP path (litellm -> the fake
OpenAI-compatible server on 127.0.0.1), at tiny size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import lines

from proagent.cli import main
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC
from tests.support.responders.overcooked import overcooked_answer

ABLATIONS = Path(__file__).parents[2] / "runs" / "ablations"


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(delay_s=0.0, responder=overcooked_answer) as srv:
        yield srv


def test_ablation_config_runs_end_to_end(server, tmp_path, capsys):
    args = ["ablate", str(ABLATIONS / "planner_modules.toml"), "--llm", LOOPBACK_SPEC, "--api-base", server.url]
    args += ["--episodes", "1", "--horizon", "30", "--seats", "0", "--runs-dir", str(tmp_path), "--no-cache", "--progress", "off"]
    assert main(args) == 0
    (run,) = tmp_path.iterdir()
    config = json.loads((run / "config.json").read_text())
    assert config["ablation"]["variants"] == ["analysis_intention_belief", "analysis_only", "plan_only"]
    assert config["prompt_hashes"]["plan_only"] and config["git_commit"] and config["agent_configs"]["analysis_only"]["prompt"] == "analysis"
    assert config["config"]["agents"][0]["api_base"] == server.url and config["config"]["horizon"] == 30
    episodes = lines(run / "episodes.jsonl")
    assert sorted(e["agent"] for e in episodes) == ["analysis_intention_belief", "analysis_only", "plan_only"]
    assert all(e["steps"] == 30 and e["llm_calls"] > 0 for e in episodes)
    table = (run / "ablation.md").read_text()
    assert table.index("analysis_intention_belief") < table.index("analysis_only") < table.index("plan_only")
    assert "intention_accuracy" in table and (run / "ablation.png").stat().st_size > 0
    assert "Planner: analysis" in capsys.readouterr().out

    assert main(["eval", "--resume", str(run), "--concurrency", "2", "--progress", "off"]) == 0  # nothing left
    assert len(lines(run / "episodes.jsonl")) == 3


def test_eval_from_flags_and_config_file_errors(server, tmp_path, capsys):
    cfg = tmp_path / "grid.yaml"
    cfg.write_text("agents:\n  - kind: proagent\n    memory_k: -2\npartners: [greedy]\nlayouts: [cramped_room]\n")
    assert main(["eval", str(cfg), "--runs-dir", str(tmp_path)]) == 2
    assert "agents[0].memory_k: Input should be greater than or equal to 0" in capsys.readouterr().err
    assert main(["eval", "--partners", "greedy,nobody", "--runs-dir", str(tmp_path)]) == 2
    assert "partners[1]: unknown partner 'nobody'" in capsys.readouterr().err
    args = ["eval", "--agents", "greedy,stay", "--partners", "greedy", "--seats", "1", "--episodes", "2", "--horizon", "30"]
    assert main([*args, "--runs-dir", str(tmp_path / "runs"), "--progress", "off"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    assert sorted((e["agent"], e["seat"], e["episode"]) for e in lines(run / "episodes.jsonl")) == [
        ("greedy", 1, 0), ("greedy", 1, 1), ("stay", 1, 0), ("stay", 1, 1)
    ]  # fmt: skip
    assert main(["eval", "--resume", str(run), "--layouts", "forced_coordination"]) == 2
    assert "cannot change: layouts" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # checked while parsing the flags, before the run is touched
        main(["eval", "--resume", str(run), "--concurrency", "0"])
    assert refused.value.code == 2
    assert "argument --concurrency: must be between 1 and 4096, got '0'" in capsys.readouterr().err
