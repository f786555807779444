"""The test-support kit: one answer formatter, the grounding board, the loopback model through
litellm to the fake server, and ``--llm python:...`` in `make_model`."""

from __future__ import annotations

import asyncio
import json

import pytest

from proagent.llm import make_model
from proagent.llm.scripted import Answer, MissingGrounding, format_answer, require
from proagent.llm.types import Grounding, LLMConfigError, LLMError, Message
from tests.support.board import GroundingBoard, message_key
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC, LoopbackModel
from tests.support.scripted import ScriptedModel, answering

MSGS = [Message(role="system", content="You are a chef."), Message(role="user", content="Plan?")]


def _grounding(output_format: str = "json", **extra: object) -> Grounding:
    return Grounding(purpose="plan", seat=0, facts={"step": 3}, output_format=output_format, **extra)


def test_the_grounding_picks_json_or_lines():
    answer = Answer("a", {"player 1": "push(0)", "player 2": "wait(1)"}, "push(0)", "all on 0")
    assert json.loads(format_answer(_grounding("json"), answer)) == {
        "analysis": "a",
        "intention": {"player 1": "push(0)", "player 2": "wait(1)"},
        "plan": "push(0)",
        "message": "all on 0",
    }
    text = format_answer(_grounding("text"), answer)
    assert text == "Analysis: a\nIntention: player 1: push(0); player 2: wait(1)\nPlan: push(0)\nMessage: all on 0"
    plain = Answer("a", "wait(1)", "wait(1)")
    assert "message" not in json.loads(format_answer(_grounding("json"), plain))
    assert format_answer(_grounding("text"), plain) == "Analysis: a\nIntention: wait(1)\nPlan: wait(1)"


def test_a_world_responder_needs_a_grounding():
    with pytest.raises(MissingGrounding, match="--llm scripted"):
        require(None)


def test_the_board_keeps_the_latest_groundings_by_request():
    board, grounding = GroundingBoard(capacity=2), _grounding()
    board.put(message_key(MSGS), grounding)
    assert board.find([m.model_dump() for m in MSGS]) == grounding and board.find([]) is None
    for step in range(2):
        board.put(str(step), _grounding())
    assert board.find([m.model_dump() for m in MSGS]) is None and len(board) == 2  # the oldest is forgotten


def test_the_scripted_model_hands_the_grounding_to_its_responder():
    model = ScriptedModel(respond=answering(lambda g: f"Plan: wait({require(g).facts['step']})"))
    assert asyncio.run(model.generate(MSGS, grounding=_grounding())).text == "Plan: wait(3)"
    assert model.calls[0].grounding == _grounding()


def test_the_loopback_model_reaches_the_servers_responder_through_litellm():
    seen: list[Grounding | None] = []

    def responder(grounding: Grounding | None) -> str:
        seen.append(grounding)
        return f"Plan: wait({require(grounding).facts['step']})"

    with FakeChatServer(responder=responder) as server:
        model = make_model(LOOPBACK_SPEC, api_base=server.url, timeout_s=10)
        assert isinstance(model, LoopbackModel) and model.name == "openai/loopback"
        assert asyncio.run(model.generate(MSGS, grounding=_grounding())).text == "Plan: wait(3)"
        assert seen == [_grounding()] and len(server.requests) == 1  # the grounding's post is no chat request
        assert "grounding" not in json.dumps(server.requests[0]["body"])  # never in the chat request
        with pytest.raises(LLMError, match="no grounding came with this request"):
            asyncio.run(model.generate(MSGS[:1]))  # a world responder never guesses from the wording


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:no_such_module_here:factory", "cannot import it"),
        ("python:tests.support.loopback:no_such_factory", "cannot import it"),
        ("python:builtins:dict", "returned dict, not a Model"),
    ],
)
def test_a_python_model_spec_that_cannot_make_a_model_is_one_clear_error(spec: str, message: str):
    with pytest.raises(LLMConfigError, match=message):
        make_model(spec, api_base="http://127.0.0.1:9/v1")


def test_the_loopback_server_keeps_connections_alive_and_queues_a_burst():
    """Benchmarks at hundreds of concurrent episodes must measure the framework, not dropped SYNs
    and a TCP handshake per request: one connection serves several requests, and the listen queue
    holds a burst of connections."""
    import http.client
    import socket
    from urllib.parse import urlparse

    with FakeChatServer() as server:
        url = urlparse(server.url)
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        body = json.dumps({"model": "fake", "messages": [{"role": "user", "content": "hi"}]})
        for _ in range(3):
            connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
            reply = connection.getresponse()
            assert reply.status == 200 and reply.version == 11
            assert json.loads(reply.read())["choices"][0]["message"]["content"] == "Plan: wait(1)"
        assert connection.sock is not None  # still open: all three went over one connection
        connection.close()
        assert len(server.requests) == 3
        burst = [socket.create_connection((url.hostname, url.port), timeout=10) for _ in range(64)]
        for sock in burst:
            sock.close()
        assert server._server is not None and server._server.request_queue_size >= 1024


def test_the_loopback_server_answers_with_the_product_planners():
    """One definition: what the tests' responders and `planner_of` serve over HTTP is each world's
    scripted planner, the one `--llm scripted` plays in process."""
    from proagent.domains import get_domain
    from tests.support.loopback import planner_of
    from tests.support.responders import cube, macrafter, overcooked, yokai

    served = {"cube": cube.cube_answer, "macrafter": macrafter.macrafter_answer}
    served |= {"overcooked": overcooked.overcooked_answer, "yokai": yokai.yokai_answer}
    for world, responder in served.items():
        scripted = get_domain(world).capabilities.scripted
        assert scripted is not None and responder is scripted.answer is planner_of(world)
        assert scripted.source == f"proagent.domains.{world}.scripted"
