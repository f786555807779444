"""`LoopbackModel`: the real litellm backend, with each request's grounding posted to the
`FakeChatServer` it talks to (the HTTP path stays the product's; only the answers are scripted).

``loopback_model`` is the factory the command line takes as ``--llm
python:tests.support.loopback:loopback_model --api-base <the server's url>``, so `proagent play`
and `proagent eval` runs go through litellm to a server whose responder answers from the
grounding: a world's scripted planner (`planner_of`, the product's one definition that ``--llm
scripted`` plays in process). It is for tests of the HTTP path (retries, timeouts, usage, the
cache); a run that only needs answers without a language model uses ``--llm scripted``. The run's
config records that ``--llm``: a result made with the double says so.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Callable

from proagent.domains import get_domain
from proagent.llm.factory import make_model
from proagent.llm.types import Completion, Grounding, LLMConfigError, Message, Model, StructuredOutput
from tests.support.board import GROUNDING_PATH, message_key

LOOPBACK_SPEC = "python:tests.support.loopback:loopback_model"
BACKEND = "openai/loopback"  # the litellm id the loopback requests go out as


class LoopbackModel:
    """``inner`` (a backend pointed at the `FakeChatServer` at ``api_base``) that first posts each
    request's grounding to that server's board."""

    def __init__(self, inner: Model, api_base: str, timeout_s: float) -> None:
        self._inner = inner
        self._board_url = api_base.rstrip("/") + GROUNDING_PATH
        self._timeout_s = timeout_s

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
        if grounding is not None:
            await asyncio.to_thread(self._post, message_key(messages), grounding)
        return await self._inner.generate(
            messages,
            structured=structured,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            grounding=grounding,
        )

    def _post(self, key: str, grounding: Grounding) -> None:
        """Put ``grounding`` on the server's board; a server that cannot take it answers the chat
        request with a 400 that says so, which is where the failure belongs."""
        data = b'{"key": "%s", "grounding": %s}' % (key.encode(), grounding.model_dump_json().encode())
        request = urllib.request.Request(self._board_url, data, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self._timeout_s):
                pass
        except OSError:
            return


def planner_of(world: str) -> Callable[[Grounding | None], str]:
    """The scripted planner ``world`` ships (its `ScriptedPlanning` capability), as a
    `FakeChatServer` responder: the loopback server answers with the product's planner."""
    scripted = get_domain(world).capabilities.scripted
    if scripted is None:
        raise LookupError(f"the {world} world ships no scripted planner")
    return scripted.answer  # it asks for a grounding itself (`proagent.llm.scripted.require`)


def loopback_model(api_base: str | None, timeout_s: float) -> Model:
    """The ``--llm python:`` factory: litellm to the `FakeChatServer` at ``api_base``."""
    if api_base is None:
        raise LLMConfigError("the loopback model needs --api-base: the URL of a running FakeChatServer")
    return LoopbackModel(make_model(BACKEND, api_base=api_base, timeout_s=timeout_s), api_base, timeout_s)


def loopback_args(url: str) -> list[str]:
    """The command-line arguments of a loopback run against the server at ``url`` (no cache:
    the double's answers are not a model's to replay)."""
    return ["--llm", LOOPBACK_SPEC, "--api-base", url, "--no-cache"]
