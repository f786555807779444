"""The wire client reads every framing a server may use and survives a server closing idle
connections, without ever sending a request twice to a server that may have run it."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import Awaitable, Callable

import pytest

from proagent.llm.wire import WireError, WirePool, WireResponse

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _request(reader: asyncio.StreamReader) -> bytes:
    """One request's body (the test server's side)."""
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return await reader.readexactly(length)


async def _with_server(handler: Handler, client: Callable[[str], Awaitable[object]]) -> object:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await client(f"http://127.0.0.1:{port}/v1")
    finally:
        server.close()


def test_chunked_and_close_delimited_answers_are_read_whole() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await _request(reader) == b"chunked":  # the connection stays open for the next request
            writer.write(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=1\r\n world\r\n0\r\n\r\n"
            )
        writer.write(b"HTTP/1.0 503 Busy\r\nRetry-After: 2\r\n\r\nno length")
        writer.close()

    async def client(url: str) -> tuple[WireResponse, WireResponse]:
        pool = WirePool(url)
        first = await pool.post("/chat/completions", b"chunked", {}, 5)
        return first, await pool.post("/chat/completions", b"plain", {}, 5)

    chunked, plain = asyncio.run(_with_server(handler, client))
    assert (chunked.status, chunked.body) == (200, b"hello world")
    assert (plain.status, plain.body, dict(plain.headers)["retry-after"]) == (503, b"no length", "2")


def test_a_pooled_connection_the_server_closed_is_replaced_once() -> None:
    served: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.append(await _request(reader))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()  # keep-alive announced, yet the server closes once idle

    async def client(url: str) -> list[bytes]:
        pool = WirePool(url)
        answers = [await pool.post("/x", b"one", {}, 5)]
        await asyncio.sleep(0.05)
        answers.append(await pool.post("/x", b"two", {}, 5))
        return [a.body for a in answers]

    assert asyncio.run(_with_server(handler, client)) == [b"ok", b"ok"]
    assert served == [b"one", b"two"]  # each request reached the server once


def test_no_answer_in_time_is_a_timeout_after_sending() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        await asyncio.sleep(1)

    async def client(url: str) -> WireError:
        with pytest.raises(WireError) as info:
            await WirePool(url).post("/x", b"{}", {}, 0.2)
        return info.value

    error = asyncio.run(_with_server(handler, client))
    assert error.timeout and error.sent


def test_no_server_is_a_failure_before_sending() -> None:
    async def client() -> WireError:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        with pytest.raises(WireError) as info:
            await WirePool(f"http://127.0.0.1:{port}").post("/x", b"{}", {}, 2)
        return info.value

    error = asyncio.run(client())
    assert not error.timeout and not error.sent


def test_only_plain_http_is_spoken() -> None:
    with pytest.raises(ValueError):
        WirePool("https://example.org/v1")


def test_a_request_a_pooled_connection_drops_unanswered_goes_once_more() -> None:
    served: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = not served
        served.append(await _request(reader))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        if first:  # the next request on this connection is read, then dropped unanswered
            served.append(await _request(reader))
        writer.close()

    async def client(url: str) -> list[bytes]:
        pool = WirePool(url)
        answers = [await pool.post("/x", b"one", {}, 5), await pool.post("/x", b"two", {}, 5)]
        return [a.body for a in answers]

    assert asyncio.run(_with_server(handler, client)) == [b"ok", b"ok"]
    assert served == [b"one", b"two", b"two"]


def test_a_new_connection_closed_unanswered_is_not_sent_again() -> None:
    served: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.append(await _request(reader))
        writer.close()

    async def client(url: str) -> WireError:
        with pytest.raises(WireError) as info:
            await WirePool(url).post("/x", b"{}", {}, 5)
        return info.value

    error = asyncio.run(_with_server(handler, client))
    assert not error.timeout and error.sent
    assert served == [b"{}"]


def test_sessions_are_closed_with_their_loop_or_on_request() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await _request(reader):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    pools: list[WirePool] = []

    async def client(url: str) -> None:
        kept, closed = WirePool(url), WirePool(url)
        pools.extend([kept, closed])
        await kept.post("/x", b"a", {}, 5)
        await closed.post("/x", b"b", {}, 5)
        await closed.aclose()
        await closed.post("/x", b"c", {}, 5)  # a new session after an explicit close

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(_with_server(handler, client))
        asyncio.run(_with_server(handler, client))  # another loop: other sessions
        pools.clear()
        gc.collect()
    assert not [
        w for w in caught if "nclosed client session" in str(w.message) or "nclosed connector" in str(w.message)
    ]
