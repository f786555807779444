"""The replay page draws CUBE episodes: a real run folder (`proagent play --domain cube` with
ProAgent on a scripted model, easy_2a, 20 steps: one delivery and some failed pushes) builds its
payload and page, the server sends CUBE's drawing script, the script parses, and a headless
Chromium draws it without errors (skipped without Chromium, as the other browser tests)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from proagent.domains import replay_drawing_for
from proagent.domains.cube.web import SCRIPT, frame, replay_drawing, scene
from proagent.web.replay_data import episode_payload, load_run
from proagent.web.replay_page import DOMAIN_SCRIPT, PAGE, export_html, replay_routes
from proagent.web.server import WebServer
from tests.support.http_calls import wait_for

HORIZON = 20
LAYOUT = "easy_2a"


@pytest.fixture(scope="module")
def cube_run(tmp_path_factory) -> Path:
    from proagent.cli import main
    from tests.support.fake_server import FakeChatServer
    from tests.support.loopback import loopback_args
    from tests.support.responders.cube import cube_answer

    root = tmp_path_factory.mktemp("cube-runs")
    with FakeChatServer(delay_s=0.0, responder=cube_answer) as server:
        argv = ["play", "--domain", "cube", "--layout", LAYOUT, "--partner", "pusher", "--horizon", str(HORIZON)]
        llm = [*loopback_args(server.url), "--runs-dir", str(root)]
        assert main([*argv, *llm, "--live", "off", "--no-gif"]) == 0
    (run,) = root.glob(f"*-play-{LAYOUT}-pusher")
    return run


def _get(url: str, path: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url.rstrip("/") + path, timeout=10) as response:
        return response.headers["Content-Type"], response.read()


def test_cube_is_a_builtin_drawing():
    drawing = replay_drawing_for("cube")
    assert drawing.domain == "cube" and drawing.script == SCRIPT == replay_drawing().script and SCRIPT.is_file()


def test_the_payload_of_a_cube_run_has_the_board_every_step_and_the_end(cube_run):
    payload = episode_payload(load_run(cube_run))
    assert payload["domain"] == "cube" and payload["layout"] == LAYOUT, "the board does not hide the layout's name"
    board = payload["board"]
    assert board["goal_column"] == board["grid_size"] - 1 and board["horizon"] == HORIZON and "step_cost" in board
    frames = payload["frames"]
    assert len(frames) == HORIZON + 1 and frames[-1]["final"] and frames[-1]["step"] == HORIZON
    assert [f["cube"]["step"] for f in frames] == list(range(HORIZON + 1))
    assert len(payload["names"]) == len(frames[0]["cube"]["agents"]) == len(frames[0]["actions"])
    blocks = frames[0]["cube"]["blocks"]
    assert blocks and set(blocks[0]) == {"index", "position", "weight", "delivered"}
    assert any(b["delivered"] for b in frames[-1]["cube"]["blocks"]) and payload["metrics"]["blocks_delivered"] >= 1
    kinds = {e["kind"] for f in frames for e in f["events"]}
    assert {"deliver", "push_failed"} <= kinds, "the run has what the page marks: a delivery and a failed push"
    assert any(f["cube"]["pushes"] for f in frames), "the records carry the pushes of the step that led to them"
    assert "lanes" in payload, "CUBE traces carry cooperation constraints: the three-lane timeline is drawn"


def test_the_decoder_copes_with_lines_without_layout_or_cube():
    cube = {"step": 0, "horizon": 9, "grid_size": 6, "agents": [[0, 0]], "blocks": [], "pushes": []}
    assert scene({"cube": cube}) == {"board": {"grid_size": 6, "goal_column": 5, "horizon": 9}}
    assert scene({"step": 0}) == {"board": {"grid_size": None, "goal_column": None, "horizon": None}}
    assert frame({"step": 3}) == {"cube": None}
    assert replay_drawing().end({"step": 8, "final": {"state": "ascii only"}}) is None


def test_the_replay_reads_the_trace_without_jax(cube_run):
    code = (
        "import sys; from proagent.web.replay_data import load_run, episode_payload; "
        f"episode_payload(load_run({str(cube_run)!r})); assert 'jax' not in sys.modules, 'jax imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2], timeout=120)


def test_the_server_sends_the_page_the_payload_and_cube_js(cube_run, tmp_path):
    run = load_run(cube_run)
    with WebServer(replay_routes(run), PAGE, 0) as server:
        kind, body = _get(server.url, DOMAIN_SCRIPT)
        assert kind.startswith("text/javascript") and body == SCRIPT.read_bytes()
        _, api = _get(server.url, "/api/replay?episode=0")
        assert json.loads(api)["domain"] == "cube"
        _, page = _get(server.url, "/")
        assert f'<script src="{DOMAIN_SCRIPT}"></script>'.encode() in page
    exported = export_html(run, tmp_path / "cube.html").read_text(encoding="utf-8")
    assert "const ReplayDomain" in exported and "const Cube" in exported and "<script src" not in exported


def test_cube_js_parses():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    subprocess.run([node, "--check", str(SCRIPT)], check=True, timeout=60)


def test_a_cube_run_plays_in_the_browser(browser, cube_run):
    browser.get_log("browser")  # drop what earlier pages logged
    with WebServer(replay_routes(load_run(cube_run)), PAGE, 0) as server:
        browser.get(server.url)
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready"))
        text = lambda element: browser.find_element("id", element).text
        grid = browser.execute_script("return window.replay.data.board.grid_size")
        size = browser.execute_script("const c = document.getElementById('scene'); return [c.width, c.height]")
        assert size[0] % grid == 0 and size[1] > size[0], "a square grid with the caption under it"
        colours = browser.execute_script(
            "const c = document.getElementById('scene'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "const seen = new Set(); for (let i = 0; i < d.length; i += 64) seen.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]);"
            "return seen.size;"
        )
        assert colours > 5, "the canvas is drawn"
        assert (
            text("step") == f"step 0 / {HORIZON}"
            and "player 0 proagent: skill" in text("players")
            and "at (" in text("players")
        )
        assert "delivered block" in text("timeline") and "failed to push block" in text("timeline")
        classes = browser.execute_script(
            "return [...document.getElementById('timeline').children].map((el) => [el.textContent, el.className]);"
        )
        assert {c for t, c in classes if "failed to push" in t} == {"reject"}, "a failed push is not drawn as success"
        assert {c for t, c in classes if "delivered block" in t} == {"ok"}
        push = browser.execute_script(
            "return window.replay.data.frames.findIndex((f) => f.events.some((e) => e.kind === 'push_failed'))"
        )
        browser.execute_script(f"document.getElementById('scrub').value = {push};"
                               "document.getElementById('scrub').dispatchEvent(new Event('input'))")  # fmt: skip
        assert "pushing block" in text("players")
        browser.find_element("id", "last").click()
        assert text("step") == f"step {HORIZON} / {HORIZON} (end)" and "blocks delivered" in text("metrics")
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
