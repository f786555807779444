"""The one place that imports JaxMARL's OvercookedV2 engine.

JaxMARL prints to stdout when its environment package is imported, and its mabrax module resets
``sys.stdout``/``sys.stderr`` to the process's original streams (breaking any redirection or test
capture in force). An agent loop that renders a live view or pipes JSON must not get stray lines,
so the import is silenced here and the caller's streams are put back.
"""

from __future__ import annotations

import os
import sys
from functools import cache


def _import_quietly() -> None:
    streams = (sys.stdout, sys.stderr)
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        import jaxmarl.environments.overcooked_v2  # noqa: F401
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
