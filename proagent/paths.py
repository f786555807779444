"""Where the project's data folders live: prompts/, knowledge/, partners/, data/ at the repository
root; and where a user's own output goes: runs/ and the model-answer cache .cache/llm/ in the
current folder, so a user working from their own project folder finds their runs there, not inside
the installed package's tree.

The data folders are plain files on purpose (a template change needs no code change), so the
package is used from a checkout installed in editable mode, as the README says.
"""

from __future__ import annotations

from pathlib import Path

from proagent.bounded import small_whole

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PROMPTS_DIR = PROJECT_ROOT / "prompts"
KNOWLEDGE_DIR = PROJECT_ROOT / "knowledge"
RUNS_DIR = Path("runs")  # relative: the current folder's runs/ (made absolute when a run folder is created)
CACHE_DIR = Path(".cache") / "llm"  # relative: the current folder's model-answer cache
PARTNERS_DIR = PROJECT_ROOT / "partners"
DATA_DIR = PROJECT_ROOT / "data"  # shipped data sets (data/human/: the human-human trials behaviour cloning reads)

if not KNOWLEDGE_DIR.is_dir():  # pragma: no cover - only on a broken install
    raise ImportError(
        f"proagent data folders not found next to the package ({PROJECT_ROOT}); "
        "install from a checkout with `pip install -e .` as the README says"
    )


def partner_dir(world: str, layout: str, algo: str, root: Path = PARTNERS_DIR) -> Path:
    """The home of a trained partner: ``partners/<world>/<layout>/<algo>/`` (a ':' of a generated
    scenario name, e.g. CUBE's ``random:easy:3``, becomes '_'). Every partner lookup goes here."""
    return root / world / layout.replace(":", "_") / algo


def method_of(name: str) -> str:
    """A trained partner's method: its seeds of one recipe are ``<method>_s<seed>`` (``sp_s1`` ->
    ``sp``; ``sp`` itself is seed 0). The one place the seed naming is read."""
    head, sep, tail = name.rpartition("_s")
    return head if sep and small_whole(tail) is not None else name


def checkpoint_dir(path: Path) -> Path:
    """A checkpoint folder as given, or its new home when it names an Overcooked partner's old
    place ``partners/<layout>/<algo>/`` (before every world had its own folder) that is gone."""
    if path.exists():
        return path
    resolved = path.resolve()
    if not resolved.is_relative_to(PARTNERS_DIR):
        return path
    parts = resolved.relative_to(PARTNERS_DIR).parts
    if len(parts) == 2:
        moved = partner_dir("overcooked", parts[0], parts[1])
        if moved.exists():
            return moved
    return path
