"""The tables by name: the one place the command line looks a table up, so that each table has one
implementation and a target names it as data (``table = "yokai"`` in data/reproduce_targets.toml).

Modules are imported on use: a table pulls in its world, plotting and sometimes JAX, which a
`--list` or a dry run of another target must not pay for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, cast

from rich.console import Console

from proagent.tables.common import COMMON_FLAGS, Plan, TableSettings

TABLES = MappingProxyType({
    "overcooked_v2": "proagent.tables.overcooked_v2",
    "interdependence": "proagent.tables.interdependence",
    "cube_topologies": "proagent.tables.cube_topologies",
    "macrafter_topologies": "proagent.tables.macrafter_topologies",
    "coop2": "proagent.tables.coop2",
    "yokai": "proagent.tables.yokai",
    "realtime": "proagent.tables.realtime",
})  # fmt: skip


class TableModule(Protocol):
    """What a table module offers: its settings record, what it would play, and running it."""

    Settings: type[TableSettings]

    def plan(self, settings: Any) -> Plan: ...

    def run(self, settings: Any, console: Console) -> Path: ...


def table_module(name: str) -> TableModule:
    """The module of table ``name`` (a KeyError names the known ones)."""
    if name not in TABLES:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(TABLES)}")
    return cast(TableModule, importlib.import_module(TABLES[name]))


def table_flags(module: TableModule) -> tuple[str, ...]:
    """The reproduce flags (dests) the table takes: the common ones its settings have a field for."""
    return tuple(f for f in COMMON_FLAGS if f in module.Settings.model_fields)


def own_settings(module: TableModule) -> tuple[str, ...]:
    """The table's own settings, given with ``--set KEY=VALUE`` (the common flags aside)."""
    shared = {*COMMON_FLAGS, "command", "progress"}
    return tuple(f for f in module.Settings.model_fields if f not in shared)
