"""The registry of worlds: built in, installed as packages, or named as ``package.module:attribute``.

A built-in world is a subpackage ``proagent.domains.<name>`` whose ``__init__`` declares ``WORLD``
(``"module:attribute"`` of its `Domain`) and ``DRAWING`` (``"module:function"`` of its replay
drawing, or None); the registry finds it there, so adding one touches nothing outside its own
folders. Any other world plugs in without touching proagent in either of two ways: a package that
declares an entry point in the ``proagent.worlds`` group (``name = "package.module:attribute"``; its
replay drawing, if it has one, in ``proagent.world_drawings``), or ``--domain
package.module:attribute`` on the command line. A layout name with no ``--domain`` goes to the world
that owns it; ``world:layout`` names the world explicitly (`make_env`). Worlds are imported only
when asked for (their package ``__init__`` is light).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, DomainInputError

DEFAULT_DOMAIN = "overcooked"
WORLD_GROUP = "proagent.worlds"  # entry points: world name -> "module:attribute" (a Domain, or its class)
DRAWING_GROUP = "proagent.world_drawings"  # entry points: world name -> "module:function" -> ReplayDrawing

@cache
def _builtin() -> dict[str, tuple[str, str | None]]:
    """The built-in worlds: name -> (WORLD, DRAWING) as each world package declares them."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            package = importlib.import_module(f"{__name__}.{info.name}")
            found[info.name] = (package.WORLD, package.DRAWING)
    return found


def _load(spec: str) -> Any:
    """The object named by ``module:attribute``; DomainInputError when it cannot be imported."""
    module_name, _, attribute = spec.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise DomainInputError(f"domain {spec!r}: cannot import it ({exc})") from exc


def _installed(group: str) -> dict[str, str]:
    """Entry points of ``group`` as name -> ``module:attribute``."""
    return {ep.name: ep.value for ep in entry_points(group=group)}


def _world_specs() -> dict[str, str]:
    """Every registered world: the built-in ones, then installed ones (which cannot shadow them)."""
    return {**_installed(WORLD_GROUP), **{name: world for name, (world, _) in _builtin().items()}}


def builtin_domain_names() -> list[str]:
    """The registered worlds' names (built in and installed)."""
    return sorted(_world_specs())


def get_domain(spec: str | None = None) -> Domain:
    """A world by registered name or ``module:attribute``; one clear error otherwise."""
    spec = spec or DEFAULT_DOMAIN
    specs = _world_specs()
    if spec not in specs and ":" not in spec:
        raise DomainInputError(
            f"unknown domain {spec!r}; worlds: {', '.join(sorted(specs))} (or give module:attribute)"
        )
    found = _load(specs.get(spec, spec))
    return found() if isinstance(found, type) else found


def domain_for(layout: str | None, spec: str | None) -> Domain:
    """The world named by ``spec``, else the registered one owning ``layout`` (``world:layout``
    names it), else the default."""
    if spec:
        return get_domain(spec)
    if layout is not None:
        world, colon, _ = layout.partition(":")
        if colon and world in _world_specs():
            return get_domain(world)
        for name in _world_specs():
            domain = get_domain(name)
            if domain.owns(layout):
                return domain
    return get_domain(DEFAULT_DOMAIN)


def layout_of(layout: str) -> str:
    """``layout`` without a registered world's ``world:`` prefix (``cube:medium_3a`` -> ``medium_3a``)."""
    world, colon, rest = layout.partition(":")
    return rest if colon and world in _world_specs() else layout


def make_env(spec: str, horizon: int | None = None) -> DomainEnv:
    """The env of ``world:layout`` (or a layout its world owns), with the layout's own horizon when
    ``horizon`` is None: one registry for every world's layouts."""
    domain = domain_for(spec, None)
    layout = layout_of(spec)
    return domain.make_env(layout, horizon if horizon is not None else domain.default_horizon(layout))


def replay_drawing_for(name: str) -> Any:
    """The replay page's drawing of a world (a `proagent.world.replay.ReplayDrawing`), from its
    light drawing module; DomainInputError for a world without one."""
    built_in = {name: drawing for name, (_, drawing) in _builtin().items() if drawing is not None}
    drawings = {**_installed(DRAWING_GROUP), **built_in}
    if name not in drawings:
        raise DomainInputError(
            f"domain {name!r} has no replay drawing; domains with one: {', '.join(sorted(drawings))}"
        )
    make: Callable[[], Any] = _load(drawings[name])
    return make()


__all__ = [
    "DEFAULT_DOMAIN",
    "DRAWING_GROUP",
    "WORLD_GROUP",
    "Domain",
    "DomainInputError",
    "builtin_domain_names",
    "domain_for",
    "get_domain",
    "layout_of",
    "make_env",
    "replay_drawing_for",
]
