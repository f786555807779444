"""The RL spec of a world by name: the one way the RL program reaches a world (its domain's ``rl``)."""

from __future__ import annotations

from proagent.world.rl_spec import RLSpec


class NoRLSpecError(ValueError):
    """The world provides no RL spec: its partners cannot be trained here."""


def rl_spec(world: str) -> RLSpec:
    """The spec of ``world`` (a built-in name or ``module:attribute``); a ValueError in one line
    for an unknown world or one without an RL spec."""
    from proagent.domains import get_domain  # a world's package is imported on use

    spec = get_domain(world).capabilities.rl
    if spec is None:
        raise NoRLSpecError(f"world {world!r} provides no RL spec: its partners cannot be trained with proagent train")
    return spec
