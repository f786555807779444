"""Which model played, in words, for every table and plot of a run: a number read without its
model is a number read wrongly (a test double's or a scripted stand-in's ProAgent column is no
language model's result, and the embedded 135M model's is not a hosted one's).

The words come from the run's config (each LLM agent's ``--llm`` and its prompt set, as the agent
settled it), so a table can only name what played.
"""

from __future__ import annotations

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


def _llm_agents(config: EvalConfig) -> list[tuple[str, str, str]]:
    """(agent name, --llm, prompt set) of each LLM agent of the run."""
    return [(a.name, a.llm, a.agent_config().prompt) for a in config.agents if a.kind == PROAGENT]


def models_caption(config: EvalConfig | None) -> str:
    """One line naming each LLM agent's model and prompt set (or that none played)."""
    if config is None:
        return "Model: not recorded (the run folder has no config.json)."
    agents = _llm_agents(config)
    if not agents:
        return "Model: none (no LLM agent played; every agent is scripted or trained)."
    groups: dict[tuple[str, str], list[str]] = {}  # agents that share a model and prompt set are named together
    for name, llm, prompt in agents:
        groups.setdefault((llm, prompt), []).append(f"`{name}`")
    named = "; ".join(
        f"{', '.join(names)}: {model_label(llm)}, prompt set `{prompt}`" for (llm, prompt), names in groups.items()
    )
    return f"Model{'s' if len(groups) > 1 else ''} (--llm, from config.json): {named}."


def models_short(config: EvalConfig | None) -> str:
    """The same, in a few words, for a plot's caption."""
    if config is None:
        return "model not recorded"
    agents = _llm_agents(config)
    if not agents:
        return "no LLM agent"
    kinds = sorted({f"{model_short(llm)}, prompts {prompt}" for _, llm, prompt in agents})
    return "model: " + "; ".join(kinds)
