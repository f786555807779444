"""Where the project's data folders live: prompts/, knowledge/, runs/, data/ at the repository root.

They are plain files on purpose (a template change needs no code change), so the package is used
from a checkout installed in editable mode, as the README says.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PROMPTS_DIR = PROJECT_ROOT / "prompts"
KNOWLEDGE_DIR = PROJECT_ROOT / "knowledge"
RUNS_DIR = PROJECT_ROOT / "runs"
PARTNERS_DIR = PROJECT_ROOT / "partners"
DATA_DIR = PROJECT_ROOT / "data"  # shipped data sets (data/human/: the human-human trials behaviour cloning reads)

if not KNOWLEDGE_DIR.is_dir():  # pragma: no cover - only on a broken install
    raise ImportError(
        f"proagent data folders not found next to the package ({PROJECT_ROOT}); "
        "install from a checkout with `pip install -e .` as the README says"
    )
