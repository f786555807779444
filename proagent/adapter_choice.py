"""Which LoRA adapter the embedded model plays with: the one a user names (``--adapter PATH``), or
none (``--adapter none``, and the default: no adapter ships with the project yet).

Why ``none`` is a value of its own and not an absent flag: in ``proagent eval`` a flag left out
keeps each agent's config, while ``--adapter none`` sets every embedded agent to the raw model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

__all__ = ["NO_ADAPTER", "AdapterChoice", "adapter_to_play"]

NO_ADAPTER = "none"  # --adapter none: the raw model

# a file, the raw model ("none"), or None: not given (the raw model too)
AdapterChoice = Path | Literal["none"] | None


def adapter_to_play(choice: AdapterChoice) -> Path | None:
    """The adapter file ``--adapter choice`` plays (None: no adapter, the raw model)."""
    if choice is None or choice == NO_ADAPTER:
        return None
    return Path(choice)
