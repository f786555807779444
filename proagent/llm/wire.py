"""`WirePool`: a small HTTP/1.1 keep-alive client for one OpenAI-compatible server (stdlib only).

Why it exists: through litellm and the OpenAI SDK one request to a local server costs 5-7 ms of
CPU (request transformation, cost lookups, logging payloads, response models), more than ten times
the agent's own work in a decision, so one process cannot feed a fast local server. This client
only moves bytes: one POST of a JSON body, one response read whole (Content-Length or chunked),
the connection kept for the next request of the same event loop. Whatever the bytes mean is still
decided by litellm (see `proagent.llm.direct`): this module never interprets an answer.

A request that fails before any byte of the response came back on a connection that had been
idle in the pool is sent once more on a fresh connection: the server closed the idle connection
and never saw the request (what every keep-alive client does). Any other failure is raised as
`WireError` (``sent`` says whether the server may have received the request).
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["WireError", "WirePool", "WireResponse"]

_MAX_HEADER_LINES = 200
_IDLE_PER_LOOP = 64  # idle connections kept per event loop: one per request in flight is enough


@dataclass(frozen=True)
class WireResponse:
    """The response as received: status, headers in order (names lower-cased), the whole body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


class WireError(Exception):
    """A request that got no complete response; ``timeout`` for a read or connect past the limit,
    ``sent`` when the request may have reached the server (resending could run it twice)."""

    def __init__(self, message: str, *, timeout: bool, sent: bool) -> None:
        super().__init__(message)
        self.timeout = timeout
        self.sent = sent


class _Connection:
    """One open connection; ``reused`` once it has served a request.

    It keeps the transport, not an `asyncio.StreamWriter`: a writer still open when its loop has
    gone (a pooled connection at the end of ``asyncio.run``) reports itself from ``__del__`` even
    at interpreter exit, when that report fails; a request is small enough to write without
    waiting for the socket to drain.
    """

    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.Transport) -> None:
        self.reader = reader
        self.transport = transport
        self.reused = False

    @classmethod
    async def open(cls, host: str, port: int) -> _Connection:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(loop=loop)
        transport, _ = await loop.create_connection(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), host, port)
        return cls(reader, transport)

    def close(self) -> None:
        self.transport.close()


class WirePool:
    """Connections to the server of ``base_url`` (http only), pooled per event loop."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"the wire client speaks plain http to a host, not {parts.scheme!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.path = parts.path.rstrip("/")
        netloc = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = f"{netloc}:{self.port}" if parts.port else netloc
        self._idle: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[_Connection]] = (
            weakref.WeakKeyDictionary()
        )

    async def post(self, path: str, body: bytes, headers: dict[str, str], timeout_s: float) -> WireResponse:
        """POST ``body`` to ``path`` under the base URL; the whole response, or `WireError`."""
        head = self._head(path, body, headers)
        connection = self._take()
        if connection is not None:
            try:
                return await self._exchange(connection, head, body, timeout_s)
            except _StaleConnection:
                pass  # the server had closed it while idle: it never saw the request
        try:
            async with asyncio.timeout(timeout_s):
                fresh = await _Connection.open(self.host, self.port)
        except TimeoutError as exc:
            raise WireError(f"connecting to {self.host_header} timed out", timeout=True, sent=False) from exc
        except OSError as exc:
            raise WireError(f"cannot connect to {self.host_header}: {exc}", timeout=False, sent=False) from exc
        try:
            return await self._exchange(fresh, head, body, timeout_s)
        except _StaleConnection as exc:
            raise WireError("the server closed the connection without answering", timeout=False, sent=True) from exc

    def _head(self, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        lines = [f"POST {self.path}{path} HTTP/1.1", f"Host: {self.host_header}", f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _take(self) -> _Connection | None:
        idle = self._idle.get(asyncio.get_running_loop())
        while idle:
            connection = idle.pop()
            if not connection.transport.is_closing() and not connection.reader.at_eof():
                return connection
            connection.close()
        return None

    def _give_back(self, connection: _Connection) -> None:
        idle = self._idle.setdefault(asyncio.get_running_loop(), [])
        if len(idle) < _IDLE_PER_LOOP:
            connection.reused = True
            idle.append(connection)
        else:
            connection.close()

    async def _exchange(self, connection: _Connection, head: bytes, body: bytes, timeout_s: float) -> WireResponse:
        """One request on ``connection``; it goes back to the pool when the server keeps it open."""
        try:
            connection.transport.write(head + body)
            async with asyncio.timeout(timeout_s):  # a timeout, not wait_for: no task per read
                status, headers, keep = await _read_head(connection.reader)
            async with asyncio.timeout(timeout_s):
                data, keep_body = await _read_body(connection.reader, headers)
            keep = keep and keep_body
        except _EmptyReply as exc:
            connection.close()
            if connection.reused:
                raise _StaleConnection from exc
            raise WireError("the server closed the connection without answering", timeout=False, sent=True) from exc
        except TimeoutError as exc:
            connection.close()
            raise WireError(
                f"no answer from {self.host_header} within {timeout_s:g} s", timeout=True, sent=True
            ) from exc
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            connection.close()
            raise WireError(f"the connection to {self.host_header} broke: {exc!r}", timeout=False, sent=True) from exc
        if keep:
            self._give_back(connection)
        else:
            connection.close()
        return WireResponse(status, headers, data)


class _EmptyReply(Exception):
    """The connection ended before the first byte of a response."""


class _StaleConnection(Exception):
    """A pooled connection the server had closed: the request can go again on a new one."""


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, tuple[tuple[str, str], ...], bool]:
    """Status, headers and whether the connection stays open after this response."""
    try:
        first = await reader.readline()
    except ConnectionError:  # reset before any answer: like a close, for a stale pooled connection
        first = b""
    if not first:
        raise _EmptyReply
    version, status, *_ = first.decode("latin-1").split(" ", 2)
    headers: list[tuple[str, str]] = []
    for _ in range(_MAX_HEADER_LINES):
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        headers.append((name.strip().lower(), value.strip()))
    else:
        raise ValueError("too many header lines")
    connection = {value.lower() for name, value in headers if name == "connection"}
    keep = "close" not in connection and (version != "HTTP/1.0" or "keep-alive" in connection)
    return int(status), tuple(headers), keep


async def _read_body(reader: asyncio.StreamReader, headers: tuple[tuple[str, str], ...]) -> tuple[bytes, bool]:
    """The whole body (by Content-Length, chunked, or else up to the end of the connection) and
    whether the connection can serve another request after it."""
    fields = dict(headers)
    if "chunked" in fields.get("transfer-encoding", "").lower():
        chunks: list[bytes] = []
        while True:
            size = int((await reader.readline()).split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks), True
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    if "content-length" in fields:
        return await reader.readexactly(int(fields["content-length"])), True
    return await reader.read(), False
