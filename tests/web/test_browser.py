"""Both pages in a real browser (headless Chromium): load, press keys, check the state and the
saved run, take a screenshot. Skipped with the reason when Chromium is not installed."""

from __future__ import annotations

import json
import time

import pytest
from web_helpers import human_args

from proagent.web.human_session import build_human_session
from proagent.web.replay_data import load_run
from proagent.web.replay_page import PAGE, export_html, replay_routes
from proagent.web.server import WebServer
from tests.support.http_calls import call, wait_for


def _keys(browser, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    chain = ActionChains(browser)
    for key in keys:
        chain.send_keys(key).pause(0.05)
    chain.perform()


def _shot(browser, path) -> None:
    browser.save_screenshot(str(path))
    assert path.stat().st_size > 5_000, "the screenshot is not blank"


def test_replay_page_plays_steps_and_scrubs(browser, llm_run, tmp_path):
    from selenium.webdriver.common.keys import Keys

    with WebServer(replay_routes(load_run(llm_run)), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        index = lambda: browser.execute_script("return window.replay.index")
        assert index() == 0 and browser.execute_script("return window.replay.data.frames.length") == 21
        browser.find_element("id", "fwd").click()
        _keys(browser, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        assert index() == 3 and browser.find_element("id", "step").text.startswith("step 3")
        assert "rejected" in browser.find_element("id", "timeline").text, "the Verificator rejection is on the timeline"
        assert browser.find_element("id", "analysis").text not in ("", "–")
        browser.find_element("id", "play").click()
        wait_for(lambda: index() > 5, timeout=10)
        browser.find_element("id", "last").click()
        assert browser.find_element("id", "step").text.endswith("(end)")
        _shot(browser, tmp_path / "replay.png")
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_the_timeline_shows_each_caught_loop(browser, llm_run, tmp_path):
    from test_replay_data import looped_run

    with WebServer(replay_routes(load_run(looped_run(llm_run, tmp_path / "looped"))), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        text = browser.find_element("id", "timeline").text
        assert "loop caught: pickup(onion) again would repeat step 1's choice, undone by place_obj_on_counter(); blocked" in text


def test_every_seats_reasoning_messages_and_the_v2_view_are_shown(browser, llm_run, tmp_path):
    from test_replay_data import teamed_run

    with WebServer(replay_routes(load_run(teamed_run(llm_run, tmp_path / "teamed"))), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        browser.execute_script("document.getElementById('scrub').value = 2;"
                               "document.getElementById('scrub').dispatchEvent(new Event('input'))")  # fmt: skip
        team = browser.find_element("id", "team").text
        assert "player 1 (greedy) analysis: the pot needs onions" in team and "its predicted intention: deliver_soup()" in team
        assert "player 1 → 0 (say): “I take the onions”" in browser.find_element("id", "messages").text
        legend = browser.find_element("id", "legend").text
        assert "sees only the 5x5 cells around it" in legend and "takes 5 points off the score" in legend
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_exported_replay_opens_from_file_without_a_server(browser, llm_run, tmp_path):
    out = export_html(load_run(llm_run), tmp_path / "export.html")
    browser.get(out.as_uri())
    wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
    browser.find_element("id", "last").click()
    assert browser.execute_script("return window.replay.index") == 20
    _shot(browser, tmp_path / "export.png")


def test_a_person_plays_a_game_in_the_browser_and_answers_the_questionnaire(browser, cramped_env, tmp_path):
    from selenium.webdriver.common.keys import Keys

    session = build_human_session(human_args(tmp_path, "--mode", "turns"), cramped_env)
    with session.serve(0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        state = lambda: call(server.url, "/api/state")[1]
        start = state()["state"]["players"][0]["position"]
        _keys(browser, Keys.ENTER)
        wait_for(lambda: browser.execute_script("return document.body.dataset.status") == "running")
        _keys(browser, Keys.ARROW_RIGHT)  # cramped_room: player 0 starts at (1, 2); right is floor
        wait_for(lambda: state()["step"] == 1)
        assert state()["state"]["players"][0]["position"] == [start[0] + 1, start[1]]
        _keys(browser, Keys.ARROW_UP, Keys.SPACE)
        wait_for(lambda: state()["step"] == 3)
        wait_for(lambda: browser.find_element("id", "step").text == "step 3 / 20")
        _shot(browser, tmp_path / "human-playing.png")
        for n in range(4, 21):
            _keys(browser, Keys.ARROW_LEFT)
            wait_for(lambda n=n: state()["step"] >= n or state()["status"] != "running")
        wait_for(lambda: browser.find_element("id", "survey").is_displayed())
        for question in range(1, 7):
            browser.find_element("css selector", f'input[name="q{question}"][value="{(question % 5) + 1}"]').click()
        browser.find_element("id", "comment").send_keys("nice chef")
        browser.find_element("id", "submit").click()
        wait_for(lambda: "saved" in browser.find_element("id", "saved").text)
        _shot(browser, tmp_path / "human-questionnaire.png")
    run = session.folder.path
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    assert [r["actions"][0] for r in trace[:3]] == ["right", "up", "interact"] and len(trace) == 20
    answers = json.loads((run / "questionnaire.json").read_text())
    assert [a["value"] for a in answers["answers"]] == [2, 3, 4, 5, 1, 2] and answers["comment"] == "nice chef"
    assert (run / "episodes.jsonl").read_text().count("\n") == 1 and (run / "replay.html").exists()


@pytest.mark.parametrize("fps", [8.0])
def test_realtime_game_advances_without_keys_and_takes_a_held_arrow(browser, cramped_env, tmp_path, fps):
    from selenium.webdriver.common.keys import Keys

    session = build_human_session(human_args(tmp_path, "--fps", str(fps), "--no-questionnaire"), cramped_env)
    with session.serve(0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        browser.find_element("id", "start").click()
        time.sleep(0.5)
        step = call(server.url, "/api/state")[1]["step"]
        assert 1 <= step <= 8, f"real time at {fps}/s: {step} steps after 0.5 s"
        _keys(browser, Keys.ARROW_RIGHT)
        wait_for(lambda: session.game.finished.is_set(), timeout=10)
    trace = [json.loads(line) for line in (session.folder.path / "trace.jsonl").read_text().splitlines()]
    assert "right" in [r["actions"][0] for r in trace] and len(trace) == 20


INJECTED = '<img src=x onerror="window.__pwned=1">'


def test_a_crafted_trace_cannot_run_script_in_the_exported_page(browser, llm_run, tmp_path):
    """Run folders get shared: every trace field the page shows is text, never markup (numeric fields
    holding markup are not read at all: the reader types them, see tests/cli/test_untrusted_run_folders.py)."""
    import shutil

    crafted = tmp_path / llm_run.name
    shutil.copytree(llm_run, crafted)
    lines = [json.loads(line) for line in (crafted / "trace.jsonl").read_text().splitlines()]
    for line in lines:
        line["events"] = [{"agent": 0, "kind": INJECTED, "step": line["step"]}]
        if line.get("decision"):
            line["decision"].update(skill=INJECTED, analysis=INJECTED)
    (crafted / "trace.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = export_html(load_run(crafted), tmp_path / "export.html")
    browser.get(out.as_uri())
    wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
    for _ in range(3):
        browser.find_element("id", "fwd").click()
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert browser.execute_script("return window.__pwned === undefined")
    assert INJECTED in browser.find_element("id", "events").text
