"""The Overcooked domain (see `domain.py`). Imported lazily: the replay page reads only this
package's `web` drawing and should not pay for JAX."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proagent.domains.overcooked.domain import OvercookedDomain

WORLD = "proagent.domains.overcooked.domain:OvercookedDomain"  # the registry finds the world by these
DRAWING = "proagent.domains.overcooked.web:replay_drawing"  # the replay page's drawing (light, no JAX)

__all__ = ["DRAWING", "WORLD", "OvercookedDomain"]


def __getattr__(name: str) -> object:
    if name == "OvercookedDomain":
        from proagent.domains.overcooked.domain import OvercookedDomain

        return OvercookedDomain
    raise AttributeError(name)
