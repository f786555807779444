"""The LLM agent's command-line options, shared by `play` and `human`; `add_pipeline_options` also by `eval`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

from proagent.adapter_choice import NO_ADAPTER, SHIPPED_ADAPTER
from proagent.agent.clock import CLOCK_FALLBACKS, FALLBACK_HELP
from proagent.agent.clock import HELP as CLOCK_HELP
from proagent.agent.memory import MEMORY_RETRIEVALS
from proagent.agent.verificator_modes import VERIFICATOR_MODES
from proagent.cli.arg_types import (
    bounded_int,
    clock_spec,
    non_negative_int,
    positive_float,
    positive_int,
    writable_folder,
)
from proagent.limits import MAX_MESSAGE_BUDGET
from proagent.paths import CACHE_DIR

_CAPABLE = "pass --llm openai/<model> (or --llm openai/<name> --api-base URL for a local server) for a capable model."


def embedded_notice(adapter: Path | None) -> str:
    """What a user is told before the embedded model plays: which model it is (the shipped adapter,
    the raw model or another adapter), so that nobody mistakes the 135M model for a capable one."""
    from proagent.eval.model_names import adapter_words  # named as the captions name it; not at start-up

    if adapter is None:
        return (
            "Using the embedded SmolLM2-135M model with no adapter (the raw model; no API key needed). It runs "
            f"the real pipeline but plays weakly; {_CAPABLE}"
        )
    if adapter.resolve() == SHIPPED_ADAPTER.resolve():
        return (
            "Using the embedded SmolLM2-135M model with its shipped adapter (no API key needed): a 135M model "
            "taught by the worlds' scripted planners, to show the pipeline at work (--adapter none: the raw "
            f"model); {_CAPABLE}"
        )
    return (
        f"Using the embedded SmolLM2-135M model with the LoRA adapter {adapter_words(adapter)} "
        f"(no API key needed); {_CAPABLE}"
    )

SCRIPTED_NOTICE = (
    "Using the world's scripted planner (--llm scripted): code that answers from the agent's grounding, not a "
    "language model; the run records it as such."
)
# `play`, `human`, `study` and `eval` all offer --probe-forced: one wording for each of them
PROBE_FORCED_HELP = (
    "with --belief-probe: the model must name a value for every item ('unknown' not allowed), a forced guess"
)


def add_agent_options(p: argparse.ArgumentParser) -> None:
    """The LLM agent's options, shared by `play` and `human --agent proagent`."""
    p.add_argument(
        "--llm",
        default="embedded",
        help="'embedded' (default), a litellm model id, e.g. openai/gpt-4o-mini, 'scripted' (the world's scripted "
        "planner: no language model), or python:module:factory",
    )
    p.add_argument("--api-base", default=None, help="URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp)")
    p.add_argument(
        "--prompt",
        default=None,
        help="prompt set: a folder of the world's prompts (default: compact for the embedded model where the world has "
        "one, else proagent)",
    )
    p.add_argument("--belief", choices=("replace", "annotate", "off"), default="replace")
    p.add_argument(
        "--memory-k", type=non_negative_int, default=5, help="recent trajectory records shown to the planner"
    )
    add_pipeline_options(p)
    p.add_argument("--max-replans", type=non_negative_int, default=4)
    p.add_argument("--clock", type=clock_spec, default="turns", metavar="turns|tokens:N|seconds:S", help=CLOCK_HELP)
    p.add_argument("--clock-fallback", choices=CLOCK_FALLBACKS, default="idle", help=FALLBACK_HELP)
    p.add_argument(
        "--no-loop-check",
        action="store_true",
        help="let the agent repeat a skill its last skill just undid (loops are still counted as 'oscillations')",
    )
    p.add_argument(
        "--legal-only",
        choices=("auto", "on", "off"),
        default="auto",
        help="offer the model only skills whose preconditions hold (auto: on for the embedded model)",
    )
    p.add_argument(
        "--belief-probe",
        action="store_true",
        help="each turn, also ask the model what it believes of hidden facts (one more call; worlds with belief "
        "probes)",
    )
    p.add_argument(
        "--probe-forced",
        action="store_true",
        help=PROBE_FORCED_HELP,
    )
    p.add_argument(
        "--llm-timeout", type=positive_float, default=60.0, help="seconds to wait for one LLM answer before retrying"
    )
    p.add_argument(
        "--cache-dir",
        type=writable_folder,
        default=CACHE_DIR.absolute(),
        help="the model-answer cache (default: .cache/llm in the current folder)",
    )
    p.add_argument("--no-cache", action="store_true")
    p.add_argument(
        "--adapter",
        type=adapter_file,
        default=None,
        metavar="PATH|none",
        help="the embedded model's LoRA adapter GGUF (from proagent finetune), recorded with its sha256 (default: "
        "none, the raw model)",
    )
    p.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        metavar="N",
        help="the embedded model's CPU threads (default: the cores this process may use that other work leaves free)",
    )


def adapter_file(text: str) -> Path | Literal["none"]:
    """An argparse type: ``none`` (the raw model) or a path, checked to be a file when the model is made."""
    return NO_ADAPTER if text.strip().lower() == NO_ADAPTER else Path(text)


def add_pipeline_options(p: argparse.ArgumentParser) -> None:
    """The pipeline choices a prompt set gives defaults for (prompt.toml): left unset (None), the set decides.
    One definition for `play`, `human` and `eval`, so their flags cannot drift apart."""
    p.add_argument(
        "--memory-retrieval",
        choices=MEMORY_RETRIEVALS,
        default=None,
        help="what each recent record shows the planner: outcomes, or trajectory (also its analysis, as in the paper) "
        "(default: the prompt set's)",
    )
    p.add_argument(
        "--verificator",
        choices=VERIFICATOR_MODES,
        default=None,
        help="code: the precondition checks and one explanation call; llm3: the same checks, explained in the paper's "
        "three rounds (preconditions check, double-check, error conclusion); off: no check (default: the prompt set's)",
    )
    p.add_argument(
        "--no-verificator",
        dest="verificator",
        action="store_const",
        const="off",
        help="accept any parsed plan without checking it (--verificator off)",
    )


def add_topology_options(p: argparse.ArgumentParser) -> None:
    """MAEIL's options (`proagent.maeil`): agents that talk between environment steps."""
    from proagent.topologies import TOPOLOGIES  # not proagent.maeil, which imports the LLM layer

    p.add_argument(
        "--topology",
        choices=TOPOLOGIES,
        default=None,
        help="run the team through MAEIL with this communication topology (default: no conversation, agents act in "
        "turn)",
    )
    p.add_argument("--leader", type=non_negative_int, default=0, help="centralized topology: the leader's seat")
    p.add_argument(
        "--message-budget",
        type=bounded_int(0, MAX_MESSAGE_BUDGET),
        default=1,
        help=f"decentralized topology: messages per agent per step (0 to {MAX_MESSAGE_BUDGET})",
    )
    p.add_argument(
        "--repair",
        choices=("off", "on"),
        default="off",
        help="COOP²-Repair: check the committed plans before they run and send the agents a predicted failure "
        "involves targeted guidance to revise (worlds with a plan-effect estimate; implies --topology individual "
        "when none is given)",
    )
    p.add_argument(
        "--feedback",
        action="store_true",
        help="environment feedback: attach the world's constraint and dependency snapshot to the leader's messages "
        "(worlds that give one)",
    )
