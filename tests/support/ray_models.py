"""LLM doubles for runs whose episodes play in other processes (`--executor ray`).

A Ray worker builds its models from the run's config, in its own process, so a double there must
be importable by name: these are ``--llm python:tests.support.ray_models:<factory>`` factories.
Each answers like the Overcooked loopback responder (from the request's grounding) at a price,
so episodes score, spend and replay identically in any process.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from proagent.llm.types import Completion, Grounding, LLMConfigError, Message, Model, StructuredOutput
from tests.support.responders.overcooked import overcooked_answer
from tests.support.scripted import ScriptedModel, answering

KEY_VARIABLE = "PROAGENT_RAYTEST_API_KEY"  # a credential the keyed double needs from its environment
PRICE_USD = 0.01  # every answer's cost


class PricedModel:
    """The Overcooked responder at ``PRICE_USD`` an answer; with ``kill_marker``, the first answer
    of the whole run (across processes: the marker is a file) kills its own process instead."""

    def __init__(self, kill_marker: Path | None = None) -> None:
        self._inner = ScriptedModel(respond=answering(overcooked_answer), name="priced-double")
        self._kill_marker = kill_marker

    @property
    def name(self) -> str:
        return self._inner.name

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
        if self._kill_marker is not None and not self._kill_marker.exists():
            self._kill_marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)  # a worker lost mid-episode, as a crashed node would
        done = await self._inner.generate(
            messages, structured=structured, max_tokens=max_tokens, temperature=temperature, seed=seed, grounding=grounding
        )
        return done.model_copy(update={"cost_usd": PRICE_USD})


def keyed_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double, refusing (as a provider would) when ``KEY_VARIABLE`` is not in its environment."""
    if not os.environ.get(KEY_VARIABLE):
        raise LLMConfigError(f"{KEY_VARIABLE} is not set in this process's environment")
    return PricedModel()


def killing_model(api_base: str | None, timeout_s: float) -> Model:
    """The priced double whose first answer kills its process; ``api_base``: the folder of the
    marker file that says the kill happened (a test's tmp folder)."""
    if api_base is None:
        raise LLMConfigError("killing_model needs --api-base: a folder for its marker file")
    return PricedModel(kill_marker=Path(api_base) / "killed")
