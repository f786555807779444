"""The one place that imports JaxMARL's OvercookedV2 engine.

JaxMARL prints to stdout when its environment package is imported, and its mabrax module resets
``sys.stdout``/``sys.stderr`` to the process's original streams (breaking any redirection or test
capture in force). An agent loop that renders a live view or pipes JSON must not get stray lines,
so the import is silenced here and the caller's streams are put back.

Only OvercookedV2 is loaded: importing it the usual way runs ``jaxmarl/environments/__init__.py``,
which imports every JaxMARL environment (STORM, SMAX, MPE, JaxNav, Hanabi...), about 4 s of every
process start (each CLI command, each Ray worker). The two parent packages stand in bare (their
``__init__`` not run) while OvercookedV2's modules load, then leave ``sys.modules``: a later
``import jaxmarl`` runs JaxMARL's own ``__init__`` in full and reuses the loaded OvercookedV2 modules,
so both see one ``OvercookedV2`` class.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from functools import cache


def _import_overcooked_v2_alone() -> None:
    if "jaxmarl" in sys.modules:  # JaxMARL was imported in full already
        import jaxmarl.environments.overcooked_v2

        return
    root = importlib.util.find_spec("jaxmarl")  # finds the package without running it
    if root is None or not root.submodule_search_locations:
        raise ModuleNotFoundError("No module named 'jaxmarl'", name="jaxmarl")
    (where,) = root.submodule_search_locations
    bare = {"jaxmarl": where, "jaxmarl.environments": os.path.join(where, "environments")}
    for name, path in bare.items():
        package = types.ModuleType(name)
        package.__path__ = [path]
        sys.modules[name] = package
    try:
        import jaxmarl.environments.overcooked_v2  # noqa: F401
    finally:
        for name in bare:
            sys.modules.pop(name, None)


def _import_quietly() -> None:
    streams = (sys.stdout, sys.stderr)
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        _import_overcooked_v2_alone()
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
        sys.stdout, sys.stderr = streams


_import_quietly()

from jaxmarl.environments.overcooked_v2.common import (
    Direction,
    DynamicObject,
    OvercookedActionsEnum,
    StaticObject,
)
from jaxmarl.environments.overcooked_v2.layouts import Layout, overcooked_v2_layouts
from jaxmarl.environments.overcooked_v2.overcooked import OvercookedV2, State
from jaxmarl.environments.overcooked_v2.settings import (
    DELIVERY_REWARD,
    INDICATOR_ACTIVATION_COST,
    INDICATOR_ACTIVATION_TIME,
    POT_COOK_TIME,
)


@cache
def jaxmarl_layouts() -> dict[str, Layout]:
    return dict(overcooked_v2_layouts)


__all__ = [
    "DELIVERY_REWARD",
    "INDICATOR_ACTIVATION_COST",
    "INDICATOR_ACTIVATION_TIME",
    "POT_COOK_TIME",
    "Direction",
    "DynamicObject",
    "Layout",
    "OvercookedActionsEnum",
    "OvercookedV2",
    "State",
    "StaticObject",
    "jaxmarl_layouts",
]
