"""`WirePool`: the HTTP transport of the direct route, one aiohttp keep-alive session per event loop.

Why it exists: through litellm and the OpenAI SDK one request to a local server costs 5-7 ms of
CPU (request transformation, cost lookups, logging payloads, response models), more than ten times
the agent's own work in a decision, so one process cannot feed a fast local server. This module
only moves bytes with aiohttp: one POST of a JSON body, the response read whole as received (no
redirects followed, nothing decompressed, no cookies kept), the connection kept for the next
request of the same event loop. Whatever the bytes mean is still decided by litellm (see
`proagent.llm.direct`): this module never interprets an answer.

An aiohttp session belongs to the event loop it was made on, so there is one per loop. It is
closed by `WirePool.aclose` or when its loop shuts down (``asyncio.run`` finalizes the loop's
async generators; a small one per session closes it then), so none is left open at exit.

A request that fails before any byte of the response came back on a connection that had been
idle in the pool is sent once more: the server closed the idle connection and never saw the
request (aiohttp itself resends only idempotent requests, and a POST is not one). Any other
failure is raised as `WireError` (``sent`` says whether the server may have received the request).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from types import SimpleNamespace
from urllib.parse import urlsplit

import aiohttp
from yarl import URL

__all__ = ["WireError", "WirePool", "WireResponse"]

# Headers aiohttp would add by itself: the request carries only Host, Content-Length and the caller's.
_NO_AUTO_HEADERS = ("User-Agent", "Accept", "Accept-Encoding", "Content-Type")


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


@dataclass
class _LoopSession:
    """A loop's session and the async generator that closes it when the loop shuts down."""

    session: aiohttp.ClientSession
    keeper: AsyncGenerator[None, None]


async def _closing_at_shutdown(session: aiohttp.ClientSession) -> AsyncGenerator[None, None]:
    """Suspended at its ``yield`` from the first request on; the loop's ``shutdown_asyncgens`` (or
    `WirePool.aclose`) finalizes it, which closes the session on its own loop."""
    try:
        yield
    finally:
        await session.close()


async def _mark_reused(_session: object, context: SimpleNamespace, _params: object) -> None:
    context.trace_request_ctx.reused = True


class _StaleConnection(Exception):
    """A pooled connection the server had closed: the request can go again on another one."""


class WirePool:
    """Requests to the server of ``base_url`` (http only), one aiohttp session per event loop."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"the wire client speaks plain http to a host, not {parts.scheme!r}")
        self.host_header = parts.netloc
        self._base = base_url.rstrip("/")
        self._urls: dict[str, URL] = {}
        self._sessions: dict[asyncio.AbstractEventLoop, _LoopSession] = {}
        self._trace = aiohttp.TraceConfig()
        self._trace.on_connection_reuseconn.append(_mark_reused)  # tells a pooled connection from a new one

    async def post(self, path: str, body: bytes, headers: dict[str, str], timeout_s: float) -> WireResponse:
        """POST ``body`` to ``path`` under the base URL; the whole response, or `WireError`."""
        session = await self._session()
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = URL(self._base + path, encoded=True)
        # per phase, as httpx does: connecting, then each read of the answer
        timeout = aiohttp.ClientTimeout(total=None, connect=timeout_s, sock_read=timeout_s)
        try:
            return await self._exchange(session, url, body, headers, timeout)
        except _StaleConnection:
            pass  # the server had closed it while idle: it never saw the request
        try:
            return await self._exchange(session, url, body, headers, timeout)
        except _StaleConnection as exc:
            raise WireError("the server closed the connection without answering", timeout=False, sent=True) from exc

    async def aclose(self) -> None:
        """Close the running loop's session (a loop's shutdown also closes it)."""
        entry = self._sessions.pop(asyncio.get_running_loop(), None)
        if entry is not None:
            await entry.keeper.aclose()

    async def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        entry = self._sessions.get(loop)
        if entry is not None and not entry.session.closed:
            return entry.session
        for gone in [other for other in self._sessions if other.is_closed()]:
            del self._sessions[gone]
        session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),  # no queueing: a connection per request in flight
            cookie_jar=aiohttp.DummyCookieJar(),
            skip_auto_headers=_NO_AUTO_HEADERS,
            auto_decompress=False,
            trace_configs=[self._trace],
        )
        keeper = _closing_at_shutdown(session)
        await keeper.__anext__()  # now known to the loop, which finalizes it at shutdown
        self._sessions[loop] = _LoopSession(session, keeper)
        return session

    async def _exchange(
        self,
        session: aiohttp.ClientSession,
        url: URL,
        body: bytes,
        headers: dict[str, str],
        timeout: aiohttp.ClientTimeout,
    ) -> WireResponse:
        """One request; aiohttp keeps the connection for the next one when the server does."""
        attempt = SimpleNamespace(reused=False)
        try:
            response = await session.post(
                url, data=body, headers=headers, timeout=timeout, allow_redirects=False, trace_request_ctx=attempt
            )
        except aiohttp.ConnectionTimeoutError as exc:
            raise WireError(f"connecting to {self.host_header} timed out", timeout=True, sent=False) from exc
        except aiohttp.ClientConnectorError as exc:
            raise WireError(f"cannot connect to {self.host_header}: {exc}", timeout=False, sent=False) from exc
        except TimeoutError as exc:
            raise self._late(timeout) from exc
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            if attempt.reused:
                raise _StaleConnection from exc
            raise WireError("the server closed the connection without answering", timeout=False, sent=True) from exc
        except aiohttp.ClientError as exc:
            raise self._broken(exc) from exc
        try:
            data = await response.read()  # the connection goes back to the pool once read
        except TimeoutError as exc:
            response.close()
            raise self._late(timeout) from exc
        except aiohttp.ClientError as exc:
            response.close()
            raise self._broken(exc) from exc
        fields = tuple(
            (name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in response.raw_headers
        )
        return WireResponse(response.status, fields, data)

    def _late(self, timeout: aiohttp.ClientTimeout) -> WireError:
        return WireError(f"no answer from {self.host_header} within {timeout.sock_read:g} s", timeout=True, sent=True)

    def _broken(self, exc: Exception) -> WireError:
        return WireError(f"the connection to {self.host_header} broke: {exc!r}", timeout=False, sent=True)
