"""The same-origin guard seen from a real browser (headless Chromium): a page of another origin
open in the same browser cannot press the person's keys. Skipped when Chromium is not installed."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from web_helpers import human_args

from proagent.web.human_session import build_human_session

EVIL_PAGE = b"<!doctype html><title>another site</title><p>nothing to see"

# Every way a page may POST across origins: the "simple" ones need no preflight (text/plain with
# no-cors, a form), the JSON one needs a preflight, which the server never answers.
ATTACK = """
const [url, done] = arguments;
const body = JSON.stringify({action: "up"});
const tries = [
  fetch(url + "api/action", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body}),
  fetch(url + "api/action", {method: "POST", mode: "no-cors", body: new URLSearchParams({action: "up"})}),
  fetch(url + "api/action", {method: "POST", headers: {"Content-Type": "application/json"}, body}),
  fetch(url + "api/start", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: "{}"}),
];
Promise.allSettled(tries).then((r) => done(r.map((x) => x.status)));
"""


class _EvilPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(EVIL_PAGE)))
        self.end_headers()
        self.wfile.write(EVIL_PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_page_of_another_origin_cannot_press_keys(browser, cramped_env, tmp_path):
    session = build_human_session(human_args(tmp_path, "--mode", "turns", "--no-questionnaire"), cramped_env)
    evil = ThreadingHTTPServer(("127.0.0.1", 0), _EvilPage)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        with session.serve(0) as server:
            browser.get(f"http://127.0.0.1:{evil.server_address[1]}/")
            browser.set_script_timeout(10)
            outcomes = browser.execute_async_script(ATTACK, server.url)
            assert len(outcomes) == 4
            assert session.game.keys.presses == 0 and session.game.status == "ready"
            browser.get(server.url)  # the page itself, same origin, still works
            browser.set_script_timeout(10)
            status = browser.execute_async_script(
                "fetch('/api/action', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({action: 'up'})})"
                ".then((r) => arguments[0](r.status))"
            )
            assert status == 200 and session.game.keys.presses == 1
    finally:
        evil.shutdown()
        evil.server_close()
