"""A tiny local web server for the replay and human-play pages: standard library only.

Pages are static files shipped in ``proagent/web/static/``; the game talks to them through a few
small JSON endpoints. The server binds to 127.0.0.1 only (a game of a person with an agent is not
a service), serves each request in its own thread, and runs itself in a daemon thread so the
caller keeps the main thread for its own loop and Ctrl+C.

Loopback is not a boundary against the browser the person has open: any page in it can send
requests to 127.0.0.1, and a name that resolves to 127.0.0.1 (DNS rebinding) can even read the
answers. So every request passes one `RequestGuard` before a route sees it: the Host header must
name this server (127.0.0.1, localhost or [::1] with its port); a POST must come from this origin
(Origin or Referer, when sent) and be ``application/json``, which a cross-site page cannot send
without a CORS preflight, and no preflight is ever answered; its Content-Length must be a plain
number within MAX_BODY, exactly that much is read (under a socket timeout), and the body must be
UTF-8 JSON, an object, at most MAX_DEPTH deep. Routes then validate the object with a strict
pydantic model (`parse_body`). Refusals are one-line JSON errors; no request leaves a thread
blocked or answers with a traceback.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ValidationError

from proagent.files import disk_problem, is_disk_error

STATIC_DIR = Path(__file__).resolve().parent / "static"
HOST = "127.0.0.1"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY = 1 << 16
MAX_DEPTH = 20  # nesting of a posted JSON body; ours need 2
REQUEST_TIMEOUT_S = 10.0  # a connection that sends nothing for this long is answered (408) or dropped
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
}
_SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Cross-Origin-Resource-Policy": "same-origin",
}

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"


def json_response(data: object, status: int = 200) -> Response:
    return Response(status, json.dumps(data, default=str).encode("utf-8"))


def error(status: int, message: str) -> Response:
    return json_response({"error": " ".join(message.split())}, status)


def _failure(exc: Exception) -> Response:
    """The answer to a request that failed inside: a disk that refuses a write (full, read-only) is
    one line on the terminal and on the page, since it is the machine's state, not a bug; anything
    else prints its traceback to the terminal and names only its kind to the page."""
    if is_disk_error(exc) or isinstance(exc, PermissionError):
        line = disk_problem(exc)
        _LOG.error("%s", line)
        return error(507, line)
    traceback.print_exception(exc, file=sys.stderr)
    return error(500, f"internal error: {type(exc).__name__}")


class HttpError(Exception):
    """A refusal with its status; the server answers it as a one-line JSON error."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status

    def response(self) -> Response:
        return error(self.status, str(self))


# A handler gets the query parameters and the parsed JSON body (None for GET).
Handler = Callable[[dict[str, str], dict | None], Response]
M = TypeVar("M", bound=BaseModel)


def validation_message(exc: ValidationError) -> str:
    """A pydantic error on one line: ``answers.q1: Input should be a valid integer; ...``."""
    parts = []
    for e in exc.errors(include_url=False):
        where = ".".join(str(p) for p in e["loc"]) or "body"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


def parse_body(model: type[M], body: dict | None) -> M:
    """The posted object as ``model`` (give it ``strict=True, extra="forbid"``); HttpError 400 if not."""
    try:
        return model.model_validate({} if body is None else body)
    except ValidationError as exc:
        raise HttpError(400, validation_message(exc)) from exc


def static_file(name: str) -> Response:
    """A file of ``static/`` by bare name (no sub-paths: nothing outside the folder is reachable)."""
    path = STATIC_DIR / name
    if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
        return error(404, f"no such file: {name}")
    return file_response(path)


def file_response(path: Path) -> Response:
    """A file the package ships, typed by its suffix: a static file, or an asset a route names
    itself (a domain's drawing script lives with its domain, outside ``static/``)."""
    return Response(200, path.read_bytes(), _TYPES.get(path.suffix, "application/octet-stream"))


# ---- the request guard ----

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_DIGITS = re.compile(r"[0-9]+")


def json_depth_exceeds(text: str, limit: int) -> bool:
    """Whether arrays/objects in ``text`` nest deeper than ``limit`` (brackets inside strings do not count)."""
    depth = 0
    for match in _BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > limit:
            return True
    return False


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate keys in an object")
    return result


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_json_body(raw: bytes) -> dict:
    """Strict JSON: UTF-8, an object, no NaN/Infinity or duplicate keys, at most MAX_DEPTH deep."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HttpError(400, f"the body is not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    if json_depth_exceeds(text, MAX_DEPTH):
        raise HttpError(400, f"the body nests deeper than {MAX_DEPTH} levels")
    try:
        payload = json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, our hooks, int() digit limits
        raise HttpError(400, f"the body is not JSON: {str(exc)[:200]}") from exc
    if not isinstance(payload, dict):
        raise HttpError(400, "the body must be a JSON object")
    return payload


class RequestGuard:
    """Same-origin and well-formedness checks shared by every handler of one server."""

    def __init__(self, host: str, port: int) -> None:
        names = {*LOOPBACK_NAMES, f"[{host}]" if ":" in host else host}
        self.hosts = frozenset(f"{n}:{port}" for n in names) | (frozenset(names) if port == 80 else frozenset())
        self.origins = frozenset(f"http://{h}" for h in self.hosts)

    def check_host(self, headers: Message) -> None:
        hosts = headers.get_all("Host") or []
        if len(hosts) != 1 or hosts[0].strip().lower() not in self.hosts:
            shown = ", ".join(hosts) or "none"
            raise HttpError(403, f"Host {shown[:100]} is not this server (use {min(self.hosts)})")

    def check_post(self, headers: Message) -> None:
        """Origin/Referer and Content-Type of a POST (before its body is read)."""
        origin, referer = headers.get("Origin"), headers.get("Referer")
        if origin is not None:
            if origin.strip().lower() not in self.origins:
                raise HttpError(403, f"cross-origin request refused (Origin {origin[:100]})")
        elif referer is not None:
            parts = urlsplit(referer.strip())
            if f"{parts.scheme.lower()}://{parts.netloc.lower()}" not in self.origins:
                raise HttpError(403, "cross-origin request refused (Referer of another site)")
        if headers.get_content_type() != "application/json":
            if origin is None and referer is None:
                raise HttpError(403, "a POST without Origin must be Content-Type: application/json")
            raise HttpError(415, "the body must be Content-Type: application/json")

    @staticmethod
    def content_length(headers: Message) -> int:
        if headers.get("Transfer-Encoding") is not None:
            raise HttpError(411, "send a Content-Length, not Transfer-Encoding")
        values = headers.get_all("Content-Length") or []
        if not values:
            raise HttpError(411, "a POST needs a Content-Length")
        if len(values) != 1 or not _DIGITS.fullmatch(values[0].strip()):
            raise HttpError(400, f"Content-Length must be one non-negative integer, got {', '.join(values)[:60]!r}")
        digits = values[0].strip().lstrip("0")
        length = int(digits or "0") if len(digits) <= 18 else MAX_BODY + 1
        if length > MAX_BODY:
            raise HttpError(413, f"body too large ({values[0].strip()[:30]} bytes; at most {MAX_BODY})")
        return length


class WebServer:
    """Routes ``(method, path)`` to handlers; ``/`` serves ``index`` and ``/static/<f>`` the files."""

    def __init__(self, routes: Mapping[tuple[str, str], Handler], index: str, port: int = 0, host: str = HOST) -> None:
        """``host`` other than 127.0.0.1 (a study whose participants sit at another machine) is the
        caller's choice to make the server reachable there; the guard then accepts that name too."""
        self.routes = dict(routes)
        self.index = index
        self.host = host
        self.request_timeout = REQUEST_TIMEOUT_S
        self.httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self.httpd.daemon_threads = True
        self.guard = RequestGuard(host, self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.httpd.server_address[1]}/"

    def dispatch(self, method: str, raw_path: str, body: dict | None) -> Response:
        parts = urlsplit(raw_path)
        if method == "GET" and parts.path in ("/", "/index.html"):
            return static_file(self.index)
        if method == "GET" and parts.path.startswith("/static/"):
            return static_file(parts.path.removeprefix("/static/"))
        handler = self.routes.get((method, parts.path))
        if handler is None:
            return error(404, f"no route {method} {parts.path}")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            return handler(query, body)
        except HttpError as exc:
            return exc.response()

    def start(self) -> WebServer:
        """Serve in a daemon thread; a second call (``with server.start():``) is a no-op: two loops on
        one socket would outlive ``close``, which stops only one of them."""
        if self._thread is not None:
            return self
        # serve_forever checks for shutdown once per poll; its default 0.5 s made every close wait that long.
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="proagent-web", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join()
        self.httpd.server_close()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _make_handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        @property
        def timeout(self) -> float:  # read by setup(): the socket timeout of this connection
            return server.request_timeout

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _serve(self, method: str) -> None:
            try:
                server.guard.check_host(self.headers)
                body = self._read_body() if method == "POST" else None
                if method != "POST" and (self.headers.get("Content-Length") or self.headers.get("Transfer-Encoding")):
                    self.close_connection = True  # an unread body must not be taken for the next request
                response = server.dispatch(method, self.path, body)
            except HttpError as exc:
                response = exc.response()
            except TimeoutError:
                response = error(408, f"the body did not arrive within {server.request_timeout:g} s")
            except Exception as exc:  # noqa: BLE001 - one line to the page, the traceback to the terminal
                response = _failure(exc)
            if response.status >= 400:
                self.close_connection = True
            try:
                self._answer(response)
            except OSError:  # the client went away (or timed out reading): nothing to answer to
                self.close_connection = True

        def _read_body(self) -> dict:
            server.guard.check_post(self.headers)
            length = RequestGuard.content_length(self.headers)
            raw = self.rfile.read(length) if length else b""
            if len(raw) != length:
                raise HttpError(400, f"the body ended after {len(raw)} of {length} bytes")
            return parse_json_body(raw)

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            """http.server's own refusals (bad request line, unsupported method) as JSON too."""
            self.close_connection = True
            try:
                self._answer(error(code, message or HTTPStatus(code).phrase))
            except OSError:
                pass

        def _answer(self, response: Response) -> None:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            for name, value in _SECURITY_HEADERS.items():
                self.send_header(name, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the page polls ten times a second, which would flood the terminal."""

    return _Handler
