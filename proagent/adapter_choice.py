"""Which LoRA adapter the embedded model plays with: the one a user names (``--adapter PATH``),
none (``--adapter none``: the raw model), or, when nothing is named, the default: the adapter the
project ships for the bundled model (`SHIPPED_ADAPTER`, SmolLM2-135M taught by the worlds' scripted
planners, see its README) and no adapter for any other model.

Why ``none`` is a value of its own and not an absent flag: the default is not the raw model, and in
``proagent eval`` a flag left out keeps each agent's config, while ``--adapter none`` sets every
embedded agent to the raw model.

Why the default lives here and nowhere else: every front end (play, human, eval, ablate, reproduce,
study) asks `adapter_to_play`, so the model a user sees in `play` is the model `eval` measures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from proagent.paths import DATA_DIR

__all__ = ["BUNDLED_EMBEDDED", "NO_ADAPTER", "SHIPPED_ADAPTER", "AdapterChoice", "adapter_to_play", "default_adapter"]

NO_ADAPTER = "none"  # --adapter none: the raw model
BUNDLED_EMBEDDED = "embedded"  # the --llm of the bundled model (``embedded:PATH`` is another GGUF)
SHIPPED_ADAPTER = DATA_DIR / "adapters" / "smollm2-135m-all-worlds" / "adapter.gguf"

# a file, the raw model ("none"), or None: not given (the default: `default_adapter`)
AdapterChoice = Path | Literal["none"] | None


def default_adapter(llm: str | None) -> Path | None:
    """The adapter a model plays when none is named: the shipped one for the bundled embedded model
    (it was trained on that model's weights), none for any other model (another GGUF, an API model)."""
    return SHIPPED_ADAPTER if (llm or BUNDLED_EMBEDDED).strip() == BUNDLED_EMBEDDED else None


def adapter_to_play(choice: AdapterChoice, llm: str | None) -> Path | None:
    """The adapter file ``--adapter choice`` plays with model ``llm`` (None: no adapter, the raw model)."""
    if choice == NO_ADAPTER:
        return None
    if choice is None:
        return default_adapter(llm)
    return Path(choice)
