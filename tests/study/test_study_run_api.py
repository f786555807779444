"""The study runner's HTTP API, without a browser: a participant walks the phases, resumes at the
next round after the server is stopped and started again (nothing entered is lost), a round
stopped mid-game is played again, and malformed ids, bodies and other origins are refused."""

from __future__ import annotations

import json
import tomllib

import pytest

from proagent.cli import main
from proagent.study.app import PAGE, study_routes

KEY = "experimenter-key"
from proagent.study.format import Participant
from proagent.study.runner import StudyRunner
from proagent.web.server import WebServer
from tests.study.study_run_helpers import ANSWERS, call, enter, play_round, short_study, wait_for


@pytest.fixture(scope="module")
def envs(tmp_path_factory) -> dict:
    """The short study's env, compiled once for every runner of this module."""
    shared: dict = {}
    StudyRunner(short_study(tmp_path_factory.mktemp("compile")), envs=shared).check_partners()
    return shared


def serve(folder, envs) -> tuple[StudyRunner, WebServer]:
    runner = StudyRunner(folder, envs=envs)
    return runner, WebServer(study_routes(runner, KEY), PAGE, 0).start()


def test_a_participant_resumes_at_the_next_round_after_a_restart(tmp_path, envs):
    folder = short_study(tmp_path / "study")
    runner, server = serve(folder, envs)
    status, made = call(server.url, "/api/study/participants?key=" + KEY, {"id": "P001"})
    assert status == 200 and made == {"id": "P001", "url": "/?id=P001", "rounds": 2}
    assert call(server.url, "/api/study/state?id=P001")[1]["phase"] == "consent"
    enter(server.url, "P001")
    assert call(server.url, "/api/study/state?id=P001")[1] | {} == {
        "id": "P001", "phase": "round", "round": 0, "done": 0, "total": 2, "trial": True,
    }  # fmt: skip
    play_round(server.url, "P001")  # the trial: no questionnaire
    play_round(server.url, "P001")
    state = call(server.url, "/api/study/state?id=P001")[1]
    assert (state["phase"], state["round"]) == ("questionnaire", 1) and len(state["questionnaire"]["questions"]) == 6
    body = {"round": 1, "answers": ANSWERS, "comment": "fine\n<b>x</b>\u202e"}
    assert call(server.url, "/api/study/answers?id=P001", body) == (200, {"saved": True})
    runner.close()
    server.close()  # the server stops; the participant comes back later

    runner, server = serve(folder, envs)
    try:
        state = call(server.url, "/api/study/state?id=P001")[1]
        assert (state["phase"], state["round"], state["done"]) == ("round", 2, 1)
        play_round(server.url, "P001")
        assert call(server.url, "/api/study/answers?id=P001", {"round": 2, "skipped": True})[0] == 200
        assert call(server.url, "/api/study/state?id=P001")[1]["phase"] == "done"
    finally:
        runner.close()
        server.close()
    person = Participant.model_validate_json((folder / "participants/P001/participant.json").read_text())
    assert person.demographics.age_range == "25-34" and person.demographics.gender is None and person.consented
    lines = [json.loads(x) for x in (folder / "participants/P001/questionnaire.jsonl").read_text().splitlines()]
    assert [(x["round"], x["folder"], x["skipped"]) for x in lines] == [
        (1, "1-cramped_room-greedy", False),
        (2, "2-cramped_room-random", True),
    ]
    assert lines[0]["answers"] == ANSWERS and lines[0]["comment"] == "fine <b>x</b>"  # control characters gone
    rounds = sorted(p.name for p in (folder / "participants/P001/rounds").iterdir())
    assert rounds == ["0-cramped_room-greedy", "1-cramped_room-greedy", "2-cramped_room-random"]
    assert main(["study", "report", str(folder)]) == 0
    table = (folder / "report/rounds.csv").read_text()
    assert "P001" in table and len(table.strip().splitlines()) == 3  # header + the two rounds, not the trial


def test_a_round_stopped_mid_game_is_played_again_and_the_partial_one_kept_aside(tmp_path, envs):
    folder = short_study(tmp_path / "study")
    runner, server = serve(folder, envs)
    call(server.url, "/api/study/participants?key=" + KEY, {"id": "P002"})
    enter(server.url, "P002")
    play_round(server.url, "P002")
    assert call(server.url, "/api/info?id=P002")[0] == 200
    call(server.url, "/api/start?id=P002", {})
    runner.close()
    server.close()
    runner, server = serve(folder, envs)
    try:
        assert call(server.url, "/api/state?id=P002")[0] == 409  # no game in memory: the page reopens the study page
        final = play_round(server.url, "P002")
        assert final["record"] is not None
    finally:
        runner.close()
        server.close()
    aside = list((folder / "participants/P002/abandoned").iterdir())
    assert len(aside) == 1 and aside[0].name.startswith("1-cramped_room-greedy-")
    assert (folder / "participants/P002/rounds/1-cramped_room-greedy/episodes.jsonl").stat().st_size > 0


def test_bad_ids_bodies_and_origins_are_refused(tmp_path, envs):
    folder = short_study(tmp_path / "study")
    runner, server = serve(folder, envs)
    url = server.url
    try:
        for bad in ("..%2Fx", "", "a" * 65, "P%00", "-x", "P%201", "P1%2F.."):
            assert call(url, f"/api/study/state?id={bad}")[0] == 400, bad
            assert call(url, f"/api/info?id={bad}")[0] == 400, bad
        assert call(url, "/api/study/state?id=nobody")[0] == 404
        assert call(url, "/api/study/participants?key=" + KEY, {"id": "../x"})[0] == 400
        # a participant who drops ?id= from their link neither lists the others nor adds people
        for key in ("", "?key=", "?key=guess"):
            assert call(url, "/api/study/participants" + key)[0] == 403
            assert call(url, "/api/study/participants" + key, {"id": "P009"})[0] == 403
        assert not (folder / "participants" / "P009").exists()
        assert call(url, "/api/study/participants?key=" + KEY, {"id": "P003"})[0] == 200
        assert call(url, "/api/study/participants?key=" + KEY, {"id": "P003"})[0] == 409
        assert call(url, "/api/study/participants?key=" + KEY, {}, {"Origin": "http://evil.example"})[0] == 403
        assert call(url, "/api/study/demographics?id=P003", {})[0] == 409  # consent comes first
        assert call(url, "/api/study/consent?id=P003", {"agree": "yes"})[0] == 400
        assert call(url, "/api/study/consent?id=P003", {"agree": False})[0] == 400
        assert call(url, "/api/study/consent?id=P003", {"agree": True})[0] == 200
        assert call(url, "/api/study/demographics?id=P003", {"gender": "<script>"})[0] == 400
        assert call(url, "/api/study/demographics?id=P003", {"age_range": "18-24", "extra": 1})[0] == 400
        assert call(url, "/api/study/demographics?id=P003", {})[0] == 200
        assert call(url, "/api/start?id=P003", {})[0] == 409  # the round page opens the game first
        assert call(url, "/api/study/answers?id=P003", {"round": 1, "answers": ANSWERS})[0] == 409  # not played yet
        play_round(url, "P003")
        play_round(url, "P003")
        assert call(url, "/api/study/answers?id=P003", {"round": 2, "answers": ANSWERS})[0] == 409  # round 1's is open
        assert call(url, "/api/study/answers?id=P003", {"round": True, "answers": ANSWERS})[0] == 400
        assert call(url, "/api/study/answers?id=P003", {"round": 1, "answers": {**ANSWERS, "q1": 6}})[0] == 400
        assert call(url, "/api/study/answers?id=P003", {"round": 1, "answers": {"q1": 3}})[0] == 400
        assert call(url, "/api/study/answers?id=P003", {"round": 1, "answers": {**ANSWERS, "q1": True}})[0] == 400
        assert call(url, "/api/action?id=P003", {"action": "fly"})[0] == 400
        people = call(url, "/api/study/participants?key=" + KEY)[1]["participants"]
        assert [(p["id"], p["phase"], p["round"]) for p in people] == [("P003", "questionnaire", 1)]
    finally:
        runner.close()
        server.close()
    assert not (folder / "participants/P003/questionnaire.jsonl").exists()  # nothing refused was written


def test_a_study_with_an_unknown_partner_or_layout_is_refused_before_serving(tmp_path):
    from proagent.study.read import StudyError

    for wrong in ('name = "no_such_partner"', 'name = "random"\n[[layouts]]\nname = "no_such_layout"\nlabel = "X"'):
        folder = short_study(tmp_path / wrong[:12].replace(" ", "_").replace('"', ""))
        text = (folder / "study.toml").read_text().replace('name = "random"', wrong)
        (folder / "study.toml").write_text(text)
        with pytest.raises(StudyError):
            StudyRunner(folder).check_partners()
    assert main(["study", "run", str(tmp_path / "missing"), "--port", "0"]) == 2


def test_names_and_ids_in_records_are_whole_path_parts():
    """pydantic's `pattern` searches; the study's patterns are anchored, so "../x" is no name."""
    from pydantic import ValidationError

    from proagent.study.format import PlannedRound

    with pytest.raises(ValidationError):
        PlannedRound(round=1, layout="../../x", partner="greedy")
    with pytest.raises(ValidationError):
        Participant(id="../P1")


def test_a_realtime_round_runs_on_its_clock_and_seconds_become_steps(tmp_path, envs):
    from proagent.study.format import StudyConfig
    from proagent.study.runner import round_steps

    folder = short_study(tmp_path / "study")
    text = (folder / "study.toml").read_text().replace('mode = "turns"', 'mode = "realtime"\nfps = 20.0')
    (folder / "study.toml").write_text(text)
    runner, server = serve(folder, envs)
    try:
        call(server.url, "/api/study/participants?key=" + KEY, {"id": "P004"})
        enter(server.url, "P004")
        assert call(server.url, "/api/info?id=P004")[1]["mode"] == "realtime"
        assert call(server.url, "/api/start?id=P004", {})[0] == 200
        final = wait_for(lambda: (s := call(server.url, "/api/state?id=P004")[1])["status"] == "finished" and s)
        assert final["step"] == 3 and final["record"] is not None  # no key pressed: the clock ends it
    finally:
        runner.close()
        server.close()
    config = StudyConfig.model_validate(tomllib.loads(text))
    assert round_steps(config) == 3
    shorter = config.model_copy(update={"round_length": config.round_length.model_copy(update={"seconds": 0.1})})
    assert round_steps(shorter) == 2  # 0.1 s at 20 steps a second
    with_soups = config.model_copy(update={"round_length": config.round_length.model_copy(update={"soups": 2})})
    assert round_steps(with_soups) == 3  # the steps cap a round that ends at its second soup


def test_a_round_until_n_soups_hands_the_count_to_the_game(tmp_path, envs):
    folder = short_study(tmp_path / "study")
    text = (folder / "study.toml").read_text().replace("steps = 3", "steps = 3\nsoups = 2")
    (folder / "study.toml").write_text(text)
    runner, server = serve(folder, envs)
    try:
        call(server.url, "/api/study/participants?key=" + KEY, {"id": "P005"})
        enter(server.url, "P005")
        play_round(server.url, "P005")
    finally:
        runner.close()
        server.close()
    (trial,) = (folder / "participants/P005/rounds").iterdir()
    assert json.loads((trial / "config.json").read_text())["human"]["until"] == ["soups", 2]
