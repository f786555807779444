"""The llm3 Verificator (the paper's three rounds) through `proagent play` and the loopback server:
each rejection makes three metered, cached rounds recorded in the decision trace, the re-plan
prompt holds the Error Conclusion, and ``code`` mode keeps its one explanation call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.agent.config import AgentConfig
from proagent.builder import agent_config
from proagent.cli import build_parser, main
from proagent.cli.eval_request import EvalRequest
from proagent.cli.eval_run import apply_flags
from proagent.cli.requests import PlayRequest
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC
from tests.support.responders.overcooked import EXPLANATION, hasty_answer

ROUNDS = ["preconditions", "double_check", "conclusion"]


def _play(tmp_path: Path, server: FakeChatServer, name: str, *flags: str) -> tuple[dict, list[dict]]:
    """One short episode; its record and its decisions (from the trace)."""
    args = ["play", "--layout", "cramped_room", "--partner", "stay", "--horizon", "25", "--prompt", "proagent"]
    args += ["--llm", LOOPBACK_SPEC, "--api-base", server.url, "--cache-dir", str(tmp_path / "cache")]
    args += ["--runs-dir", str(tmp_path / name), "--live", "off", "--no-gif", *flags]
    assert main(args) == 0
    (run,) = (tmp_path / name).glob("*-play-*")
    (record,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    return record, [step["decision"] for step in trace if step["decision"]]


def _verify_requests(server: FakeChatServer) -> list[str]:
    """The user messages of the requests that were Verificator rounds (their first line is the state)."""
    return [r["body"]["messages"][-1]["content"] for r in server.requests if len(r["body"]["messages"]) > 2]


def test_each_rejection_gets_three_recorded_rounds_and_the_replan_reads_the_conclusion(tmp_path):
    with FakeChatServer(responder=hasty_answer) as server:
        record, decisions = _play(tmp_path, server, "first", "--verificator", "llm3")
        attempts = [a for d in decisions for a in d["attempts"]]
        rejected = [a for a in attempts if a["failures"]]
        assert record["rejections"] == len(rejected) >= 2
        for attempt in rejected:
            assert [r["round"] for r in attempt["verification"]] == ROUNDS
            assert attempt["explanation"] == attempt["verification"][-1]["response"]
            assert "deliver_soup() fails because you are not holding a soup" in attempt["explanation"]
        # one planner call per attempt and three rounds per rejection, all metered
        assert record["llm_calls"] == len(attempts) + 3 * len(rejected) == len(server.requests)
        assert len(_verify_requests(server)) == 2 * len(rejected)  # rounds 2 and 3 carry the earlier rounds
        for decision in decisions:
            for rejected_attempt, replan in zip(decision["attempts"], decision["attempts"][1:], strict=False):
                if rejected_attempt["failures"]:
                    assert rejected_attempt["explanation"] in replan["messages"][-1]["content"]
        # the rounds are one conversation: the last round's request holds the first two answers
        last = next(r["body"]["messages"] for r in reversed(server.requests) if len(r["body"]["messages"]) == 6)
        assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
        assert last[2]["content"].startswith("Step by step: I hold nothing")

        sent = len(server.requests)  # the same episode again: every round is a cache hit
        again, replayed = _play(tmp_path, server, "second", "--verificator", "llm3")
        assert len(server.requests) == sent and again["cached_calls"] == again["llm_calls"] == record["llm_calls"]
        rounds = [r for d in replayed for a in d["attempts"] for r in a["verification"]]
        assert len(rounds) == 3 * len(rejected) and all(r["cached"] for r in rounds)
        assert [r["response"] for r in rounds] == [r["response"] for a in rejected for r in a["verification"]]


def test_code_mode_keeps_one_explanation_call_per_rejection(tmp_path):
    with FakeChatServer(responder=hasty_answer) as server:
        record, decisions = _play(tmp_path, server, "code", "--verificator", "code")
    attempts = [a for d in decisions for a in d["attempts"]]
    rejected = [a for a in attempts if a["failures"]]
    assert rejected and all(a["explanation"] == EXPLANATION and a["verification"] == [] for a in rejected)
    assert record["llm_calls"] == len(attempts) + len(rejected)


def test_no_verificator_is_off_and_old_switches_read_as_modes():
    assert AgentConfig(verificator=False).verificator == "off"
    assert AgentConfig(verificator=True).verificator == "code"
    assert AgentConfig().verificator is None  # the prompt set's
    with pytest.raises(ValueError):
        AgentConfig(verificator="llm4")


@pytest.mark.parametrize(
    ("flags", "mode", "retrieval"),
    [
        ([], None, None),
        (["--no-verificator"], "off", None),
        (["--verificator", "llm3", "--memory-retrieval", "trajectory"], "llm3", "trajectory"),
    ],
)
def test_eval_and_play_flags_set_the_same_fields(flags, mode, retrieval):
    """One definition of the flags (`add_pipeline_options`): eval's agent spec and play's config agree."""
    config = agent_config(PlayRequest.from_args(build_parser().parse_args(["play", *flags])).llm, embedded=False)
    request = EvalRequest.from_args(build_parser().parse_args(["eval", *flags]), None, None)
    (spec,) = apply_flags({}, request)["agents"]
    assert (config.verificator, config.memory_retrieval) == (mode, retrieval)
    assert (spec.get("verificator"), spec.get("memory_retrieval")) == (mode, retrieval)
