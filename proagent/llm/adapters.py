"""Which LoRA adapter the embedded model plays with: the one a user names, none, or the shipped one.

Why a shipped adapter: the raw SmolLM2-135M scores what a random agent scores, so README command 1
would show a pipeline that does not cooperate. The adapter in ``data/adapters/`` was taught by the
worlds' scripted planners (``proagent finetune``; its ``manifest.json`` and ``README.md`` say on
what, how, and what it scores): a 135M model imitating a scripted planner, shipped to show the
pipeline working end to end without a key, not a model to draw research conclusions from.

It applies where the model is the bundled one (``--llm embedded``): another GGUF
(``embedded:PATH``) or any other model plays without it. ``--adapter none`` is the raw model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from proagent.paths import DATA_DIR

__all__ = ["NO_ADAPTER", "SHIPPED_ADAPTER", "AdapterChoice", "adapter_to_play"]

SHIPPED_ADAPTER = DATA_DIR / "adapters" / "smollm2-135m-scripted" / "adapter.gguf"
NO_ADAPTER = "none"  # --adapter none: the raw model
BUNDLED_SPEC = "embedded"  # the bundled GGUF, the one model the shipped adapter was trained on

# a file, the raw model ("none"), or None: not given, so the default (the shipped adapter for the
# bundled embedded model, nothing for any other model)
AdapterChoice = Path | Literal["none"] | None


def adapter_to_play(llm: str, choice: AdapterChoice) -> Path | None:
    """The adapter file ``--llm llm`` plays with under ``--adapter choice`` (None: no adapter)."""
    if choice == NO_ADAPTER:
        return None
    if choice is not None:
        return Path(choice)
    if llm.strip() == BUNDLED_SPEC and SHIPPED_ADAPTER.is_file():
        return SHIPPED_ADAPTER
    return None
