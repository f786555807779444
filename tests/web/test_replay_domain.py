"""The replay page's domain seam: the generic web code names no world, a run's domain picks the
drawing, and run folders written before the seam replay exactly as before.

``data/old-run`` is a real 20-step play run (ProAgent with greedy on cramped_room, prompts
stripped) as written before domains existed: no ``domain`` in config.json, ``soups`` at the top
level of episodes.jsonl. ``data/old-run*.payload.json`` are the payloads the replay code served
for it before the seam (the ASCII one: the same trace without the structured kitchen).
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from pathlib import Path

import pytest

from proagent.domains.overcooked.web import SCRIPT, replay_drawing
from proagent.web.replay_data import ReplayError, episode_payload, load_run
from proagent.web.replay_page import DOMAIN_SCRIPT, PAGE, export_html, replay_routes
from proagent.web.server import WebServer, static_file
from proagent.world.replay import EndFrame, ReplayDrawing
from tests.support.http_calls import wait_for

DATA = Path(__file__).resolve().parent / "data"
WEB = Path(__file__).resolve().parents[2] / "proagent" / "web"
GENERIC_FILES = ("replay_data.py", "replay_lanes.py", "replay_page.py", "server.py", "static/replay.js", "static/replay.html")
OVERCOOKED_NAMES = re.compile(r"KitchenState|onion|soup|\bpot|envs\.overcooked|from envs|tomato|dish", re.IGNORECASE)
ADDED = ("domain", "metrics", "score_span")  # what the seam and the score formatting added to the payload
# the score as people read it; the teammates' reasoning; a clocked run's decision marks (none in an old trace)
FRAME_ADDED = ("score_text", "team", "team_decisions", "clock")
DECISION_ADDED = ("loops",)  # the undo loops caught at a decision (none in an old trace)


def _old_run(tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / "old-run", tmp_path / "old-run"))


def _lines(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]


def _write_lines(run: Path, lines: list[dict]) -> None:
    (run / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))


def _without_added(payload: dict) -> dict:
    plain = {k: v for k, v in json.loads(json.dumps(payload, default=str)).items() if k not in ADDED}
    assert all(f["clock"] == [] for f in plain["frames"])  # an old trace has no clock records
    frames = [{k: v for k, v in f.items() if k not in FRAME_ADDED} for f in plain["frames"]]
    for frame in frames:
        if frame.get("decision"):
            assert all(frame["decision"][k] == [] for k in DECISION_ADDED)  # an old trace has none
            frame["decision"] = {k: v for k, v in frame["decision"].items() if k not in DECISION_ADDED}
    return {**plain, "frames": frames}


def test_generic_web_files_name_nothing_of_overcooked():
    for name in GENERIC_FILES:
        text = (WEB / name).read_text(encoding="utf-8")
        found = [
            f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in OVERCOOKED_NAMES.finditer(text)
        ]
        assert not found, f"Overcooked names in the generic web code: {found}"


def test_an_old_run_folder_replays_exactly_as_before(tmp_path):
    run = load_run(_old_run(tmp_path))
    assert run.domain == "overcooked", "a config.json without domain is an Overcooked run"
    payload = episode_payload(run)
    assert _without_added(payload) == json.loads((DATA / "old-run.payload.json").read_text())
    assert payload["domain"] == "overcooked" and payload["metrics"] == {"soups": 0, "wrong_soups": 0}, (
        "top-level soups are read"
    )


def test_an_ascii_only_trace_replays_exactly_as_before(tmp_path):
    folder = _old_run(tmp_path)
    dropped = ("kitchen", "terrain", "final", "seat", "partner_skill")  # fields later traces added
    _write_lines(folder, [{k: v for k, v in r.items() if k not in dropped} for r in _lines(folder)])
    payload = episode_payload(load_run(folder))
    assert _without_added(payload) == json.loads((DATA / "old-run-ascii.payload.json").read_text())
    assert all(f["kitchen"]["approximate"] for f in payload["frames"])


def test_domain_metrics_are_shown_whatever_they_hold(tmp_path):
    folder = _old_run(tmp_path)
    record = json.loads((folder / "episodes.jsonl").read_text())
    del record["soups"], record["wrong_soups"]
    record["domain_metrics"] = {"soups": 2, "wrong_soups": 1, "spills": 0.5, "note": "not a number"}
    (folder / "episodes.jsonl").write_text(json.dumps(record) + "\n")
    assert episode_payload(load_run(folder))["metrics"] == {"soups": 2, "wrong_soups": 1, "spills": 0.5}


def test_the_config_names_the_domain_and_an_unknown_one_is_a_clear_error(tmp_path):
    folder = _old_run(tmp_path)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "domain": "overcooked"}))
    assert episode_payload(load_run(folder))["frames"][-1]["final"]
    (folder / "config.json").write_text(json.dumps({**config, "domain": "chess"}))
    with pytest.raises(ReplayError, match="'chess' has no replay drawing; domains with one: cube, macrafter, overcooked, yokai"):
        episode_payload(load_run(folder))
    with pytest.raises(ReplayError, match="no replay drawing"):
        replay_routes(load_run(folder))


def _toy_drawing(tmp_path: Path) -> ReplayDrawing:
    """A world the web package never heard of, with three seats and its own drawing."""
    script = tmp_path / "toy.js"
    script.write_text("const ReplayDomain = { toy: true };\n")
    return ReplayDrawing(
        "toy", script, scene=lambda first: {"board": first["state"]}, frame=lambda line: {"cells": line["cells"]},
        end=lambda last: EndFrame(last["step"] + 1, {"cells": last["after"]}) if "after" in last else None,
    )  # fmt: skip


def test_any_domain_and_any_number_of_seats_is_drawn_through_the_seam(tmp_path):
    folder = tmp_path / "toy-run"
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"domain": "toy", "partner": "bot", "seat": 2, "agent": {"name": "me"}})
    )
    lines = [
        {"episode": 0, "step": t, "state": "board", "cells": [t], "actions": ["a", "b", "c"], "score": t}
        for t in range(3)
    ]
    lines[-1]["after"] = [9]
    _write_lines(folder, lines)
    run, drawing = load_run(folder), _toy_drawing(tmp_path)
    payload = episode_payload(run, 0, drawing)
    assert payload["domain"] == "toy" and payload["board"] == "board" and payload["names"] == ["bot", "bot", "me"]
    assert [f["cells"] for f in payload["frames"]] == [[0], [1], [2], [9]] and payload["frames"][-1]["step"] == 3
    assert payload["metrics"] == {} and "terrain" not in payload and "kitchen" not in payload["frames"][0]
    page = export_html(run, tmp_path / "toy.html", 0, drawing).read_text()
    assert "const ReplayDomain = { toy: true };" in page and "<script src" not in page


def test_the_server_sends_the_domain_script_and_the_human_page_loads_it_too(tmp_path):
    assert replay_drawing().script == SCRIPT and SCRIPT.is_file()
    with WebServer(replay_routes(load_run(_old_run(tmp_path))), PAGE, 0) as server:
        request = urllib.request.Request(server.url.rstrip("/") + DOMAIN_SCRIPT)
        with urllib.request.urlopen(request, timeout=10) as response:
            kind, body = response.headers["Content-Type"], response.read()
    assert kind.startswith("text/javascript") and body == SCRIPT.read_bytes()
    # the human page loads the same script from its own route (human_app: GET /domain.js), not from static/
    assert '<script src="/domain.js"></script>' in static_file("human.html").body.decode()
    assert static_file("kitchen.js").status == 404
    assert "const ReplayDomain" in export_html(load_run(tmp_path / "old-run"), tmp_path / "r.html").read_text()


def test_an_old_run_plays_in_the_browser(browser, tmp_path):
    browser.get_log("browser")  # drop what earlier pages logged
    with WebServer(replay_routes(load_run(_old_run(tmp_path))), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        browser.find_element("id", "last").click()
        text = lambda element: browser.find_element("id", element).text
        assert text("step") == "step 20 / 20 (end)" and text("metrics") == "episode: soups 0, wrong soups 0"
        assert "player 0 proagent: skill" in text("players") and ", holding onion" in text("players")
        assert browser.find_elements("tag name", "h2")[-1].text.endswith(
            "belief corrections, deliveries; click to jump)"
        )
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
