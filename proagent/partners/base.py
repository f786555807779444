"""The one partner interface used by play, eval and the metrics.

A partner sees the symbolic kitchen (scripted partners) and/or the engine state it can turn into
an observation (RL policies), and returns one primitive action for its seat. Any partner plays
either seat; ``reset`` tells it which, and seeds it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from envs import Action, EnvState, KitchenState


@runtime_checkable
class Partner(Protocol):
    name: str

    def reset(self, seat: int, seed: int) -> None:
        """Start a new episode in ``seat`` (player index), with its own random stream."""

    def act(self, kitchen: KitchenState, state: EnvState) -> Action:
        """One primitive action for this step."""


class UnknownPartnerError(ValueError):
    """Raised with the list of partners that do exist."""
