"""The Verificator's modes, apart from its code (`agent/verificator.py`) so a prompt set's
``prompt.toml``, the agent's config and the command line all name them from one definition."""

from __future__ import annotations

from typing import Literal

VerificatorMode = Literal["off", "code", "llm3"]
VERIFICATOR_MODES: tuple[VerificatorMode, ...] = ("off", "code", "llm3")


def from_switch(value: object) -> object:
    """A pre-mode config's ``verificator = true|false`` (TOML/YAML files, recorded runs) as a mode:
    true was the code check, false no check; anything else is left for validation."""
    if isinstance(value, bool):
        return "code" if value else "off"
    return value
