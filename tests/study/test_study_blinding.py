"""The study protocol's blinding, on the API (not the page): every JSON answer a participant's
browser can get, through a trial and a scored round to the questionnaire, errors included, names no
partner (by name or label), no agent kind and no model. (The static pages and drawing scripts are
the same files for every study and partner.)"""

from __future__ import annotations

import json
import re

import pytest

from proagent.study.app import PAGE, study_routes
from proagent.study.blind import HIDDEN, Blinder
from proagent.study.runner import StudyRunner
from proagent.web.server import WebServer
from tests.support.http_calls import call, wait_for

KEY = "experimenter-key"
STUDY = """
name = "a blind study"
ordering = "fixed"
rounds = 1
mode = "turns"
questionnaire = "default"

[[layouts]]
name = "cramped_room"
label = "CR"

[[partners]]
name = "cole"
label = "Population-Entropy"

[round_length]
steps = 3

[trial]
layout = "cramped_room"
partner = "greedy"
"""
NAMES = ("cole", "Population-Entropy", "greedy", "proagent", "embedded", "smollm")


class Recorder:
    """Every answer the participant's browser gets, as text."""

    def __init__(self, url: str, pid: str) -> None:
        self.url, self.q, self.answers = url, f"?id={pid}", []

    def __call__(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        status, data = call(self.url, path + self.q, body)
        self.answers.append(f"{path} {status} {json.dumps(data)}")
        return status, data


def _round(ask: Recorder) -> dict:
    """A round through the endpoints the round page uses, with a refused key press on the way."""
    assert ask("/api/info")[0] == 200
    assert ask("/api/action", {"action": "fly"})[0] == 400
    assert ask("/api/start", {})[0] == 200
    for _ in range(3):
        step = ask("/api/state")[1]["step"]
        assert ask("/api/action", {"action": "up"})[0] == 200
        wait_for(lambda step=step: ask("/api/state")[1]["step"] > step or ask("/api/state")[1]["record"])
    return wait_for(lambda: (s := ask("/api/state")[1])["status"] == "finished" and s)


def test_no_participant_facing_answer_names_a_partner_agent_or_model(tmp_path) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.toml").write_text(STUDY, encoding="utf-8")
    runner = StudyRunner(folder)
    server = WebServer(study_routes(runner, KEY), PAGE, 0).start()
    try:
        assert call(server.url, "/api/study/participants?key=" + KEY, {"id": "P001"})[0] == 200
        ask = Recorder(server.url, "P001")
        ask("/api/study/state")
        assert ask("/api/state")[0] == 409  # no round yet: a refusal, blinded too
        assert ask("/api/study/consent", {"agree": True})[0] == 200
        assert ask("/api/study/demographics", {})[0] == 200
        _round(ask)  # the trial, with the trial's partner
        ask("/api/study/state")
        last = _round(ask)  # round 1, with the studied partner
        assert last["record"]["score"] is not None and set(last["record"]) <= {"score", "domain_metrics", "steps"}
        ask("/api/study/state")
        assert ask("/api/study/answers", {"round": 1, "skipped": True})[0] == 200
        ask("/api/study/state")
    finally:
        runner.close()
        server.close()
    seen = "\n".join(ask.answers)
    word = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
    found = {name for name in NAMES if re.search(word.format(re.escape(name)), seen, re.IGNORECASE)}
    assert found == set(), [line[:300] for line in ask.answers if any(n.lower() in line.lower() for n in found)]
    assert len(ask.answers) > 20


@pytest.mark.parametrize(
    ("payload", "blinded"),
    [
        ({"record": {"score": 3, "partner": "cole", "team": ["human", "cole"]}}, {"record": {"score": 3}}),
        ({"error": "LLMError: openai/gpt-4o-mini timed out"}, {"error": f"LLMError: {HIDDEN} timed out"}),
        ({"agent": {"analysis": "I am COLE, the partner"}}, {"agent": {"analysis": f"I am {HIDDEN}, the partner"}}),
        ({"names": ["you", "cole"], "agent": "cole"}, {"names": ["you", HIDDEN], "agent": HIDDEN}),
        ({"consent": "drawn at random", "step": 2}, {"consent": "drawn at random", "step": 2}),
    ],
)
def test_the_blinder_cuts_records_and_replaces_names_but_keeps_the_labs_texts(payload, blinded) -> None:
    assert Blinder(["cole", "random", "openai/gpt-4o-mini", "gpt-4o-mini"]).payload(payload) == blinded
