"""A scripted participant takes a whole short study in headless Chromium, through the real pages:
the experimenter starts them, they agree to the consent text, answer the demographics, play the
trial round and two rounds (turn-based, three steps each) and answer the questionnaire after each;
then `proagent study report` finds both rounds with their answers. Skipped with the reason when
Chromium is not installed (tests/web/conftest.py)."""

from __future__ import annotations

import csv

from proagent.cli import main
from proagent.study.app import PAGE, study_routes
from tests.support.http_calls import wait_for

KEY = "experimenter-key"
from proagent.study.runner import StudyRunner
from proagent.web.server import WebServer
from tests.study.study_run_helpers import STEPS, short_study

INJECTED = '<img src=x onerror="window.__pwned=1">'


def _phase(browser) -> str | None:
    return browser.execute_script("return document.body.dataset.ready && document.body.dataset.phase")


def _play_round(browser) -> None:
    """From the round's intro: open the round page, start, move STEPS times, continue."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.find_element("id", "play").click()
    wait_for(lambda: browser.execute_script("return location.pathname === '/play' && document.body.dataset.ready"))
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_for(lambda: browser.execute_script("return document.body.dataset.status") == "running")
    for n in range(1, STEPS + 1):
        ActionChains(browser).send_keys(Keys.ARROW_UP).perform()
        wait_for(lambda n=n: browser.execute_script("return window.humanPage.state.step") >= n)
    wait_for(lambda: browser.find_element("id", "next").is_displayed())
    browser.find_element("id", "next").click()


def _answer(browser, points: list[int], comment: str) -> None:
    for question, point in enumerate(points, start=1):
        browser.find_element("css selector", f'input[name="q{question}"][value="{point}"]').click()
    browser.find_element("id", "comment").send_keys(comment)
    browser.find_element("id", "submit").click()


def test_a_scripted_participant_takes_a_short_study(browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    folder = short_study(tmp_path / "study")
    (folder / "consent.txt").write_text(f"Consent for the test study.\n{INJECTED}", encoding="utf-8")
    runner = StudyRunner(folder)
    runner.check_partners()
    with WebServer(study_routes(runner, KEY), PAGE, 0) as server:
        browser.get(f"{server.url}?key={KEY}")
        wait_for(lambda: _phase(browser) == "experimenter")
        browser.find_element("id", "new").click()
        link = wait_for(lambda: browser.find_elements("id", "new-url"))[0].get_attribute("href")
        pid = link.split("id=")[1]
        browser.get(link)
        wait_for(lambda: _phase(browser) == "consent")
        assert INJECTED in browser.find_element("id", "consent-text").text  # shown as text, not markup
        browser.find_element("id", "agree").click()
        wait_for(lambda: _phase(browser) == "demographics")
        Select(browser.find_element("id", "age_range")).select_by_visible_text("25-34")
        Select(browser.find_element("id", "familiarity")).select_by_visible_text("played a few times")
        browser.find_element("id", "demo-submit").click()
        wait_for(lambda: _phase(browser) == "round")
        assert browser.find_element("id", "round-title").text == "Practice round"
        _play_round(browser)
        wait_for(lambda: _phase(browser) == "round")
        assert browser.find_element("id", "round-title").text == "Round 1 of 2"
        _play_round(browser)
        wait_for(lambda: _phase(browser) == "questionnaire")
        _answer(browser, [2, 3, 4, 5, 1, 2], "nice partner")
        wait_for(lambda: _phase(browser) == "round")
        browser.get(link)  # the participant closed the tab and opens their link again
        wait_for(lambda: _phase(browser) == "round")
        assert browser.find_element("id", "round-title").text == "Round 2 of 2"
        _play_round(browser)
        wait_for(lambda: _phase(browser) == "questionnaire")
        _answer(browser, [5, 4, 3, 2, 1, 5], INJECTED)
        wait_for(lambda: _phase(browser) == "done")
        assert "Thank you" in browser.find_element("id", "done").text
        assert browser.execute_script("return document.querySelectorAll('img').length") == 0
        assert browser.execute_script("return window.__pwned === undefined")
        browser.save_screenshot(str(tmp_path / "study-done.png"))
    runner.close()
    assert main(["study", "report", str(folder)]) == 0
    with (folder / "report" / "rounds.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    got = [(r["participant"], r["round"], r["partner"], [r[f"q{i}"] for i in range(1, 7)]) for r in rows]
    assert got == [(pid, "1", "greedy", list("234512")), (pid, "2", "random", list("543215"))]
    person = (folder / "participants" / pid / "participant.json").read_text()
    assert '"age_range": "25-34"' in person and '"familiarity": "played a few times"' in person
