"""What "the embedded model" changes in the agent's settings, written once for every front end.

A 135M local model cannot write a useful analysis and rarely names a legal skill unaided, so when
the embedded model plays and the user left a setting on ``auto`` (or unset), it gets: the
``compact`` prompt set (intention and plan from the grammar, no free text), output constrained to
the skills whose checks pass, and a short analysis bound for sets that still ask for one. Any
explicit choice wins. `play`, `human` and `eval` all settle their settings here, so they agree.

A world without a ``compact`` set (one plugged in with only its ``proagent`` set) plays the embedded
model with its default set instead of failing on a set the user never asked for: what a user expects
of a default is that it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from proagent.agent.config import AgentConfig

EMBEDDED_PROMPT = "compact"
EMBEDDED_ANALYSIS_CHARS = 80  # a 135M model's analysis is filler; fewer tokens = faster decisions


class ModelDefaults(BaseModel):
    """The settings that depend on the model when left on auto."""

    prompt: str
    legal_only: bool
    analysis_max_chars: int


def model_defaults(
    embedded: bool,
    prompt: str | None = None,
    legal_only: bool | Literal["auto"] = "auto",
    analysis_max_chars: int | None = None,
    prompts_root: Path | None = None,
) -> ModelDefaults:
    """Settle ``None`` / ``"auto"`` for the embedded model or a capable one; explicit values win.
    ``prompts_root``: the world's prompt sets, so the embedded default falls back to the world's
    default set where it has no ``compact`` one (None: assume it has)."""
    base = AgentConfig()
    compact = prompts_root is None or (prompts_root / EMBEDDED_PROMPT / "prompt.toml").is_file()
    return ModelDefaults(
        prompt=prompt or (EMBEDDED_PROMPT if embedded and compact else base.prompt),
        legal_only=embedded if legal_only == "auto" else legal_only,
        analysis_max_chars=analysis_max_chars
        if analysis_max_chars is not None
        else (EMBEDDED_ANALYSIS_CHARS if embedded else base.analysis_max_chars),
    )
