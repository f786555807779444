"""Which model played, in words, for every table and plot of a run: a number read without its
model is a number read wrongly (a test double's or a scripted stand-in's ProAgent column is no
language model's result, and the embedded 135M model's is not a hosted one's).

The words come from the run's config (each LLM agent's ``--llm`` and its prompt set, as the agent
settled it), so a table can only name what played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from proagent.eval.config import PROAGENT, EvalConfig
from proagent.llm.scripted import SCRIPTED_CAPTION, SCRIPTED_SPEC, is_scripted

TEST_DOUBLES = "python:tests."  # --llm factories of the test suite: scripted answers, no model
EMBEDDED = "embedded"


def model_label(llm: str | None) -> str:
    """The model in words: the embedded one by default; a test double or the scripted stand-in said to be one."""
    if llm is None or llm == EMBEDDED:
        return "the embedded model (the default `--llm`)"
    if llm.startswith(TEST_DOUBLES):
        return f"`{llm}`: a test double (scripted answers), not a language model"
    if is_scripted(llm):
        return f"`{SCRIPTED_SPEC}`: the world's {SCRIPTED_CAPTION}"
    return f"`{llm}`"


def model_short(llm: str) -> str:
    """The model in a few words, for a plot's caption."""
    if llm.split(":")[0] == EMBEDDED:
        return "embedded model"
    if llm.startswith(TEST_DOUBLES):
        return "test double (not an LLM)"
    if is_scripted(llm):
        return SCRIPTED_CAPTION
    return llm


class LlmSeat(NamedTuple):
    """An LLM agent of a run: its name, its ``--llm`` and the prompt set it played with."""

    agent: str
    llm: str
    prompt: str


def eval_llm_seats(config: EvalConfig | None) -> list[LlmSeat] | None:
    """Each LLM agent of an evaluation run (None: its config is not recorded)."""
    if config is None:
        return None
    return [LlmSeat(a.name, a.llm, a.agent_config().prompt) for a in config.agents if a.kind == PROAGENT]


def play_llm_seats(config: Mapping[str, Any]) -> list[LlmSeat]:
    """The LLM agent of a ``play`` or ``human`` run, from its config.json (``llm`` "none": a person
    played with a scripted or trained partner, no model)."""
    llm = config.get("llm")
    if not isinstance(llm, str) or llm in ("", "none"):
        return []
    agent = config.get("agent")
    prompt = agent.get("prompt") if isinstance(agent, Mapping) else None
    return [LlmSeat(PROAGENT, llm, prompt if isinstance(prompt, str) else "not recorded")]


def models_caption(seats: list[LlmSeat] | None) -> str:
    """One line naming each LLM agent's model and prompt set (or that none played)."""
    if seats is None:
        return "Model: not recorded (the run folder has no config.json)."
    if not seats:
        return "Model: none (no LLM agent played; every agent is scripted or trained)."
    groups: dict[tuple[str, str], list[str]] = {}  # agents that share a model and prompt set are named together
    for name, llm, prompt in seats:
        groups.setdefault((llm, prompt), []).append(f"`{name}`")
    named = "; ".join(
        f"{', '.join(names)}: {model_label(llm)}, prompt set `{prompt}`" for (llm, prompt), names in groups.items()
    )
    return f"Model{'s' if len(groups) > 1 else ''} (--llm, from config.json): {named}."


def models_short(seats: list[LlmSeat] | None) -> str:
    """The same, in a few words, for a plot's caption."""
    if seats is None:
        return "model not recorded"
    if not seats:
        return "no LLM agent"
    kinds = sorted({f"{model_short(llm)}, prompts {prompt}" for _, llm, prompt in seats})
    return "model: " + "; ".join(kinds)
