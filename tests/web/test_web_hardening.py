"""The local web servers refuse what a local page server must refuse, with an answer and fast.

Raw socket requests (not urllib, which would fix the headers for us) to a `proagent human` server
and to a bare WebServer on 127.0.0.1, port 0: other origins (a page open in the same browser),
other Host names (DNS rebinding), bodies that are not strict JSON objects of the endpoint's
schema, and Content-Length values that would block a thread or read past the body.
"""

from __future__ import annotations

import json
import socket
import time

import pytest
from web_helpers import human_args

from proagent.web.human_session import build_human_session
from proagent.web.server import MAX_BODY, WebServer, json_response

ANSWERS = {f"q{i}": 4 for i in range(1, 7)}


def _port(server: WebServer) -> int:
    return server.httpd.server_address[1]


def raw(server: WebServer, method: str, path: str, body: bytes | str = b"", *, host: str | None = None, headers: dict | None = None,
        length: str | None = None, timeout: float = 3.0) -> tuple[int | None, dict | None]:  # fmt: skip
    """One request on its own connection; (status, JSON answer). ``headers`` values of None are
    left out (Content-Type defaults to JSON); ``length`` replaces the true Content-Length."""
    data = body.encode() if isinstance(body, str) else body
    head = {"Host": host or f"127.0.0.1:{_port(server)}", "Connection": "close"}
    if method == "POST":
        head |= {"Content-Type": "application/json", "Content-Length": str(len(data)) if length is None else length}
    head |= headers or {}
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items() if v is not None)]
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=timeout) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    if not answer:
        return None, None
    header, _, payload = answer.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    return status, json.loads(payload) if payload else None


def _post(server: WebServer, path: str, body: object, **kwargs) -> tuple[int | None, dict | None]:
    return raw(server, "POST", path, json.dumps(body), **kwargs)


def _one_line_error(answer: dict | None) -> str:
    assert answer is not None and isinstance(answer.get("error"), str), answer
    message = answer["error"]
    assert "\n" not in message and "Traceback" not in message, message
    return message


@pytest.fixture()
def turns(tmp_path, cramped_env):
    """A turn-based game with no questionnaire, served; nothing moves until a key arrives."""
    session = build_human_session(human_args(tmp_path, "--mode", "turns", "--no-questionnaire"), cramped_env)
    with session.serve(0) as server:
        yield session, server


@pytest.fixture()
def over(tmp_path, cramped_env):
    """A fast real-time game, played to its end: the questionnaire is open."""
    session = build_human_session(human_args(tmp_path, "--fps", "60"), cramped_env)
    with session.serve(0) as server:
        assert _post(server, "/api/start", {})[0] == 200
        assert session.game.done.wait(10)
        yield session, server


def test_servers_bind_to_loopback_only(turns):
    _, server = turns
    assert server.httpd.server_address[0] == "127.0.0.1" and server.url.startswith("http://127.0.0.1:")
    with WebServer({}, "replay.html", 0) as bare:
        assert bare.httpd.server_address[0] == "127.0.0.1"


def test_cross_origin_posts_are_refused_and_press_nothing(turns):
    session, server = turns
    port = _port(server)
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": f"http://evil.example:{port}"},
        {"Origin": f"https://127.0.0.1:{port}"},
        {"Origin": "http://127.0.0.1:1"},
        {"Referer": "http://evil.example/page.html"},
    ):
        status, answer = _post(server, "/api/action", {"action": "up"}, headers=headers)
        assert status == 403, (headers, status)
        _one_line_error(answer)
    status, _ = _post(server, "/api/start", {}, headers={"Origin": "http://evil.example"})
    assert status == 403 and session.game.status == "ready"
    assert session.game.keys.presses == 0


@pytest.mark.parametrize(
    "content_type", ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", None]
)
def test_simple_request_content_types_without_origin_are_refused(turns, content_type):
    """A cross-site form or no-cors fetch can send these without a preflight (and may omit Origin)."""
    session, server = turns
    status, answer = _post(server, "/api/action", {"action": "up"}, headers={"Content-Type": content_type})
    assert status == 403
    _one_line_error(answer)
    assert session.game.keys.presses == 0


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "127.0.0.2:{port}", None])
def test_foreign_host_headers_are_refused(turns, host):
    """DNS rebinding: evil.example resolving to 127.0.0.1 reaches the port, but not with our Host."""
    session, server = turns
    port = _port(server)
    headers = {"Host": None} if host is None else {}
    status, answer = raw(server, "GET", "/api/info", host=(host or "").format(port=port) or None, headers=headers)
    assert status == 403, status
    assert "host" in _one_line_error(answer).lower()
    status, _ = _post(server, "/api/action", {"action": "up"}, host="evil.example")
    assert status == 403 and session.game.keys.presses == 0


def test_foreign_host_is_refused_by_every_server():
    """The replay server is the same WebServer: the guard is not a human-game route's business."""
    with WebServer(
        {("GET", "/api/replay"): lambda query, body: json_response({"ok": True})}, "replay.html", 0
    ) as server:
        port = _port(server)
        assert raw(server, "GET", "/api/replay", host="evil.example")[0] == 403
        assert raw(server, "GET", "/", host="evil.example")[0] == 403
        assert raw(server, "GET", "/api/replay")[0] == 200
        assert raw(server, "GET", "/api/replay", host=f"localhost:{port}")[0] == 200


def test_same_origin_json_posts_still_work(turns):
    session, server = turns
    port = _port(server)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        status, answer = _post(
            server, "/api/action", {"action": "left"}, host=host, headers={"Origin": f"http://{host}"}
        )
        assert (status, answer) == (200, {"ok": True}), host
    assert _post(server, "/api/action", {"action": "right"}, headers={"Referer": f"http://127.0.0.1:{port}/"})[0] == 200
    assert (
        _post(server, "/api/action", {"action": "down"}, headers={"Content-Type": "application/json; charset=utf-8"})[0]
        == 200
    )
    assert session.game.keys.presses == 5
    assert _post(server, "/api/start", {})[1] == {"started": True, "status": "running"}


@pytest.mark.parametrize(
    "body",
    [
        {"action": "UP"},
        {"action": "jump"},
        {"action": 0},
        {"action": ["up"]},
        {"action": "up", "extra": 1},
        {},
        [{"action": "up"}],
        "up",
        None,
    ],
)
def test_key_presses_are_the_allowed_names_only(turns, body):
    session, server = turns
    status, answer = _post(server, "/api/action", body)
    assert status == 400, (body, status)
    _one_line_error(answer)
    assert session.game.keys.presses == 0


@pytest.mark.parametrize(
    "answers",
    [
        {**ANSWERS, "q1": True},
        {**ANSWERS, "q1": 4.0},
        {**ANSWERS, "q1": "4"},
        {**ANSWERS, "q1": 0},
        {**ANSWERS, "q1": 6},
        {**ANSWERS, "q7": 3},
    ],
)
def test_likert_answers_are_strict_ints_in_the_scale(over, answers):
    """JSON true was saved as answer 1; nothing is written for a rejected submission."""
    session, server = over
    status, answer = _post(server, "/api/questionnaire", {"answers": answers, "comment": ""})
    assert status == 400, (answers, status)
    _one_line_error(answer)
    assert not (session.folder.path / "questionnaire.json").exists()


@pytest.mark.parametrize(
    "body",
    [
        {"answers": ANSWERS, "mood": "great"},
        {"answers": ANSWERS, "comment": 5},
        {"skipped": 1},
        {"skipped": "true"},
        {"skipped": True, "answers": ANSWERS},
    ],
)
def test_questionnaire_bodies_are_strict(over, body):
    session, server = over
    status, answer = _post(server, "/api/questionnaire", body)
    assert status == 400, (body, status)
    _one_line_error(answer)
    assert not (session.folder.path / "questionnaire.json").exists()


def test_a_valid_questionnaire_is_still_saved(over):
    session, server = over
    assert _post(server, "/api/questionnaire", {"answers": ANSWERS, "comment": "fine"})[0] == 200
    saved = json.loads((session.folder.path / "questionnaire.json").read_text())
    assert [a["value"] for a in saved["answers"]] == [4] * 6 and saved["comment"] == "fine"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b'{"action": "\xff\xfe"}', id="invalid-utf8"),
        pytest.param(b"[" * 10_000 + b"]" * 10_000, id="nested-10000"),
        pytest.param(b'{"a":' * 5_000 + b"1" + b"}" * 5_000, id="nested-objects"),
        pytest.param(b'{"action": ' + b"1" * 5_000 + b"}", id="5000-digit-int"),
        pytest.param(b'{"action": NaN}', id="nan"),
        pytest.param(b'{"action": "up", "action": "left"}', id="duplicate-key"),
        pytest.param(b'{"action": "up"', id="truncated"),
        pytest.param(b"", id="empty"),
    ],
)
def test_malformed_bodies_get_a_400_not_a_traceback(turns, body):
    session, server = turns
    status, answer = raw(server, "POST", "/api/action", body)
    assert status == 400, status
    message = _one_line_error(answer)
    assert "Recursion" not in message
    assert session.game.keys.presses == 0


@pytest.mark.parametrize("length", ["-1", "abc", "+5", "1_0", "0x10", " 1 2", str(10**9), "9" * 40, "0" * 30, "", None])
def test_bad_content_length_is_answered_at_once(turns, length):
    """Headers only, no body: the answer must come without waiting for bytes that never come."""
    session, server = turns
    started = time.monotonic()
    headers = {"Content-Length": None} if length is None else {}
    status, answer = raw(server, "POST", "/api/action", b"", length=length, headers=headers)
    assert status in (400, 411, 413), (length, status)
    _one_line_error(answer)
    assert time.monotonic() - started < 1.0
    assert session.game.keys.presses == 0


def test_bodies_over_the_bound_are_refused_unread(turns):
    session, server = turns
    status, _ = raw(server, "POST", "/api/action", b"", length=str(MAX_BODY + 1))
    assert status == 413 and session.game.keys.presses == 0


def test_a_body_shorter_than_its_length_times_out(turns):
    """Content-Length promises more than is sent: the handler's socket timeout answers 408."""
    session, server = turns
    server.request_timeout = 0.3
    started = time.monotonic()
    status, answer = raw(server, "POST", "/api/action", b'{"action"', length="100")
    assert status == 408 and time.monotonic() - started < 2.0
    _one_line_error(answer)
    assert session.game.keys.presses == 0


def test_chunked_bodies_are_refused(turns):
    session, server = turns
    body = b'11\r\n{"action": "up"}\r\n0\r\n\r\n'
    status, _ = raw(
        server, "POST", "/api/action", body, headers={"Transfer-Encoding": "chunked", "Content-Length": None}
    )
    assert status == 411 and session.game.keys.presses == 0


def test_an_unknown_key_name_is_refused_in_one_line(turns):
    session, server = turns
    status, answer = raw(server, "POST", "/api/action", b'{"action": "jump"}')
    assert status == 400 and "unknown action 'jump'" in _one_line_error(answer) and session.game.keys.presses == 0
    assert set(session.game.domain.action_names) == {"up", "down", "left", "right", "stay", "interact"}


def test_a_failing_handler_answers_500_in_one_line(capsys):
    def broken(query, body):
        raise KeyError("secret detail")

    with WebServer({("GET", "/api/broken"): broken, ("POST", "/api/broken"): broken}, "replay.html", 0) as server:
        status, answer = raw(server, "GET", "/api/broken")
        assert status == 500 and "secret" not in _one_line_error(answer)
        assert raw(server, "POST", "/api/broken", "{}")[0] == 500
        assert raw(server, "GET", "/api/nothing")[0] == 404, "the server still answers"
    assert "KeyError" in capsys.readouterr().err, "the traceback goes to the terminal"


def test_a_full_disk_under_a_request_is_one_line_on_the_page_and_the_terminal(capsys, caplog):
    import errno

    def saving(query, body):
        raise OSError(errno.ENOSPC, "No space left on device", "runs/x/episodes.jsonl")

    with WebServer({("POST", "/api/save"): saving}, "replay.html", 0) as server:
        status, answer = raw(server, "POST", "/api/save", "{}")
        line = _one_line_error(answer)
        assert status == 507 and "cannot write runs/x/episodes.jsonl: No space left on device" in line
    assert "Traceback" not in capsys.readouterr().err  # the machine's state, not a bug: no traceback
    assert [r.getMessage() for r in caplog.records if "No space left" in r.getMessage()] == [line]
