"""A tiny local web server for the replay and human-play pages: standard library only.

Pages are static files shipped in ``proagent/web/static/``; the game talks to them through a few
small JSON endpoints. The server binds to 127.0.0.1 only (a game of a person with an agent is not
a service), serves each request in its own thread, and runs itself in a daemon thread so the
caller keeps the main thread for its own loop and Ctrl+C.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

STATIC_DIR = Path(__file__).resolve().parent / "static"
HOST = "127.0.0.1"
MAX_BODY = 1 << 16
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".png": "image/png"}


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"


def json_response(data: object, status: int = 200) -> Response:
    return Response(status, json.dumps(data, default=str).encode("utf-8"))


def error(status: int, message: str) -> Response:
    return json_response({"error": message}, status)


# A handler gets the query parameters and the parsed JSON body (None for GET).
Handler = Callable[[dict[str, str], dict | None], Response]


def static_file(name: str) -> Response:
    """A file of ``static/`` by bare name (no sub-paths: nothing outside the folder is reachable)."""
    path = STATIC_DIR / name
    if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
        return error(404, f"no such file: {name}")
    return Response(200, path.read_bytes(), _TYPES.get(path.suffix, "application/octet-stream"))


class WebServer:
    """Routes ``(method, path)`` to handlers; ``/`` serves ``index`` and ``/static/<f>`` the files."""

    def __init__(self, routes: Mapping[tuple[str, str], Handler], index: str, port: int = 0) -> None:
        self.routes = dict(routes)
        self.index = index
        self.httpd = ThreadingHTTPServer((HOST, port), _make_handler(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.httpd.server_address[1]}/"

    def dispatch(self, method: str, raw_path: str, body: bytes | None) -> Response:
        parts = urlsplit(raw_path)
        if method == "GET" and parts.path in ("/", "/index.html"):
            return static_file(self.index)
        if method == "GET" and parts.path.startswith("/static/"):
            return static_file(parts.path.removeprefix("/static/"))
        handler = self.routes.get((method, parts.path))
        if handler is None:
            return error(404, f"no route {method} {parts.path}")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        payload = None
        if body:
            try:
                payload = json.loads(body)
            except json.JSONDecodeError:
                return error(400, "the body is not JSON")
            if not isinstance(payload, dict):
                return error(400, "the body must be a JSON object")
        return handler(query, payload)

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="proagent-web", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _make_handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer(server.dispatch("GET", self.path, None))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._answer(error(413, "body too large"))
                return
            self._answer(server.dispatch("POST", self.path, self.rfile.read(length) if length else None))

        def _answer(self, response: Response) -> None:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(response.body)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the page polls ten times a second, which would flood the terminal."""

    return _Handler
