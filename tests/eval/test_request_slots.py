"""The request cap of one model endpoint (proagent.eval.request_slots.RequestSlots), driven as a
plain object in one event loop, the way Ray's async actor runs it: the strictest cap of the runs
that use the endpoint holds over all of them, a run that leaves or whose driver dies frees what
it held, a replaced worker process frees its slots, and a cancelled request gives its slot back.
The actor on a real cluster, shared by two runs at once, is tested in test_ray_executor.py."""

from __future__ import annotations

import asyncio

import pytest

from proagent.eval.config import AgentSpec, EvalConfig
from proagent.eval.models import ModelPool, semaphore_per_endpoint
from proagent.eval.ray_executor import played_endpoints
from proagent.eval.request_slots import LEASE_S, RequestSlots, actor_name
from proagent.llm.types import Completion
from tests.support.scripted import ScriptedModel


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def granted(task: asyncio.Task[str]) -> bool:
    """Whether ``task``'s acquire has been answered (after letting the loop run)."""
    for _ in range(3):
        await asyncio.sleep(0)
    return task.done()


def acquire(slots: RequestSlots, run: str, cap: int, token: str, worker: str = "w", generation: str = "g") -> asyncio.Task[str]:
    return asyncio.create_task(slots.acquire(run, cap, f"{run}/{worker}", generation, token))


def test_the_strictest_cap_of_the_runs_using_an_endpoint_holds_over_all_of_them():
    async def scenario() -> None:
        slots = RequestSlots(Clock())
        assert slots.join("a", 3) == 3
        assert slots.join("b", 2) == 2  # b asks less: both runs are held to it
        first, second, third = acquire(slots, "a", 3, "t1"), acquire(slots, "b", 2, "t2"), acquire(slots, "a", 3, "t3")
        assert await granted(first) and await granted(second) and not await granted(third)
        assert (first.result(), second.result()) == ("", "")
        slots.release("t2")
        assert await granted(third) and third.result() == ""
        slots.leave("b")  # b is over: a's own cap holds again
        fourth = acquire(slots, "a", 3, "t4")
        assert await granted(fourth) and slots.state() == {"capacity": 3, "held": 3, "waiting": 0, "runs": 1}

    asyncio.run(scenario())


def test_slots_are_granted_in_the_order_they_were_asked():
    async def scenario() -> None:
        slots = RequestSlots(Clock())
        slots.join("a", 1)
        holder = acquire(slots, "a", 1, "t0")
        assert await granted(holder)
        waiting = [acquire(slots, "a", 1, f"t{i}") for i in range(1, 4)]
        await granted(waiting[0])
        order = []
        for _ in waiting:
            slots.release(f"t{len(order)}")
            for task in waiting:
                if await granted(task) and task not in order:
                    order.append(task)
        assert order == waiting

    asyncio.run(scenario())


def test_a_run_whose_driver_stopped_renewing_is_dropped_with_its_slots():
    async def scenario() -> None:
        clock = Clock()
        slots = RequestSlots(clock)
        slots.join("dead", 1)
        slots.join("alive", 2)
        held = acquire(slots, "dead", 1, "t1")
        assert await granted(held)
        waiting = acquire(slots, "alive", 2, "t2")
        assert not await granted(waiting)  # the dead run's cap of 1 holds, and it holds the slot
        clock.now += LEASE_S / 2
        slots.renew("alive")
        assert not await granted(waiting)
        clock.now += LEASE_S / 2 + 1  # "dead" renewed nothing for longer than its lease
        slots.renew("alive")
        assert await granted(waiting) and waiting.result() == ""
        assert slots.state()["capacity"] == 2 and slots.state()["runs"] == 1

    asyncio.run(scenario())


def test_a_run_dropped_while_alive_joins_again_with_its_next_request():
    async def scenario() -> None:
        clock = Clock()
        slots = RequestSlots(clock)
        slots.join("stalled", 4)
        clock.now += LEASE_S + 1
        task = acquire(slots, "stalled", 4, "t1")
        assert await granted(task) and task.result() == ""
        assert slots.state()["capacity"] == 4

    asyncio.run(scenario())


def test_a_replaced_worker_process_frees_what_its_earlier_process_held():
    async def scenario() -> None:
        slots = RequestSlots(Clock())
        slots.join("a", 1)
        slots.register("a/w", "old")
        held = acquire(slots, "a", 1, "t1", generation="old")
        assert await granted(held)
        queued_by_the_old_process = acquire(slots, "a", 1, "t2", generation="old")
        assert not await granted(queued_by_the_old_process)
        slots.register("a/w", "new")  # Ray restarted the worker: its old process's slot is free
        assert await granted(queued_by_the_old_process)
        assert "replaced" in queued_by_the_old_process.result()
        fresh = acquire(slots, "a", 1, "t3", generation="new")
        assert await granted(fresh) and fresh.result() == ""

    asyncio.run(scenario())


def test_a_request_withdrawn_while_it_waits_never_takes_a_slot():
    async def scenario() -> None:
        slots = RequestSlots(Clock())
        slots.join("a", 1)
        assert await granted(acquire(slots, "a", 1, "t1"))
        withdrawn, next_one = acquire(slots, "a", 1, "t2"), acquire(slots, "a", 1, "t3")
        assert not await granted(withdrawn)
        slots.release("t2")  # its episode was cancelled
        assert await granted(withdrawn) and withdrawn.result() == "the request was abandoned"
        slots.release("t1")
        assert await granted(next_one) and next_one.result() == ""
        slots.release("early")  # a release that overtook its acquire: the acquire is refused
        late = acquire(slots, "a", 1, "early")
        assert await granted(late) and late.result() == "the request was abandoned"
        assert slots.state() == {"capacity": 1, "held": 1, "waiting": 0, "runs": 1}

    asyncio.run(scenario())


def test_a_leaving_run_refuses_its_waiting_requests_and_frees_its_slots():
    async def scenario() -> None:
        slots = RequestSlots(Clock())
        slots.join("a", 1)
        assert await granted(acquire(slots, "a", 1, "t1"))
        waiting = acquire(slots, "a", 1, "t2")
        assert not await granted(waiting)
        slots.leave("a")
        assert await granted(waiting) and "left" in waiting.result()
        assert slots.state() == {"capacity": 0, "held": 0, "waiting": 0, "runs": 0}

    asyncio.run(scenario())


def test_the_actor_name_never_shows_the_endpoint():
    secret_base = "https://user:sk-secret-123@api.example.com/v1"
    name = actor_name(("openai/gpt-4o", secret_base))
    assert "secret" not in name and "example" not in name
    assert name != actor_name(("openai/gpt-4o", None)) != actor_name(("openai/gpt-4o-mini", secret_base))


class OverlapModel:
    """Answers "ok" after 10 ms, counting the requests in flight to any of its kind."""

    in_flight = 0
    peak = 0

    def __init__(self) -> None:
        self._inner = ScriptedModel(respond=lambda call: "ok")
        self.name = "overlap"

    async def generate(self, messages: list, **settings: object) -> Completion:
        OverlapModel.in_flight += 1
        OverlapModel.peak = max(OverlapModel.peak, OverlapModel.in_flight)
        try:
            await asyncio.sleep(0.01)
            return await self._inner.generate(messages)
        finally:
            OverlapModel.in_flight -= 1


@pytest.mark.parametrize("same_endpoint", [True, False])
def test_a_local_run_caps_each_endpoint_on_its_own(same_endpoint, monkeypatch):
    """Two agents on one endpoint share its cap; on two endpoints, each has its own."""
    monkeypatch.setattr(OverlapModel, "peak", 0)
    pool = ModelPool(lambda spec: OverlapModel(), None, semaphore_per_endpoint(1))
    first = AgentSpec(llm="python:x:first", api_base="http://a")
    second = AgentSpec(llm="python:x:first", api_base="http://a" if same_endpoint else "http://b")

    async def scenario() -> None:
        await asyncio.gather(*(pool.get(spec).generate([]) for spec in (first, second) for _ in range(3)))

    asyncio.run(scenario())
    assert OverlapModel.peak == (1 if same_endpoint else 2)


def test_the_cluster_shares_the_endpoints_a_grid_plays_but_not_the_embedded_model():
    """Each Ray worker runs its own embedded model, so that one keeps a cap per process."""
    config = EvalConfig.model_validate({
        "agents": [{"llm": "embedded"}, {"label": "hosted", "llm": "openai/gpt-4o-mini"}, {"label": "other", "llm": "x/y"}],
        "partners": ["greedy"], "layouts": ["cramped_room"],
    })  # fmt: skip
    assert played_endpoints(config) == [("openai/gpt-4o-mini", None), ("x/y", None)]
    by_name = config.model_copy(update={"agents": [config.agents[0]], "partners": ["proagent"]})
    assert played_endpoints(by_name) == []  # the default proagent partner is the embedded model
