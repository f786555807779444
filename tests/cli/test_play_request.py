"""`proagent play` passes one typed request down (`PlayRequest`), not argparse's namespace: the
command line builds it from its flags, and a caller that is not the command line builds it itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from proagent.builder import LLMFlags, SetupError
from proagent.cli import build_parser
from proagent.cli.requests import PlayRequest
from proagent.cli.setup import build_session
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC


def test_the_flags_make_the_request_field_by_field() -> None:
    argv = ["play", "--domain", "cube", "--agents", "3", "--env", "a=1", "--topology", "centralized", "--threads", "1"]
    request = PlayRequest.from_args(build_parser().parse_args(argv))
    assert (request.domain, request.agents, request.env, request.topology) == ("cube", 3, ("a=1",), "centralized")
    assert request.llm.threads == 1 and request.layout is None and request.command_line == ("proagent", *argv)


def test_a_request_built_in_python_plays_the_worlds_defaults_and_is_recorded(tmp_path: Path) -> None:
    with FakeChatServer(delay_s=0.0) as server:
        llm = LLMFlags(llm=LOOPBACK_SPEC, api_base=server.url, no_cache=True)
        session = build_session(PlayRequest(domain="cube", horizon=3, runs_dir=tmp_path, llm=llm))
    assert session.request.layout == "easy_2a" and session.request.partner == "pusher"  # settled, as played
    config = json.loads((session.folder.path / "config.json").read_text())
    assert (config["layout"], config["partner"], config["command"]) == ("easy_2a", "pusher", "proagent play")


def test_a_request_refuses_what_play_does_not_take() -> None:
    with pytest.raises(ValidationError):
        PlayRequest(episodes=0)
    with pytest.raises(ValidationError):
        PlayRequest.model_validate({"layuot": "cramped_room"})
    with pytest.raises(SetupError, match="--seat 5"):
        build_session(PlayRequest(domain="cube", seat=5))
