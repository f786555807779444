"""The replay page's three-lane trace (cognition and messages, primitive actions, constraint
satisfaction): its payload from a real MAEIL run (CUBE, centralized, loopback model), exact values
on hand-made lines, old traces without it, and the lanes in a real browser (skipped without
Chromium)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.web.replay_data import ReplayDrawing, episode_payload, load_run
from proagent.web.replay_lanes import episode_lanes
from proagent.web.replay_page import PAGE, export_html, replay_routes
from proagent.web.server import WebServer
from tests.support.fake_server import FakeChatServer
from tests.support.http_calls import wait_for
from tests.support.loopback import loopback_args
from tests.support.responders.cube import cube_answer

DATA = Path(__file__).resolve().parent / "data"
HORIZON = 20
MAEIL_FIELDS = ("cognition", "stages", "constraints")
TOY_SCRIPT = """const ReplayDomain = {
  draw(canvas) { const c = canvas.getContext("2d"); c.fillStyle = "#ddd"; c.fillRect(0, 0, canvas.width, canvas.height); },
  seatColor: (i) => ["#c33", "#33c", "#3a3"][i % 3],
  seatStatus: () => "",
  horizon: () => 20,
  eventNote: (e) => (e.kind === "move" ? null : e.kind),
  notable: "",
};
"""


@pytest.fixture(scope="module")
def maeil_run(tmp_path_factory) -> Path:
    """A 20-step CUBE play run through MAEIL: three ProAgents, centralized, on the loopback model."""
    root = tmp_path_factory.mktemp("maeil-runs")
    with FakeChatServer(delay_s=0.0, responder=cube_answer) as server:
        argv = [
            "play",
            "--domain",
            "cube",
            "--layout",
            "medium_3a",
            "--topology",
            "centralized",
            "--partner",
            "proagent",
        ]
        llm = [*loopback_args(server.url), "--runs-dir", str(root)]
        assert main([*argv, "--horizon", str(HORIZON), "--no-gif", "--live", "off", *llm]) == 0
    (run,) = root.glob("*-play-medium_3a-*")
    return run


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> ReplayDrawing:
    """A drawing that draws no world: the lanes are the page's own, whatever the domain."""
    script = tmp_path_factory.mktemp("toy") / "toy.js"
    script.write_text(TOY_SCRIPT)
    return ReplayDrawing("toy", script, scene=lambda first: {}, frame=lambda line: {}, end=lambda last: None)


def _lines(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]


def test_lanes_of_a_maeil_run_agree_with_its_trace_and_its_process_metrics(maeil_run, toy):
    payload = episode_payload(load_run(maeil_run), 0, toy)
    lanes, lines = payload["lanes"], _lines(maeil_run)
    metrics = json.loads((maeil_run / "episodes.jsonl").read_text().splitlines()[0])["process_metrics"]
    assert lanes["seats"] == ["0", "1", "2"] and lanes["constraints"] == [
        "spatial",
        "temporal",
        "participation",
        "dependency",
    ]
    assert len(lanes["steps"]) == len(lines) == HORIZON
    assert [s["step"] for s in lanes["steps"]] == [f["step"] for f in payload["frames"][:HORIZON]], (
        "column i is frame i"
    )
    for step, line in zip(lanes["steps"], lines):
        assert step["after"] == line["stages"]
        assert {seat: path[-1][0] for seat, path in step["stages"].items()} == line["stages"], (
            "each path ends where the phase left it"
        )
        assert all(ms >= 0 for path in step["stages"].values() for _, ms in path)
        assert all(0 <= e["at"] <= 1 for key in ("plans", "interrupts", "messages") for e in step[key])
        assert step["dz"] == sum(c["delta_z"] for c in line["constraints"])
    plans = Counter(p["outcome"] for s in lanes["steps"] for p in s["plans"])
    assert plans == +Counter(
        {"new": metrics["plans_new"], "replanned": metrics["replans"], "resumed": metrics["resumptions"]}
    )
    assert sum(len(s["interrupts"]) for s in lanes["steps"]) == metrics["interruptions"]
    failures = Counter(name for s in lanes["steps"] for name, n in s["failures"].items() for _ in range(n))
    assert failures["spatial"] > 0, "the short run fails pushes"
    assert failures == +Counter({c: metrics[f"failures_{c}"] for c in lanes["constraints"]}), (
        "every failure is attributed once"
    )
    messages = [m for s in lanes["steps"] for m in s["messages"]]
    assert {m["kind"] for m in messages} <= {"request", "directive", "ack"} and messages, (
        "centralized: requests, directives, acks"
    )
    assert all(str(m["from"]) in lanes["seats"] and m["to"] and m["text"] for m in messages)
    assert len(json.dumps(lanes)) < 40_000, "compact: no prompts, no raw records"


def test_lanes_on_hand_made_lines_have_exact_values():
    cognition = [
        {"kind": "stage", "agent": 0, "from": "W", "to": "R", "wall_ms": 0.0},
        {"kind": "message", "type": "request", "from": 1, "to": [0], "text": "plan?", "wall_ms": 0.0},
        {"kind": "read", "agent": 0, "count": 1, "wall_ms": 1.0},
        {"kind": "plan", "agent": 0, "plan": "go(1)", "outcome": "new", "wall_ms": 6.0},
        {
            "kind": "ack",
            "from": 0,
            "to": [1],
            "text": "ok",
            "wall_ms": 6.0,
        },  # a message kind as earlier traces wrote it
        {"kind": "stage", "agent": 0, "from": "R", "to": "X", "wall_ms": 6.0},
        {"kind": "stage", "agent": 1, "from": "X", "to": "I", "cause": 0, "wall_ms": 8.0},
        {"kind": "stage", "agent": 1, "from": "I", "to": "X", "wall_ms": 10.0},
    ]
    failed = {
        "block": 0,
        "direction": "right",
        "counts": {"spatial": 1, "temporal": 1, "participation": 2},
        "satisfied": ["participation", "dependency"],
        "violated": ["spatial", "temporal"],
        "outcome": "insufficient_force",
        "attributed": "spatial",
        "delta_z": 0,
    }
    idle = {
        **failed,
        "block": 1,
        "counts": {"spatial": 0, "temporal": 0, "participation": 2},
        "outcome": None,
        "attributed": None,
        "delta_z": 0,
    }
    arrived = {
        **idle,
        "block": 0,
        "counts": {"spatial": 2, "temporal": 0, "participation": 2},
        "satisfied": ["spatial", "participation", "dependency", "reach"],
        "violated": ["temporal"],
        "delta_z": 1,
    }
    records = [
        {
            "step": 0,
            "actions": ["a", "b"],
            "cognition": cognition,
            "stages": {"0": "X", "1": "X"},
            "constraints": [failed, idle],
        },
        {"step": 1, "actions": ["a", "b"], "constraints": [arrived, idle]},
    ]
    lanes = episode_lanes(records)
    assert lanes["seats"] == ["0", "1"] and lanes["constraints"] == [
        "spatial",
        "temporal",
        "participation",
        "dependency",
        "reach",
    ]
    first, second = lanes["steps"]
    assert first == {
        "step": 0,
        "ms": 10.0,
        "stages": {"0": [["R", 6.0], ["X", 4.0]], "1": [["X", 8.0], ["I", 2.0], ["X", 0.0]]},
        "plans": [{"agent": 0, "plan": "go(1)", "outcome": "new", "at": 0.6}],
        "interrupts": [{"agent": 1, "cause": 0, "at": 0.8}],
        "messages": [
            {"from": 1, "to": [0], "kind": "request", "text": "plan?", "at": 0.0},
            {"from": 0, "to": [1], "kind": "ack", "text": "ok", "at": 0.6},
        ],
        "after": {"0": "X", "1": "X"},
        "tasks": [
            {
                "task": "0 right",
                "sat": ["participation", "dependency"],
                "viol": ["spatial", "temporal"],
                "outcome": "insufficient_force",
                "attributed": "spatial",
                "dz": 0,
                "counts": {"spatial": 1, "temporal": 1, "participation": 2},
            }
        ],
        "constraints": {"participation": [1, 0], "dependency": [1, 0], "spatial": [0, 1], "temporal": [0, 1]},
        "failures": {"spatial": 1},
        "dz": 0,
    }, "the task nobody worked on (block 1) is left out"
    assert second["stages"] == {"0": [["X", 0.0]], "1": [["X", 0.0]]} and second["ms"] == 0.0, (
        "no phase: the stage carries over"
    )
    assert second["plans"] == second["messages"] == second["interrupts"] == [] and second["failures"] == {}
    assert second["constraints"] == {
        "spatial": [1, 0],
        "participation": [1, 0],
        "dependency": [1, 0],
        "reach": [1, 0],
        "temporal": [0, 1],
    }
    assert second["dz"] == 1 and [t["task"] for t in second["tasks"]] == ["0 right"]


def test_traces_without_maeil_fields_have_no_lanes_and_replay_as_before(maeil_run, toy, tmp_path):
    old = Path(shutil.copytree(DATA / "old-run", tmp_path / "old-run"))
    assert "lanes" not in episode_payload(load_run(old)) and episode_lanes(_lines(old)) is None
    stripped = Path(shutil.copytree(maeil_run, tmp_path / "stripped"))
    lines = [{k: v for k, v in r.items() if k not in MAEIL_FIELDS} for r in _lines(maeil_run)]
    (stripped / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    with_lanes, without = episode_payload(load_run(maeil_run), 0, toy), episode_payload(load_run(stripped), 0, toy)
    assert "lanes" not in without
    assert {k: v for k, v in with_lanes.items() if k not in ("lanes", "title")} == {
        k: v for k, v in without.items() if k != "title"
    }


def test_the_export_carries_the_lanes(maeil_run, toy, tmp_path):
    page = export_html(load_run(maeil_run), tmp_path / "replay.html", 0, toy).read_text()
    assert (
        '"lanes": {"seats": ["0", "1", "2"]' in page and 'id="lane-cognition"' in page and "function drawLanes" in page
    )


def _lane_event(browser, kind: str, lane: str, column: int, row: int) -> None:
    """A mouse event at the centre of a lane's cell (column = frame index, row = seat or constraint)."""
    browser.execute_script(
        """const [kind, id, column, row] = arguments, mark = document.getElementById(id + "-mark");
        const r = mark.getBoundingClientRect(), g = window.replay.lanes;
        const x = r.left + g.label + (column + 0.5) * g.cell, y = r.top + g.top + (row + 0.5) * g.row;
        mark.dispatchEvent(new MouseEvent(kind, { clientX: x, clientY: y, bubbles: true }));""",
        kind,
        lane,
        column,
        row,
    )


def test_the_lanes_in_the_browser_jump_on_click_and_explain_on_hover(browser, maeil_run, toy, tmp_path):
    browser.get_log("browser")  # drop what earlier pages logged
    with WebServer(replay_routes(load_run(maeil_run), 0, toy), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        assert browser.find_element("id", "lanes").is_displayed()
        width, geometry = browser.execute_script(
            "return [document.getElementById('lane-cognition').width, window.replay.lanes]"
        )
        assert width == geometry["label"] + HORIZON * geometry["cell"] + 2, "one column a step"
        _lane_event(browser, "click", "lane-constraints", 7, 0)
        assert browser.execute_script("return window.replay.index") == 7 and browser.find_element(
            "id", "step"
        ).text.startswith("step 7")
        _lane_event(browser, "mousemove", "lane-cognition", 0, 0)
        tip = browser.find_element("id", "lane-tip")
        assert tip.is_displayed() and "step 0 · player 0" in tip.text and "plan push" in tip.text
        _lane_event(browser, "mousemove", "lane-actions", 3, 1)
        assert "step 3 · player 1" in tip.text and "action " in tip.text
        browser.find_element("id", "fwd").click()
        assert browser.execute_script("return window.replay.index") == 8
        browser.save_screenshot(str(tmp_path / "lanes.png"))
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    with WebServer(
        replay_routes(load_run(Path(shutil.copytree(DATA / "old-run", tmp_path / "old-run")))), PAGE, 0
    ) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        assert not browser.find_element("id", "lanes").is_displayed(), "an old trace has no lanes"
        browser.find_element("id", "last").click()
        assert browser.find_element("id", "step").text == "step 20 / 20 (end)"
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
