"""The paper's recent-K trajectory retrieval: with ``--memory-retrieval trajectory`` the planner
prompt the model receives (the loopback server's recorded requests) holds the agent's earlier
analyses; with ``outcomes`` (the default of the existing prompt sets) it holds none of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.agent.memory import Memory, MemoryRecord
from proagent.agent.prompts import PromptSetError, load_prompt_set
from proagent.cli import main
from proagent.domains.overcooked import OvercookedDomain
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import overcooked_answer


def _play(tmp_path: Path, *flags: str) -> tuple[list[str], list[str]]:
    """One short loopback episode: the analyses of its decisions (trace) and the user prompts sent."""
    with FakeChatServer(responder=overcooked_answer) as server:
        args = ["play", "--layout", "cramped_room", "--partner", "stay", "--horizon", "30", "--prompt", "proagent"]
        args += [*loopback_args(server.url), "--runs-dir", str(tmp_path), "--live", "off", "--no-gif", *flags]
        assert main(args) == 0
        sent = [r["body"]["messages"][-1]["content"] for r in server.requests]
    (run,) = tmp_path.glob("*-play-*")
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    analyses = [step["decision"]["analysis"] for step in trace if step["decision"] and step["decision"]["analysis"]]
    return analyses, sent


def test_trajectory_retrieval_shows_the_model_its_earlier_analyses(tmp_path):
    analyses, sent = _play(tmp_path, "--memory-retrieval", "trajectory")
    assert len(analyses) >= 3 and len(sent) >= 3
    assert analyses[0] not in sent[0]  # nothing earlier yet
    # each later planner request holds the analysis of the decision before it
    for earlier, prompt in zip(analyses, sent[1:], strict=False):
        assert f"your analysis then: {earlier}" in prompt


def test_outcomes_retrieval_shows_no_analysis(tmp_path):
    analyses, sent = _play(tmp_path, "--memory-retrieval", "outcomes")
    assert len(analyses) >= 3
    assert "Recent history" in sent[-1]  # the memory is shown, only without analyses
    assert not [p for p in sent if any(a in p for a in analyses)]


def test_retrieve_blanks_analyses_only_for_outcomes():
    memory = Memory(capacity=4)
    for step in range(3):
        texts = {"state": f"s{step}", "analysis": f"a{step}", "intention": None, "belief": None}
        record = MemoryRecord(step=step, skill="wait(1)", outcome="done", **texts)
        memory.add(record)
    assert [r["analysis"] for r in memory.retrieve(2, "trajectory")] == ["a1", "a2"]
    assert [(r["state"], r["analysis"]) for r in memory.retrieve(2, "outcomes")] == [("s1", None), ("s2", None)]
    assert memory.retrieve(0, "trajectory") == []


def test_a_prompt_set_names_its_retrieval_and_a_bad_one_is_refused(tmp_path):
    root = OvercookedDomain().prompts_root
    assert load_prompt_set("proagent", root).memory == "outcomes"
    for name in ("planner_system.j2", "planner_user.j2", "explainer.j2", "belief.j2"):
        (tmp_path / "odd").mkdir(exist_ok=True)
        (tmp_path / "odd" / name).write_text("x")
    (tmp_path / "odd" / "prompt.toml").write_text('memory = "everything"\n')
    with pytest.raises(PromptSetError, match="memory must be one of"):
        load_prompt_set("odd", tmp_path)
