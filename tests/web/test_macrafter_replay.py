"""The replay page draws MA-Crafter episodes: a run folder whose trace lines carry MA-Crafter's frame
extras (a tree cut, a share, a two-agent craft) builds a payload with the map every step, each
agent's bag and the capability changes dZ in the third lane; the server sends the world's script,
the export inlines it, the script parses, and a headless Chromium draws the map, the agents' cards
and one ΔZ row per agent (skipped without Chromium, as the other browser tests)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request
from itertools import pairwise
from pathlib import Path

import pytest
from macrafter_views import HORIZON, episode

from envs.macrafter import make
from envs.macrafter.events import CrafterEvent, CrafterEventKind
from envs.macrafter.rules import ACTION_NAMES
from proagent.domains.macrafter.rendering import RENDERING, capability_changes
from proagent.domains.macrafter.web import SCRIPT, end, frame, replay_drawing, scene
from proagent.web.replay_data import episode_payload, load_run
from proagent.web.replay_lanes import episode_lanes
from proagent.web.replay_page import DOMAIN_SCRIPT, PAGE, export_html, replay_routes
from proagent.web.server import WebServer
from tests.support.http_calls import wait_for

ACTIONS = [["do", "noop", "noop"], ["share_1_wood", "noop", "noop"], ["make_wood_pickaxe"] * 2 + ["noop"], ["noop"] * 3]


def _events(step: int) -> list[dict]:
    kinds = {
        0: [CrafterEvent(0, 0, CrafterEventKind.COLLECT, (2, 5), (2, 4), "wood", 1, participants=(0,))],
        1: [CrafterEvent(1, 0, CrafterEventKind.SHARE, (2, 5), None, "wood", 1, other=1)],
        2: [
            CrafterEvent(2, seat, CrafterEventKind.CRAFT, (2 + seat, 5), None, "wood_pickaxe", 1, participants=(0, 1))
            for seat in (0, 1)
        ],
        3: [CrafterEvent(3, 2, CrafterEventKind.DOWN, (8, 7))],
    }
    return [e.to_record() for e in kinds[step]]


@pytest.fixture(scope="module")
def crafter_run(tmp_path_factory) -> Path:
    """A four-step MA-Crafter run folder written from hand-built views through the world's Rendering."""
    folder = tmp_path_factory.mktemp("macrafter-runs") / "20260101-000000-play-easy_2a-scripted"
    folder.mkdir()
    config = {"domain": "macrafter", "layout": "easy_2a", "partner": "scripted", "seat": 0, "horizon": HORIZON}
    (folder / "config.json").write_text(json.dumps(config))
    world, views, lines = make("easy_2a", HORIZON), episode(), []
    for step, (before, after) in enumerate(pairwise(views)):
        collect = {"task": "collect tree", "counts": {"spatial": 1, "temporal": 1, "participation": 3}, "outcome": "ok",
                   "satisfied": ["spatial", "temporal", "participation", "dependency"], "violated": [], "delta_z": 1}  # fmt: skip
        lines.append({
            "episode": 0, "step": step, "seat": 0, "state": RENDERING.text(before), "actions": ACTIONS[step],
            "events": _events(step), "reward": after.score - before.score, "score": after.score, "skill": "collect(tree)",
            "constraints": [collect] if step == 0 else [],
            **RENDERING.frame_extras(world, before, after, after.done),
        })  # fmt: skip
    (folder / "trace.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def test_the_payload_has_the_world_the_map_every_step_each_bag_and_the_end(crafter_run):
    payload = episode_payload(load_run(crafter_run), 0, replay_drawing())
    assert payload["domain"] == "macrafter" and payload["layout"] == "easy_2a"
    world = payload["world"]
    assert (world["width"], world["height"], world["horizon"]) == (12, 9, HORIZON) and world["materials"][3] == "tree"
    frames, views = payload["frames"], episode()
    assert len(frames) == len(views) and frames[-1]["final"] and frames[-1]["step"] == 4
    assert [f["macrafter"]["step"] for f in frames] == list(range(len(views)))
    assert all(f["macrafter"]["grid"] == [list(r) for r in views[0].grid] for f in frames), "the map every step"
    assert [f["macrafter"]["agents"][1]["inventory"]["wood"] for f in frames] == [0, 0, 1, 0, 0]
    assert frames[2]["changes"] == {"0": {"wood_pickaxe": 1}, "1": {"wood": -1, "wood_pickaxe": 1}}
    assert frames[-1]["changes"] == {} and not frames[-1]["macrafter"]["agents"][2]["alive"]


def test_the_third_lane_has_each_agents_capability_changes(crafter_run):
    payload = episode_payload(load_run(crafter_run), 0, replay_drawing())
    lanes, views = payload["lanes"], episode()
    assert lanes["capability"] is True and lanes["seats"] == ["0", "1", "2"]
    assert [s["changes"] for s in lanes["steps"]] == [capability_changes(a, b) for a, b in pairwise(views)]
    assert lanes["steps"][0]["dz"] == 1 and lanes["steps"][0]["constraints"]["dependency"] == [1, 0]


def test_capability_changes_without_constraints_make_lanes_and_bad_entries_are_dropped():
    lines = [
        {"step": 0, "actions": ["a", "b"], "capability_changes": {"0": {"wood": 2, "stone": 0}, "1": "junk"}},
        {"step": 1, "actions": ["a", "b"], "capability_changes": {"1": {"wood": True, "coal": -1, "iron": 1.5}}},
        {"step": 2, "actions": ["a", "b"]},
    ]
    lanes = episode_lanes(lines)
    assert lanes["capability"] is True and [s["changes"] for s in lanes["steps"]] == [
        {"0": {"wood": 2}},
        {"1": {"coal": -1}},
        {},
    ]
    from_records = {
        "step": 0,
        "constraints": [
            {"capability_changes": {"0": {"wood": 1}}},
            {"capability_changes": {"0": {"wood": 1}, "1": {"coal": 1}}},
        ],
    }
    assert episode_lanes([from_records])["steps"][0]["changes"] == {"0": {"wood": 2}, "1": {"coal": 1}}
    assert "capability" not in episode_lanes([{"step": 0, "constraints": [{"outcome": "ok"}]}])
    assert episode_lanes([{"step": 0, "actions": ["a"]}]) is None


def test_the_replay_reads_the_trace_without_jax(crafter_run):
    code = (
        "import sys; from proagent.web.replay_data import load_run, episode_payload; "
        "from proagent.domains.macrafter.web import replay_drawing; "
        f"episode_payload(load_run({str(crafter_run)!r}), 0, replay_drawing()); assert 'jax' not in sys.modules, 'jax imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2], timeout=120)


def test_the_decoder_copes_with_lines_without_layout_record_or_final():
    state = {"step": 0, "horizon": 9, "width": 10, "height": 11, "agents": [], "grid": []}
    assert scene({"macrafter": state}) == {"world": {"width": 10, "height": 11, "horizon": 9}}
    assert scene({"step": 0}) == {"world": {"width": None, "height": None, "horizon": None}}
    assert frame({"step": 3}) == {"macrafter": None, "changes": {}}
    assert frame({"step": 3, "capability_changes": ["x"]})["changes"] == {}
    assert end({"step": 8, "final": {"state": "ascii only"}}) is None
    assert end({"step": 8, "final": {"macrafter": state}}).step == 0


def _get(url: str, path: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url.rstrip("/") + path, timeout=10) as response:
        return response.headers["Content-Type"], response.read()


def test_the_server_sends_macrafter_js_and_the_export_inlines_it(crafter_run, tmp_path):
    run = load_run(crafter_run)
    with WebServer(replay_routes(run, 0, replay_drawing()), PAGE, 0) as server:
        kind, body = _get(server.url, DOMAIN_SCRIPT)
        assert kind.startswith("text/javascript") and body == SCRIPT.read_bytes()
        _, api = _get(server.url, "/api/replay?episode=0")
        assert json.loads(api)["domain"] == "macrafter"
    exported = export_html(run, tmp_path / "macrafter.html", 0, replay_drawing()).read_text(encoding="utf-8")
    assert "const ReplayDomain" in exported and "const HumanDomain" in exported and "<script src" not in exported


def test_macrafter_js_parses_and_never_writes_html():
    source = SCRIPT.read_text(encoding="utf-8")
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source, "texts are drawn on the canvas only"
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    subprocess.run([node, "--check", str(SCRIPT)], check=True, timeout=60)
    keys = f"{SCRIPT.read_text()};\nprocess.stdout.write(JSON.stringify(HumanDomain.keys));"
    bound = json.loads(
        subprocess.run([node, "-e", keys], check=True, timeout=60, capture_output=True, text=True).stdout
    )
    assert set(bound.values()) <= set(ACTION_NAMES) and bound[" "] == "do", (
        "the human page's keys are MA-Crafter actions"
    )


def _lane_event(browser, kind: str, lane: str, column: int, row: int) -> None:
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


def test_a_macrafter_run_plays_in_the_browser(browser, crafter_run):
    browser.get_log("browser")  # drop what earlier pages logged
    with WebServer(replay_routes(load_run(crafter_run), 0, replay_drawing()), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        text = lambda element: browser.find_element("id", element).text
        width, height = browser.execute_script("const c = document.getElementById('scene'); return [c.width, c.height]")
        assert width > 12 * 8 and height > 9 * 8, "the map with the agents' cards beside it"
        colours = browser.execute_script(
            "const c = document.getElementById('scene'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "const seen = new Set(); for (let i = 0; i < d.length; i += 16) seen.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]);"
            "return seen.size;"
        )
        assert colours > 12, "tiles, agents and cards are drawn"
        assert text("step") == f"step 0 / {HORIZON}" and "facing up at tree" in text("players")
        timeline = text("timeline")
        assert (
            "collected wood" in timeline
            and "gave 1 wood to player 1" in timeline
            and "crafted wood pickaxe with player 1" in timeline
        )
        rows = browser.execute_script("const c = document.getElementById('lane-constraints'); return c.height")
        geometry = browser.execute_script("return window.replay.lanes")
        assert rows == 2 * geometry["top"] + (4 + 3) * geometry["row"], "four constraints, then a ΔZ row per agent"
        pixel = """const [column, row, dy] = arguments, g = window.replay.lanes, c = document.getElementById('lane-constraints');
            const d = c.getContext('2d').getImageData(g.label + (column + 0.5) * g.cell, g.top + (row + 0.5) * g.row + dy, 1, 1).data;
            return [d[0], d[1], d[2]];"""
        green, red = [58, 165, 93], [214, 69, 65]
        assert browser.execute_script(pixel, 0, 4, -2) == green, "step 0: player 0 gained wood (above the axis)"
        assert browser.execute_script(pixel, 1, 4, 2) == red and browser.execute_script(pixel, 1, 5, -2) == green
        assert browser.execute_script(pixel, 0, 5, -2) != green, "player 1 gained nothing in step 0"
        _lane_event(browser, "mousemove", "lane-constraints", 2, 5)
        tip = browser.find_element("id", "lane-tip")
        assert tip.is_displayed() and "player 1" in tip.text and "−1 wood, +1 wood pickaxe" in tip.text
        browser.find_element("id", "fwd").click()
        browser.find_element("id", "fwd").click()
        assert "holds wood 1; ΔZ −1 wood, +1 wood pickaxe" in text("players"), "player 1's bag, then what the step did"
        browser.find_element("id", "last").click()
        assert text("step") == f"step 4 / {HORIZON} (end)" and "down, at (8, 7)" in text("players")
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
