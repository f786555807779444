"""The generic interdependence package must stay world-neutral (the domain seam).

Everything Overcooked-specific lives in ``proagent.domains.overcooked.interdependence``; a word
of the kitchen creeping back into ``proagent/interdependence/`` means a domain detail leaked into
the shared analysis, which another domain would then inherit.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import proagent.interdependence

PACKAGE = Path(proagent.interdependence.__file__).parent
OVERCOOKED_NAMES = re.compile(r"KitchenState|KitchenMap|onion|soup|\bpot|envs\.overcooked|from envs|ingredient|dish|counter")


def test_the_generic_package_names_no_overcooked_thing():
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) >= 9
    hits = [f"{f.name}:{n}: {line.strip()}" for f in files for n, line in enumerate(f.read_text().splitlines(), 1) if OVERCOOKED_NAMES.search(line)]
    assert not hits, "Overcooked names in proagent/interdependence/ (move them to proagent/domains/overcooked/):\n" + "\n".join(hits)


def test_the_generic_package_imports_no_world_nor_agent():
    modules = [f"proagent.interdependence.{f.stem}" for f in sorted(PACKAGE.glob("*.py")) if f.stem != "__init__"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules)
    code += "print(sorted(m for m in sys.modules if m.split('.')[0] in ('envs', 'jax') or m.startswith(('proagent.domains.overcooked', 'proagent.agent'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
