"""Whether a run played the paper's setting, so that a page sets our numbers beside a paper's only
when both were made alike.

A 100-step episode scores a fraction of a 400-step one, and an agent's mean over one partner is not
its mean over five: set against the paper's, such a number reads as a gap that is only a different
setup. So the paper's column is shown only when the run's horizon (the episodes' length), seats and
partners are the paper's, and its layouts too where a paper's cell pools layouts. Fewer episodes
are the same setting with wider error bars, so they never withhold the comparison. The paper's
setting is the target's own grid (data/reproduce_targets.toml), which states the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence

from proagent.eval.config import EvalConfig


def _names(values: Sequence[object]) -> str:
    return ", ".join(map(str, values))


def _steps(horizon: int | None) -> str:
    return "each layout's own" if horizon is None else str(horizon)


def setting_differences(run: EvalConfig, paper: EvalConfig, cell_keys: Sequence[str]) -> list[str]:
    """How ``run``'s setting differs from ``paper``'s in what decides a cell's number, each as
    "what: ours vs the paper's" (empty: like with like). ``cell_keys``: the fields a paper's cell is
    named by; a layout subset is still the paper's setting when each layout is its own cell."""
    found: list[str] = []
    if run.horizon != paper.horizon:
        found.append(f"steps per episode {_steps(run.horizon)} vs {_steps(paper.horizon)}")
    if sorted(run.seats) != sorted(paper.seats):
        found.append(f"seats {_names(sorted(run.seats))} vs {_names(sorted(paper.seats))}")
    if sorted(run.partners) != sorted(paper.partners):
        found.append(f"partners {_names(run.partners)} vs {_names(paper.partners)}")
    if "layout" not in cell_keys and sorted(run.layouts) != sorted(paper.layouts):
        found.append(f"layouts {_names(run.layouts)} vs {_names(paper.layouts)}")
    if sorted(run.topologies) != sorted(paper.topologies):
        found.append(f"topologies {_names(run.topologies)} vs {_names(paper.topologies)}")
    return found


def withheld_line(differences: Sequence[str]) -> str:
    """The one line a page carries in place of the paper's column."""
    return (
        "The paper's column is withheld: this run's setting is not the paper's ("
        + "; ".join(differences)
        + "), so its numbers would set unlike against unlike. Run at the target's setting to compare."
    )
