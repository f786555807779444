"""The constraints file: every dependency pinned, and the installed environment matches it.

The README installs with ``-c constraints.txt`` so that published numbers can be reproduced months
later with the same jax, flax, llama.cpp and litellm; CI installs exactly that way, so a mismatch
here means the pins and the install drifted apart.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

from proagent.paths import PROJECT_ROOT

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins() -> dict[str, str]:
    pins = {}
    for line in (PROJECT_ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin (name==version)"
            pins[_canonical(name)] = version
    return pins


def _dependencies() -> list[str]:
    data = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    return [_canonical(_NAME.match(d).group(0)) for d in data["project"]["dependencies"]]


def test_every_dependency_is_pinned_exactly():
    pins = _pins()
    missing = [d for d in _dependencies() if d not in pins]
    assert not missing, f"constraints.txt lacks pins for {missing}"
    assert "jaxlib" in pins  # jax's compiled half decides numerics too


def test_the_installed_versions_are_the_pinned_ones():
    pins = _pins()
    wanted = [*_dependencies(), "jaxlib"]
    drift = {d: (importlib.metadata.version(d), pins[d]) for d in wanted if importlib.metadata.version(d) != pins[d]}
    assert not drift, f"installed != pinned (installed, pinned): {drift}; install with -c constraints.txt"
