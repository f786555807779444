"""The Overcooked domain (see `domain.py`). Imported lazily: the replay page reads only this
package's `web` drawing and should not pay for JAX."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proagent.domains.overcooked.domain import OvercookedDomain

__all__ = ["OvercookedDomain"]


def __getattr__(name: str) -> object:
    if name == "OvercookedDomain":
        from proagent.domains.overcooked.domain import OvercookedDomain

        return OvercookedDomain
    raise AttributeError(name)
