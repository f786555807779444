"""One cap on LLM requests in flight per model endpoint for a whole Ray cluster, shared by every
run that uses that endpoint (`--llm-concurrency` with `--executor ray`).

A provider limits a key's requests to a model, whoever sends them. So the cap belongs to the
endpoint (the model and its API base), not to a run or a worker: a cap split between workers
wastes the shares of idle ones and cannot hold an odd cap over an even number of workers, and a
cap per run lets two runs against one key send twice what either asked. Each endpoint gets one
named, detached ``RequestSlots`` actor on the cluster; every run that uses the endpoint joins it
with the cap it asks, the strictest cap of the runs joined holds, and every worker's model takes
a slot from it for each request (one round trip to the actor, small beside an LLM call).

What must not leak slots:
- a worker process that dies while it holds slots: each worker process registers itself (its id
  and a fresh generation) when it sets a grid up, and a restarted worker's registration frees
  what its earlier process held or was still waiting for;
- a request whose episode is cancelled while it waits: its slot goes back as soon as it is given;
- a driver that dies: its run holds a lease the driver renews every second; a run not renewed
  for ``LEASE_S`` is dropped (its cap no longer holds, its slots are freed). A run that was
  dropped while alive (its driver stalled) joins again with its next request.

Ray is imported only when a cluster run uses this.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from proagent.eval.models import Endpoint

LEASE_S = 60.0  # a run whose driver has not renewed its lease for this long is dropped
SWEEP_S = 5.0  # how often a waiting request looks for dropped runs even if nothing else happens
PROTOCOL = "1"  # in the actor's name: a cluster still running an older actor is not reused
NAMESPACE = "proagent"  # Ray's namespace of the named actors, the same for every driver
MAX_CALLS_IN_ACTOR = 1_000_000  # waiting acquires must never keep a release out


def actor_name(endpoint: Endpoint) -> str:
    """The cluster-wide name of ``endpoint``'s actor: a digest, so that an API base that carries
    a credential never shows in Ray's actor listing or logs."""
    digest = hashlib.sha256(f"{PROTOCOL}\0{endpoint[0]}\0{endpoint[1] or ''}".encode()).hexdigest()[:24]
    return f"proagent-requests-{digest}"


@dataclass
class _Waiter:
    token: str
    run: str
    worker: str
    generation: str
    granted: asyncio.Future[str]  # "" when granted, else why not


class RequestSlots:
    """A Ray actor (async): the slots of one endpoint, shared by every run and worker using it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._runs: dict[str, tuple[int, float]] = {}  # run -> (the cap it asked, when its lease runs out)
        self._generation: dict[str, str] = {}  # worker -> its live process's generation
        self._held: dict[str, tuple[str, str, str]] = {}  # token -> (run, worker, generation)
        self._queue: deque[_Waiter] = deque()
        self._abandoned: set[str] = set()  # released before their acquire arrived

    @property
    def capacity(self) -> int:
        """The strictest cap of the runs joined (0 when none is)."""
        return min((cap for cap, _ in self._runs.values()), default=0)

    def state(self) -> dict[str, int]:
        """What the cap is and how it is used, for tests and for a user's `ray` inspection."""
        return {
            "capacity": self.capacity,
            "held": len(self._held),
            "waiting": len(self._queue),
            "runs": len(self._runs),
        }

    def join(self, run: str, cap: int) -> int:
        """``run`` uses this endpoint with ``cap`` requests at most; returns the cap in force."""
        self._sweep()
        self._runs[run] = (cap, self._clock() + LEASE_S)
        self._grant()
        return self.capacity

    def renew(self, run: str) -> None:
        """``run``'s driver is alive: keep its lease."""
        if run in self._runs:
            self._runs[run] = (self._runs[run][0], self._clock() + LEASE_S)
        self._sweep()
        self._grant()

    def leave(self, run: str) -> None:
        """``run`` is over: its cap no longer holds, and anything it still holds or waits for goes."""
        self._drop(run)
        self._grant()

    def register(self, worker: str, generation: str) -> None:
        """A worker process sets a grid up: free what any earlier process of that worker held."""
        self._generation[worker] = generation
        for token, (_, held_by, held_generation) in list(self._held.items()):
            if held_by == worker and held_generation != generation:
                del self._held[token]
        self._sweep()
        self._grant()

    async def acquire(self, run: str, cap: int, worker: str, generation: str, token: str) -> str:
        """Wait for a slot: "" once granted, else why the request may not go (it was abandoned,
        or its process has been replaced)."""
        self._sweep()
        if token in self._abandoned:
            self._abandoned.discard(token)
            return "the request was abandoned"
        if run not in self._runs:  # dropped while its driver stalled, or its first request
            self.join(run, cap)
        waiter = _Waiter(token, run, worker, generation, asyncio.get_running_loop().create_future())
        self._queue.append(waiter)
        self._grant()
        while not waiter.granted.done():
            await asyncio.wait({waiter.granted}, timeout=SWEEP_S)
            self._sweep()
            self._grant()
        return waiter.granted.result()

    def release(self, token: str) -> None:
        """Give ``token``'s slot back (or, if it is still waiting, withdraw it)."""
        if self._held.pop(token, None) is None:
            waiting = [w for w in self._queue if w.token == token]
            if waiting:
                self._refuse(waiting[0], "the request was abandoned")
            else:
                self._abandoned.add(token)
        self._grant()

    def _grant(self) -> None:
        """Slots to the longest-waiting requests, while the cap allows."""
        while self._queue and len(self._held) < self.capacity:
            waiter = self._queue.popleft()
            if waiter.granted.done():
                continue
            if waiter.run not in self._runs:
                waiter.granted.set_result("its run has left this endpoint")
            elif self._generation.get(waiter.worker, waiter.generation) != waiter.generation:
                waiter.granted.set_result(f"worker {waiter.worker}'s process was replaced")
            else:
                self._held[waiter.token] = (waiter.run, waiter.worker, waiter.generation)
                waiter.granted.set_result("")

    def _refuse(self, waiter: _Waiter, why: str) -> None:
        self._queue.remove(waiter)
        if not waiter.granted.done():
            waiter.granted.set_result(why)

    def _drop(self, run: str) -> None:
        self._runs.pop(run, None)
        for token, (held_run, _, _) in list(self._held.items()):
            if held_run == run:
                del self._held[token]
        for waiter in [w for w in self._queue if w.run == run]:
            self._refuse(waiter, "its run has left this endpoint")

    def _sweep(self) -> None:
        """Drop the runs whose drivers stopped renewing (killed: their workers went with them)."""
        now = self._clock()
        for run in [run for run, (_, deadline) in self._runs.items() if deadline < now]:
            self._drop(run)


def endpoint_slots(endpoint: Endpoint) -> Any:
    """``endpoint``'s actor on the cluster this process has joined: the running one, or a new one
    (detached, so it outlives the driver that made it while other runs use it; no CPU)."""
    import ray

    options = {"name": actor_name(endpoint), "namespace": NAMESPACE, "lifetime": "detached", "get_if_exists": True}
    return ray.remote(RequestSlots).options(**options, num_cpus=0, max_concurrency=MAX_CALLS_IN_ACTOR).remote()


class ClusterSlot:
    """The worker side: ``async with slot:`` around one request to one endpoint, like an
    ``asyncio.Semaphore``. ``run`` and ``cap`` go with each request, so that a run the actor
    dropped while it was alive joins again."""

    def __init__(self, actor: Any, run: str, cap: int, worker: str, generation: str) -> None:
        self._actor = actor
        self._run = run
        self._cap = cap
        self._worker = worker
        self._generation = generation

    async def __aenter__(self) -> None:
        token = uuid.uuid4().hex
        try:
            refused = await self._actor.acquire.remote(self._run, self._cap, self._worker, self._generation, token)
        except BaseException:
            self._actor.release.remote(token)  # cancelled while waiting: the slot goes back when granted
            raise
        if refused:  # only a replaced process's or a finished run's requests are refused
            raise RuntimeError(f"the LLM request cap refused a request: {refused}")
        _HELD_TOKEN.set(token)

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._actor.release.remote(_HELD_TOKEN.get())


# The slot a request holds: enter and exit of one `async with` run in the same task, hence the same
# context, while other tasks' requests interleave between them (one request takes one slot at a time).
_HELD_TOKEN: ContextVar[str] = ContextVar("held_request_slot")
