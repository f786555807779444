"""`proagent play` end to end through the real HTTP path: litellm → an OpenAI-compatible server on
127.0.0.1 → planner → verificator → controller → run folder."""

from __future__ import annotations

import json

import pytest

from proagent.cli import main
from proagent.paths import partner_dir
from proagent.training import checkpoint
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC
from tests.support.responders.overcooked import overcooked_answer


@pytest.fixture
def server():
    with FakeChatServer(delay_s=0.0, responder=overcooked_answer) as srv:
        yield srv


def test_play_with_an_openai_compatible_server_writes_a_complete_run(server, tmp_path, monkeypatch, capsys):
    secret = "sk-test-SECRET-never-in-runs-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    args = ["play", "--layout", "cramped_room", "--partner", "greedy", "--llm", LOOPBACK_SPEC, "--api-base", server.url]
    args += ["--horizon", "80", "--runs-dir", str(tmp_path), "--cache-dir", str(tmp_path / "cache"), "--live", "off"]
    assert main(args) == 0
    (run,) = list(tmp_path.glob("*-play-cramped_room-greedy"))
    config = json.loads((run / "config.json").read_text())
    assert config["llm"] == LOOPBACK_SPEC and config["agent"]["legal_only"] is False
    assert config["prompt_hashes"] and config["git_commit"]
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["steps"] == 80 and episode["llm_calls"] - episode["cached_calls"] == len(server.requests) > 0
    assert episode["score"] >= 20, "the heuristic server plus greedy should serve a soup in 80 steps"
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    assert len(trace) == 80 and trace[0]["decision"]["attempts"][0]["messages"][0]["role"] == "system"
    assert (run / "episode.gif").stat().st_size > 0 and (run / "summary.json").exists()
    for path in run.iterdir():
        assert secret not in path.read_text(errors="ignore"), path
    assert server.requests[0]["authorization"] == f"Bearer {secret}"

    # Same seed, same cache: the episode replays without one request to the server.
    before = len(server.requests)
    assert main(args) == 0
    assert len(server.requests) == before
    runs = sorted(tmp_path.glob("*-play-cramped_room-greedy*"))
    replay = [json.loads(line) for line in (runs[-1] / "trace.jsonl").read_text().splitlines()]
    assert [r["actions"] for r in replay] == [r["actions"] for r in trace]


def test_api_failure_is_a_clear_error_not_a_traceback(tmp_path, capsys, monkeypatch):
    from proagent.llm.litellm_backend import LiteLLMModel

    real_init = LiteLLMModel.__init__

    def quick_retries(self, model, api_base=None, **settings):  # as make_model calls it
        real_init(self, model, api_base=api_base, **settings, max_retries=1, backoff_initial_s=0.01, backoff_max_s=0.01)

    monkeypatch.setattr(LiteLLMModel, "__init__", quick_retries)
    with FakeChatServer(responder=overcooked_answer) as srv:
        srv.replies = [(500, {"error": {"message": "boom"}})] * 50
        args = ["play", "--partner", "stay", "--llm", LOOPBACK_SPEC, "--api-base", srv.url, "--horizon", "5"]
        args += ["--runs-dir", str(tmp_path), "--no-cache", "--live", "off", "--no-gif", "--max-replans", "0"]
        assert main(args) == 1
    err = capsys.readouterr().err
    assert "error: the LLM failed" in err and "Traceback" not in err
    # no episode finished, so no claim that finished episodes were kept in a file that does not exist
    assert "no episode finished" in err and "episodes.jsonl" not in err
    assert not list(tmp_path.glob("*/episodes.jsonl"))


@pytest.mark.parametrize(
    "partner",
    ["cole", *(pytest.param(p, marks=pytest.mark.slow) for p in ("fcp", "mep", "pbt", "bc", "human_proxy_deliverer"))],
)
def test_play_with_a_shipped_trained_partner(server, tmp_path, partner):
    """`proagent play --layout counter_circuit --partner cole` (and the rest of the zoo) works offline."""
    args = ["play", "--layout", "counter_circuit", "--partner", partner, "--llm", LOOPBACK_SPEC]
    args += ["--api-base", server.url, "--horizon", "6", "--runs-dir", str(tmp_path), "--live", "off", "--no-cache"]
    assert main(args) == 0
    (run,) = list(tmp_path.glob(f"*-play-counter_circuit-{partner}"))
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["partner"] == partner and episode["steps"] == 6
    shipped = checkpoint.load_manifest(partner_dir("overcooked", "counter_circuit", partner)).params_sha256
    config = json.loads((run / "config.json").read_text())
    assert config["partner_provenance"] == {partner: {"params_sha256": shipped}}  # which checkpoint played


def test_an_aborted_run_summarises_the_episodes_that_finished(tmp_path, capsys, monkeypatch):
    from proagent.llm.litellm_backend import LiteLLMModel
    from tests.support.fake_server import Reply

    real_init = LiteLLMModel.__init__

    def quick_retries(self, model, api_base=None, **settings):
        real_init(self, model, api_base=api_base, **settings, max_retries=0)

    monkeypatch.setattr(LiteLLMModel, "__init__", quick_retries)
    with FakeChatServer(responder=overcooked_answer) as srv:
        # horizon 3: the first episode asks at most 3 times; then the server fails for good (401)
        srv.replies = [Reply()] * 3 + [Reply(status=401, body={"error": {"message": "key revoked"}})] * 20
        argv = ["play", "--partner", "stay", "--llm", LOOPBACK_SPEC, "--api-base", srv.url, "--horizon", "3"]
        argv += ["--episodes", "2"]
        argv += ["--runs-dir", str(tmp_path), "--no-cache", "--live", "off", "--no-gif"]
        assert main(argv) == 1
    err = capsys.readouterr().err
    folder = next(tmp_path.iterdir())
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["episodes"] == 1 and summary["episodes_planned"] == 2 and "key revoked" in summary["aborted"]
    assert "1 of 2 episode(s) finished" in err and "Traceback" not in err
