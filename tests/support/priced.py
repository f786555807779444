"""Priced LLM doubles, also for runs whose episodes play in other processes (`--executor ray`).

A Ray worker builds its models from the run's config, in its own process, so a double there must
be importable by name: ``keyed_model``, ``killing_model``, ``counting_model`` and
``head_only_model`` are ``--llm python:tests.support.priced:<factory>`` factories. Each answers like the Overcooked loopback
responder (from the request's grounding) at a price, so episodes score, spend and replay
identically in any process.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

from proagent.llm.types import Completion, Grounding, LLMConfigError, Message, Model, StructuredOutput
from tests.support.responders.overcooked import overcooked_answer
from tests.support.scripted import Responder, ScriptedCall, ScriptedModel

KEY_VARIABLE = "PROAGENT_RAYTEST_API_KEY"  # a credential the keyed double needs from its environment
PRICE_USD = 0.01  # every answer's cost, for the factories' doubles


def respond(call: ScriptedCall) -> str:
    return overcooked_answer(call.grounding)


class PricedModel:
    """A ScriptedModel whose every answer costs ``price`` dollars, like a hosted API."""

    def __init__(self, price: float, name: str = "priced", responder: Responder = respond) -> None:
        self._inner = ScriptedModel(respond=responder, name=name)
        self.price = price

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def calls(self) -> int:
        return len(self._inner.calls)

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        done = await self._inner.generate(
            messages,
            structured=structured,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            grounding=grounding,
        )
        return done.model_copy(update={"cost_usd": self.price})


def keyed_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double, refusing (as a provider would) when ``KEY_VARIABLE`` is not in its environment."""
    if not os.environ.get(KEY_VARIABLE):
        raise LLMConfigError(f"{KEY_VARIABLE} is not set in this process's environment")
    return PricedModel(PRICE_USD)


def killing_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double whose first answer of the whole run kills its own process, as a crashed
    node would; ``api_base``: the folder of the marker file that says it happened (a file, so the
    restarted process and every other worker see it)."""
    if api_base is None:
        raise LLMConfigError("killing_model needs --api-base: a folder for its marker file")
    marker = Path(api_base) / "killed"

    def kill_once(call: ScriptedCall) -> str:
        if not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return respond(call)

    return PricedModel(PRICE_USD, responder=kill_once)


def counting_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double that notes, in the folder ``api_base`` all processes share, how many
    requests were in flight over the whole run each time one started (one line per request in
    ``counts``). Each answer takes 0.05 s, long enough for another worker's request to overlap it."""
    if api_base is None:
        raise LLMConfigError("counting_model needs --api-base: a folder all workers share")
    in_flight, counts = Path(api_base) / "in_flight", Path(api_base) / "counts"
    in_flight.mkdir(exist_ok=True)

    def count(call: ScriptedCall) -> str:
        mine = in_flight / uuid.uuid4().hex
        mine.touch()
        try:
            with counts.open("a") as out:  # one short append per request: never interleaved
                out.write(f"{len(list(in_flight.iterdir()))}\n")
            time.sleep(0.05)
            return respond(call)
        finally:
            mine.unlink()

    return PricedModel(PRICE_USD, responder=count)


def head_only_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double that loads only in the process whose pid is ``api_base``, as a model whose
    weights only the head node has: every other process fails to load it."""
    if api_base is None or int(api_base) != os.getpid():
        raise LLMConfigError("cannot load the model: its weights are not on this machine")
    return PricedModel(PRICE_USD)


def pid_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double that notes, in the folder ``api_base`` all processes share, the process
    that made each request (one pid per line in ``pids``): which processes played a run."""
    if api_base is None:
        raise LLMConfigError("pid_model needs --api-base: a folder all workers share")
    pids = Path(api_base) / "pids"

    def note(call: ScriptedCall) -> str:
        with pids.open("a") as out:  # one short append per request: never interleaved
            out.write(f"{os.getpid()}\n")
        return respond(call)

    return PricedModel(PRICE_USD, responder=note)


def slow_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double taking 0.3 s per answer, as a hosted model does: episodes long enough to
    be seen while they play."""

    def wait(call: ScriptedCall) -> str:
        time.sleep(0.3)
        return respond(call)

    return PricedModel(PRICE_USD, responder=wait)
