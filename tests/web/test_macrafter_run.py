"""A real MA-Crafter episode drawn end to end: two scripted ``tech`` partners play easy_2a for a few
steps through the ordinary episode loop; its GIF has a frame per state, its replay payload (found
through the world registry) has the map every step and each agent's dZ in the third lane, agreeing
with the bags the frames show; and the human page serves the world's facts, script and keys
(one env, compiled once, serves every test here)."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from itertools import pairwise
from pathlib import Path

import pytest
from PIL import Image
from web_helpers import human_args

from proagent.domains import get_domain
from proagent.domains.macrafter.rendering import CELL, STRIP
from proagent.domains.macrafter.web import SCRIPT
from proagent.runner.episode import run_episode
from proagent.runner.run_folder import RunFolder
from proagent.web.replay_data import episode_payload, load_run
from proagent.world.kit.pictures import save_gif
from tests.support.http_calls import call, wait_for

LAYOUT, HORIZON = "easy_2a", 24
DOMAIN = get_domain("macrafter")


@pytest.fixture(scope="module")
def env():
    return DOMAIN.make_env(LAYOUT, HORIZON)


@pytest.fixture(scope="module")
def played(env, tmp_path_factory) -> Path:
    """The run folder of one scripted episode, with its GIF as `proagent play` writes it."""
    folder = RunFolder(tmp_path_factory.mktemp("macrafter") / "20260101-000000-play-easy_2a-tech")
    folder.write_json(
        "config.json", {"domain": "macrafter", "layout": LAYOUT, "partner": "tech", "seat": 0, "horizon": HORIZON}
    )
    team = [DOMAIN.make_partner("tech", env), DOMAIN.make_partner("tech", env)]
    states: list = []
    trace = lambda line: folder.append_jsonl("trace.jsonl", line)
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 0, 0, trace=trace, states=states))
    folder.append_jsonl("episodes.jsonl", record, durable=True)
    save_gif(env, DOMAIN.capabilities.rendering, states, folder.path / "episode.gif")
    return folder.path


def test_the_episode_gif_has_a_frame_per_state(env, played):
    s = env.settings
    with Image.open(played / "episode.gif") as gif:
        assert gif.n_frames == HORIZON + 1
        assert gif.size == (max(s.width * CELL, 160), s.height * CELL + env.num_agents * STRIP)


def test_the_replay_of_a_real_run_has_the_map_each_bag_and_their_changes(env, played):
    payload = episode_payload(load_run(played))
    assert payload["domain"] == "macrafter" and payload["world"]["target"] == env.scenario.target
    frames = payload["frames"]
    assert len(frames) == HORIZON + 1 and frames[-1]["final"]
    assert [f["macrafter"]["step"] for f in frames] == list(range(HORIZON + 1))
    assert {len(f["macrafter"]["grid"]) for f in frames} == {env.settings.height}
    lanes = payload["lanes"]
    assert lanes["capability"] is True and len(lanes["steps"]) == HORIZON
    for step, (now, then) in zip(lanes["steps"], pairwise(frames), strict=True):
        agents = now["macrafter"]["agents"]
        assert len(agents) == env.num_agents
        for before, after in zip(agents, then["macrafter"]["agents"], strict=True):
            seat = str(before["seat"])
            moved = {k: after["inventory"][k] - n for k, n in before["inventory"].items() if after["inventory"][k] != n}
            assert step["changes"].get(seat, {}) == moved, f"step {step['step']}: the lane's dZ is the bags' change"
    assert any(step["changes"] for step in lanes["steps"]), "the scripted team collects something"
    assert any(e["kind"] == "collect" for f in frames for e in f["events"])


def test_the_human_page_serves_the_worlds_facts_script_and_keys(env, tmp_path):
    from proagent.web.human_session import build_human_session

    request = human_args(tmp_path, "--mode", "turns", "--no-questionnaire")
    request = request.model_copy(update={"domain": "macrafter", "layout": LAYOUT, "agent": "tech", "horizon": HORIZON})
    session = build_human_session(request, env)
    with session.serve(0) as server:
        status, info = call(server.url, "/api/info")
        assert status == 200 and (info["width"], info["height"]) == (env.settings.width, env.settings.height)
        assert info["materials"][3] == "tree" and info["target"] == env.scenario.target and "Tab sleeps" in info["help"]
        with urllib.request.urlopen(server.url.rstrip("/") + "/domain.js", timeout=10) as response:
            assert response.read() == SCRIPT.read_bytes()
        assert call(server.url, "/api/start", {})[0] == 200
        assert call(server.url, "/api/action", {"action": "do"})[0] == 200, "space is MA-Crafter's do"
        status, state = call(server.url, "/api/state")
        assert status == 200 and state["state"]["agents"][0]["faced"] is not None
        session.game.stop()


def test_a_person_plays_macrafter_in_the_browser_with_crafters_keys(browser, env, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    from proagent.web.human_session import build_human_session

    request = human_args(tmp_path, "--mode", "turns", "--no-questionnaire")
    request = request.model_copy(update={"domain": "macrafter", "layout": LAYOUT, "agent": "tech", "horizon": HORIZON})
    session = build_human_session(request, env)
    browser.get_log("browser")  # drop what earlier pages logged
    with session.serve(0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        state = lambda: call(server.url, "/api/state")[1]
        wait_for(lambda: browser.execute_script("return document.getElementById('board').width") > 300)
        colours = browser.execute_script(
            "const c = document.getElementById('board'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "const seen = new Set(); for (let i = 0; i < d.length; i += 16) seen.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]);"
            "return seen.size;"
        )
        assert colours > 12, "the map and the agents' cards are drawn"
        assert "Tab sleeps" in browser.find_element("id", "help").text
        ActionChains(browser).send_keys(Keys.ENTER).perform()
        wait_for(lambda: browser.execute_script("return document.body.dataset.status") == "running")
        for step, key in enumerate((Keys.SPACE, Keys.TAB, "q"), start=1):
            ActionChains(browser).send_keys(key).perform()
            wait_for(lambda step=step: state()["step"] == step)
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        session.game.stop()
    trace = [json.loads(line) for line in (session.folder.path / "trace.jsonl").read_text().splitlines()]
    assert [line["actions"][0] for line in trace[:3]] == ["do", "sleep", "noop"], "space acts, Tab sleeps, Q waits"
