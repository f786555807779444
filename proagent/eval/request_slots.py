"""One cap on LLM requests in flight for a whole Ray cluster (`--llm-concurrency` with `--executor ray`).

A local run caps its requests with one ``asyncio.Semaphore``. On Ray the episodes play in several
worker processes, and a cap split between them (each worker a share) wastes the shares of idle
workers and cannot hold an odd cap over an even number of workers. So the run starts one
``RequestSlots`` actor that owns the cap, and every worker's models take a slot from it for each
request (one round trip to the actor, small beside an LLM call).

A worker that dies while it holds slots must not take them to its grave: each worker process
registers itself (its index and a fresh generation) when it starts, and a restarted worker's
registration frees everything its earlier process held or was still waiting for. A request whose
episode is cancelled while it waits for a slot gives the slot back as soon as it gets one.

Ray is imported only when a cluster run uses this.
"""

from __future__ import annotations

import asyncio
import uuid
from contextvars import ContextVar
from types import TracebackType
from typing import Any


class RequestSlots:
    """A Ray actor (async): ``capacity`` slots shared by every worker of one run."""

    def __init__(self, capacity: int) -> None:
        self._semaphore = asyncio.Semaphore(capacity)
        self._generation: dict[int, str] = {}  # worker index -> its live process's generation
        self._held: dict[str, tuple[int, str]] = {}  # token -> (worker, generation)
        self._abandoned: set[str] = set()  # released before they were granted

    def register(self, worker: int, generation: str) -> None:
        """A worker process starts (again): free what any earlier process of that worker held."""
        self._generation[worker] = generation
        for token, (held_by, held_generation) in list(self._held.items()):
            if held_by == worker and held_generation != generation:
                self.release(token)

    async def acquire(self, worker: int, generation: str, token: str) -> bool:
        """Wait for a slot; False when it was given back at once (its request was abandoned, or
        its process has been replaced)."""
        await self._semaphore.acquire()
        if token in self._abandoned or self._generation.get(worker) != generation:
            self._abandoned.discard(token)
            self._semaphore.release()
            return False
        self._held[token] = (worker, generation)
        return True

    def release(self, token: str) -> None:
        """Give ``token``'s slot back (or, if it is still waiting, give it back when granted)."""
        if self._held.pop(token, None) is not None:
            self._semaphore.release()
        else:
            self._abandoned.add(token)


class ClusterSlot:
    """The worker side: ``async with slot:`` around one request, like an ``asyncio.Semaphore``."""

    def __init__(self, actor: Any, worker: int) -> None:
        self._actor = actor
        self._worker = worker
        self.generation = uuid.uuid4().hex  # this process's; a restarted worker gets a new one

    async def __aenter__(self) -> None:
        token = uuid.uuid4().hex
        try:
            granted = await self._actor.acquire.remote(self._worker, self.generation, token)
        except BaseException:
            self._actor.release.remote(token)  # cancelled while waiting: the slot goes back when granted
            raise
        if not granted:  # only a replaced process's requests are refused, and this one is alive
            raise RuntimeError(f"worker {self._worker}'s process was replaced while it was still playing")
        _HELD_TOKEN.set(token)

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._actor.release.remote(_HELD_TOKEN.get())


# The slot a request holds: enter and exit of one `async with` run in the same task, hence the same
# context, while other tasks' requests interleave between them (one request takes one slot at a time).
_HELD_TOKEN: ContextVar[str] = ContextVar("held_request_slot")
