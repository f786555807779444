"""Which model played, in words, for every table and plot of a run: a number read without its
model is a number read wrongly (a test double's or a scripted stand-in's ProAgent column is no
language model's result, and the embedded 135M model's is not a hosted one's).

The words come from the run's config (each LLM agent's ``--llm`` and its prompt set, as the agent
settled it), so a table can only name what played.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from proagent.eval.config import PROAGENT, EvalConfig
from proagent.llm.scripted import SCRIPTED_CAPTION, SCRIPTED_SPEC, ModelRecord, is_scripted

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
    """An LLM agent of a run: its name, its ``--llm``, the prompt set it played with and the
    embedded model's LoRA adapter, in words (None: no adapter, the raw model)."""

    agent: str
    llm: str
    prompt: str
    adapter: str | None = None


def adapter_words(path: str | Path | None, sha256: str | None = None) -> str | None:
    """An adapter as a caption names it: its folder and file (and sha256 prefix when known)."""
    if path is None:
        return None
    named = f"{Path(path).parent.name}/{Path(path).name}"
    return f"{named}, sha256 {sha256[:12]}" if sha256 else named


def eval_llm_seats(
    config: EvalConfig | None, models: Mapping[str, ModelRecord] | None = None
) -> list[LlmSeat] | None:
    """Each LLM agent of an evaluation run (None: its config is not recorded). ``models``: the run's
    model records (its manifest's), whose adapter sha256 names the adapter that played: a file
    replaced at the same path is another model, and a page must not read as if it were the same."""
    if config is None:
        return None
    recorded = models or {}

    def sha(name: str) -> str | None:
        record = recorded.get(name)
        return None if record is None else record.adapter_sha256

    return [
        LlmSeat(a.name, a.llm, a.agent_config().prompt, adapter_words(a.adapter, sha(a.name)))
        for a in config.agents
        if a.kind == PROAGENT
    ]


def play_llm_seats(config: Mapping[str, Any]) -> list[LlmSeat]:
    """The LLM agent of a ``play`` or ``human`` run, from its config.json (``llm`` "none": a person
    played with a scripted or trained partner, no model)."""
    llm = config.get("llm")
    if not isinstance(llm, str) or llm in ("", "none"):
        return []
    agent = config.get("agent")
    prompt = agent.get("prompt") if isinstance(agent, Mapping) else None
    model = config.get("model")
    adapter = model.get("adapter") if isinstance(model, Mapping) else None
    sha = model.get("adapter_sha256") if isinstance(model, Mapping) else None
    words = adapter_words(adapter, sha) if isinstance(adapter, str) else None
    return [LlmSeat(PROAGENT, llm, prompt if isinstance(prompt, str) else "not recorded", words)]


def models_caption(seats: list[LlmSeat] | None) -> str:
    """One line naming each LLM agent's model and prompt set (or that none played)."""
    if seats is None:
        return "Model: not recorded (the run folder has no config.json)."
    if not seats:
        return "Model: none (no LLM agent played; every agent is scripted or trained)."
    groups: dict[tuple[str, str, str | None], list[str]] = {}  # agents alike in all three are named together
    for name, llm, prompt, adapter in seats:
        groups.setdefault((llm, prompt, adapter), []).append(f"`{name}`")
    named = "; ".join(
        f"{', '.join(names)}: {model_label(llm)}{with_adapter(llm, adapter)}, prompt set `{prompt}`"
        for (llm, prompt, adapter), names in groups.items()
    )
    return f"Model{'s' if len(groups) > 1 else ''} (--llm, from config.json): {named}."


def _short(llm: str, prompt: str, adapter: str | None) -> str:
    raw = " (raw)" if _embedded(llm) else ""
    return f"{model_short(llm)}{' + LoRA adapter' if adapter else raw}, prompts {prompt}"


def _embedded(llm: str | None) -> bool:
    return llm is None or llm.split(":")[0] == EMBEDDED


def with_adapter(llm: str | None, adapter: str | None) -> str:
    """What follows a model's name: its LoRA adapter, or for the embedded model that it played raw
    (the default is the shipped adapter, so a raw embedded model is said to be one)."""
    if adapter:
        return f" with LoRA adapter `{adapter}`"
    return " with no adapter (the raw model, `--adapter none`)" if _embedded(llm) else ""


def models_short(seats: list[LlmSeat] | None) -> str:
    """The same, in a few words, for a plot's caption."""
    if seats is None:
        return "model not recorded"
    if not seats:
        return "no LLM agent"
    kinds = sorted({_short(llm, prompt, adapter) for _, llm, prompt, adapter in seats})
    return "model: " + "; ".join(kinds)
