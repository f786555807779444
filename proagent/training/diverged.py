"""A training run that stops when its losses stop being numbers: one line, and nothing of the bad
call is saved, so the run's last checkpoint stays its last good one. (Its settings are read field by
field before anything runs: `proagent.text_values`.)"""

from __future__ import annotations

import math
from pathlib import Path

LOSSES = ("value_loss", "actor_loss", "entropy", "approx_kl")  # what a PPO call's record carries


class TrainingDiverged(ValueError):
    """The losses became NaN or infinite: the run stops, its last good checkpoint is kept."""


def check_losses(record: dict, out_dir: Path | None, saved: tuple[str, ...]) -> None:
    """A `TrainingDiverged` of one line when a call's losses are not finite: nothing of this call
    is saved, so what the run saved before (``saved``: names in ``out_dir``) stays its last good state."""
    bad = [name for name in LOSSES if name in record and not math.isfinite(record[name])]
    if not bad:
        return
    kept = (
        f"the last good checkpoint in {out_dir} is kept"
        if out_dir is not None and any((out_dir / name).exists() for name in saved)
        else "no checkpoint was saved before it"
    )
    raise TrainingDiverged(
        f"training stopped at {record.get('env_steps', 0):,} env steps: {', '.join(bad)} became NaN or infinite "
        f"(try a smaller --set lr); {kept}"
    )
