"""The package's shape: one agent core that knows no world by name, front ends that share a
builder instead of importing each other, and no import cycles."""

from __future__ import annotations

import re

import import_graph as ig

CORE_PACKAGES = ("proagent.agent", "proagent.runner", "proagent.eval", "proagent.llm", "proagent.interdependence", "proagent.web")
CORE_MODULES = ("proagent.contract", "proagent.builder", "proagent.domains", "proagent.domains.base", "proagent.jsonl", "proagent.tables_out")
# The names a world would leak into the core by: its state type, its objects, its package.
WORLD_NAMES = re.compile(r"KitchenState|onion|soup|\bpots?\b|envs\.overcooked|from envs\b|import envs\b|\bOvercookedEnv\b", re.IGNORECASE)


def _is_core(name: str) -> bool:
    return name in CORE_MODULES or any(name == p or name.startswith(p + ".") for p in CORE_PACKAGES)


HUMAN_FRONT_END = ("proagent.cli.human_cmd", "proagent.web.human_session", "proagent.web.human_app", "proagent.web.human_game")


def _front_end(name: str) -> str | None:
    """Which front end a module belongs to: a command (`proagent <cmd>`); `human` includes its web session."""
    if name in HUMAN_FRONT_END:
        return "human"
    if name.startswith("proagent.cli.") and name.endswith("_cmd"):
        return name.removeprefix("proagent.cli.").removesuffix("_cmd")
    return None


def test_the_core_names_no_world():
    offenders = []
    for name, path in ig.modules().items():
        if not _is_core(name):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WORLD_NAMES.search(line):
                offenders.append(f"{path.relative_to(ig.PACKAGE_ROOT.parent)}:{number}: {line.strip()}")
    assert offenders == [], "world names in the core:\n" + "\n".join(offenders)


def test_the_generic_web_pages_name_no_world():
    static = ig.PACKAGE_ROOT / "web" / "static"
    offenders = [
        f"{path.name}:{number}"
        for path in sorted([*static.glob("replay.*"), *static.glob("human.*")])
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if WORLD_NAMES.search(line)
    ]
    assert offenders == []


def test_no_import_cycles():
    assert ig.cycles(ig.graph()) == []


def test_no_front_end_imports_another():
    edges = ig.graph()
    crossing = sorted(
        f"{a} -> {b}" for a, targets in edges.items() if _front_end(a) for b in targets if _front_end(b) and _front_end(b) != _front_end(a)
    )
    assert crossing == []


def test_nothing_outside_the_cli_imports_it():
    edges = ig.graph()
    inward = sorted(f"{a} -> {b}" for a, targets in edges.items() if not a.startswith("proagent.cli") for b in targets if b.startswith("proagent.cli"))
    assert inward == []


# Lowest first; a unit imports only from its own unit or a lower layer. A world is
# ``proagent.domains.<name>``; the registry ``proagent.domains`` imports worlds only by name, on
# use (importlib), so it sits low: the RL program and the runner look worlds up through it.
LAYERS = (
    ("proagent.bounded", "proagent.untrusted"),  # the readers of untrusted text and files: import nothing of the project
    ("proagent", "proagent.world", "proagent.paths", "proagent.files", "proagent.jsonl", "proagent.tables_out", "proagent.limits",
     "proagent.compile_cache",
     "proagent.numbers", "proagent.run_lines", "proagent.text_values", "proagent.topologies", "proagent.request"),
    ("proagent.domains", "proagent.llm", "proagent.contract", "proagent.interdependence", "proagent.checkout", "proagent.cluster",
     "proagent.adapter_choice"),
    ("proagent.maeil", "proagent.training"),
    ("proagent.agent",),
    ("proagent.finetune",),  # teaches from the agent's traces, read with the agent's own reader
    ("world",),
    ("proagent.runner", "proagent.builder"),
    ("proagent.eval", "proagent.web"),
    ("proagent.study", "proagent.tables"),  # the published tables read the evaluation's records and may name worlds
    ("proagent.cli",),
)


def unit_of(module: str) -> str:
    """``proagent.x`` of a module, or ``proagent.domains.<world>`` for a world's modules."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "domains":
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def layer_of(unit: str) -> int | None:
    key = "world" if unit.startswith("proagent.domains.") else unit
    return next((i for i, layer in enumerate(LAYERS) if key in layer), None)


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    """Every import from a unit to another unit of its own layer or one above it."""
    out = []
    for a, targets in edges.items():
        for b in targets:
            ua, ub = unit_of(a), unit_of(b)
            if ua != ub and layer_of(ub) >= layer_of(ua):  # type: ignore[operator]
                out.append(f"{a} -> {b}")
    return sorted(out)


def test_every_package_has_a_layer():
    assert sorted({unit_of(m) for m in ig.modules() if layer_of(unit_of(m)) is None}) == []


def test_imports_point_down():
    """No upward import, no import between two units of one layer (so no world imports another)."""
    assert upward_imports(ig.graph()) == []


def test_worlds_are_reached_only_through_the_registry():
    """Only a world's own modules and the registry (which imports them lazily) import a world."""
    edges = ig.graph()
    direct = sorted(
        f"{a} -> {b}"
        for a, targets in edges.items()
        for b in targets
        if unit_of(b).startswith("proagent.domains.") and unit_of(a) not in (unit_of(b), "proagent.domains")
    )
    assert direct == []


def test_the_layer_check_would_fail_on_a_violation():
    """An upward import, a world importing another, and a same-layer import are all caught."""
    assert upward_imports({"proagent.world.types": {"proagent.web.server"}}) == ["proagent.world.types -> proagent.web.server"]
    assert upward_imports({"proagent.domains.cube.x": {"proagent.domains.overcooked.y"}}) != []
    assert upward_imports({"proagent.eval.a": {"proagent.web.b"}}) != []
    assert upward_imports({"proagent.cli.a": {"proagent.domains.cube.b", "proagent.world.types"}}) == []


def test_the_graph_reader_sees_lazy_and_relative_imports(tmp_path):
    """The checks above would fail on a violation: the reader finds imports inside functions and
    relative ones, and the name check matches a world's names."""
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from proagent.cli import play_cmd\n\nfrom .records import x\n")
    known = {"proagent.cli", "proagent.cli.play_cmd", "proagent.eval.records"}
    assert ig.imports_of(path, known, "proagent.eval") == {"proagent.cli.play_cmd", "proagent.eval.records"}
    assert ig.cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert all(WORLD_NAMES.search(text) for text in ("KitchenState", "an onion", "soups", "the pot", "from envs import make"))
    assert not any(WORLD_NAMES.search(text) for text in ("spot", "potential", "environment"))
