"""`proagent play` with ProAgent in every seat (a CUBE team of LLM agents on the loopback server):
the episode record and the episode line count every seat's calls, as many as the server answered."""

from __future__ import annotations

import json

from proagent.cli import main
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.cube import cube_answer


def test_play_counts_the_calls_of_every_seat(tmp_path, capsys):
    with FakeChatServer(delay_s=0.0, responder=cube_answer) as server:
        argv = ["play", "--domain", "cube", "--layout", "easy_2a", "--partner", "proagent", "--horizon", "10", "--no-gif"]
        assert main([*argv, *loopback_args(server.url), "--runs-dir", str(tmp_path), "--live", "off"]) == 0
        asked = len(server.requests)
    (run,) = tmp_path.glob("*-play-easy_2a-proagent")
    (record,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert record["team_llm_calls"] == asked == sum(seat["llm_calls"] for seat in record["seat_usage"])
    assert all(seat["llm_calls"] > 0 for seat in record["seat_usage"]) and record["llm_calls"] < asked
    assert record["team_tokens"] == sum(s["prompt_tokens"] + s["completion_tokens"] for s in record["seat_usage"]) > 0
    line = next(line for line in capsys.readouterr().err.splitlines() if line.startswith("episode 1:"))
    assert f"{record['llm_calls']} LLM calls ({asked} by the team, {record['team_tokens']} tokens)" in line
    summary = json.loads((run / "summary.json").read_text())
    assert summary["team_llm_calls_mean"] == asked
