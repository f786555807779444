"""Domains by name: the built-in worlds, or any object named ``package.module:attribute``.

A user's or a test's world plugs in without touching this package: ``--domain mypkg.world:DOMAIN``
imports it. A layout name with no ``--domain`` goes to the built-in domain that owns it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from proagent.domains.base import Domain, DomainInputError

DEFAULT_DOMAIN = "overcooked"


_BUILTIN = {
    "overcooked": "proagent.domains.overcooked.domain:OvercookedDomain",
    "cube": "proagent.domains.cube.domain:CubeDomain",
}  # name -> module:class, imported on use


def _builtin() -> dict[str, Callable[[], Domain]]:
    """Factories of the built-in domains; a domain's module (and JAX) is imported only when made."""

    def factory(spec: str) -> Callable[[], Domain]:
        module, _, attribute = spec.partition(":")
        return lambda: getattr(importlib.import_module(module), attribute)()

    return {name: factory(spec) for name, spec in _BUILTIN.items()}


_BUILTIN_DRAWINGS = {"overcooked": "proagent.domains.overcooked.web", "cube": "proagent.domains.cube.web"}  # light modules: no JAX for a replay


def replay_drawing_for(name: str) -> Any:
    """The replay page's drawing of a domain (a `proagent.web.replay_data.ReplayDrawing`): built-in
    domains name a light module, plugged-in ones (``module:attribute``) provide ``replay_drawing()``."""
    if name in _BUILTIN_DRAWINGS:
        return importlib.import_module(_BUILTIN_DRAWINGS[name]).replay_drawing()
    if ":" in name:
        drawing = getattr(get_domain(name), "replay_drawing", None)  # optional for a plugged-in domain
        if drawing is not None:
            return drawing()
    raise DomainInputError(f"domain {name!r} has no replay drawing; domains with one: {', '.join(sorted(_BUILTIN_DRAWINGS))}")


def builtin_domain_names() -> list[str]:
    return sorted(_builtin())


def get_domain(spec: str | None = None) -> Domain:
    """A domain by built-in name or ``module:attribute``; one clear error otherwise."""
    spec = spec or DEFAULT_DOMAIN
    factories = _builtin()
    if spec in factories:
        return factories[spec]()
    if ":" not in spec:
        raise DomainInputError(f"unknown domain {spec!r}; built-in domains: {', '.join(sorted(factories))} (or give module:attribute)")
    module_name, _, attribute = spec.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise DomainInputError(f"domain {spec!r}: cannot import it ({exc})") from exc
    return found() if isinstance(found, type) else found


def domain_for(layout: str | None, spec: str | None) -> Domain:
    """The domain named by ``spec``, else the built-in one owning ``layout``, else the default."""
    if spec:
        return get_domain(spec)
    if layout is not None:
        for factory in _builtin().values():
            domain = factory()
            if domain.owns(layout):
                return domain
    return get_domain(DEFAULT_DOMAIN)


__all__ = ["DEFAULT_DOMAIN", "Domain", "DomainInputError", "builtin_domain_names", "domain_for", "get_domain", "replay_drawing_for"]
