"""How far our numbers sit from a paper's, in standard errors: the short summary and the plot a
reproduction page carries under its table, so a reader sees at once where we are above or below
the paper and whether the gap is larger than the noise on both sides.

A cell's gap is ours minus the paper's mean; its standard error combines both sides' standard
errors (``√(se_ours² + se_paper²)``, the error of a difference of independent means), counting a
side that gives none (one episode, or a paper without error bars) as zero. Where neither side has
one, the cell has no z and is said so, never given a made-up certainty.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from proagent.eval.plots import new_figure
from proagent.eval.stats import MeanSE

CLEAR = 2.0  # |z| above this: a gap larger than the noise (about the 95% level)
LABELLED = 12  # the plot names its points up to this many cells
LISTED = 5  # the summary lists this many of the largest gaps


class Gap(BaseModel):
    """One cell with numbers on both sides."""

    label: str
    ours: MeanSE
    paper_mean: float
    paper_se: float | None = None

    @property
    def difference(self) -> float:
        assert self.ours.mean is not None
        return self.ours.mean - self.paper_mean

    @property
    def se(self) -> float | None:
        """The difference's standard error; None where neither side has one."""
        if self.ours.se is None and self.paper_se is None:
            return None
        return math.hypot(self.ours.se or 0.0, self.paper_se or 0.0)

    @property
    def z(self) -> float | None:
        """The gap in standard errors; None without one (and for a zero one: no spread to scale by)."""
        se = self.se
        return None if se is None or se == 0 else self.difference / se


def gaps(cells: Sequence[Gap]) -> list[Gap]:
    """The cells where ours has a number (the paper's always has one here)."""
    return [c for c in cells if c.ours.mean is not None]


def summary_markdown(cells: Sequence[Gap], digits: int = 1) -> str:
    """A few lines: above and below in how many cells, how many by more than CLEAR standard errors,
    and the largest gaps with their z."""
    both = gaps(cells)
    if not both:
        return "## Where we stand\n\nNo cell has both our number and the paper's: nothing to compare.\n"
    above = sum(c.difference > 0 for c in both)
    below = sum(c.difference < 0 for c in both)
    equal = f", equal in {len(both) - above - below}" if above + below < len(both) else ""
    zs = [c.z for c in both if c.z is not None]
    clear_above, clear_below = sum(z > CLEAR for z in zs), sum(z < -CLEAR for z in zs)
    unscored = len(both) - len(zs)
    no_z = (
        f"; {unscored} cell(s) have no standard error on either side (one episode, no error bar in the paper), so no z"
    )
    lines = [
        "## Where we stand",
        "",
        f"- Of {len(both)} cells with both numbers, ours is above the paper's in {above}, below in {below}{equal}.",
        (
            f"- By more than {CLEAR:g} standard errors of the difference (√(se_ours² + se_paper²)): above in "
            f"{clear_above}, below in {clear_below}, within in {len(zs) - clear_above - clear_below}"
            f"{no_z if unscored else ''}."
        ),
    ]
    largest = sorted((c for c in both if c.z is not None), key=lambda c: -abs(c.z or 0.0))[:LISTED]
    if largest:
        listed = [
            f"{c.label}: {c.paper_mean + c.difference:.{digits}f} vs {c.paper_mean:.{digits}f} (z = {c.z:+.1f})"
            for c in largest
        ]
        lines.append("- Largest gaps (ours vs the paper's): " + "; ".join(listed) + ".")
    return "\n".join(lines) + "\n"


def gap_plot(cells: Sequence[Gap], path: Path, title: str) -> Path | None:
    """Ours against the paper's mean, one point per cell with both sides' standard errors, and the
    line where they are equal; None (no file) when no cell has both numbers."""
    both = gaps(cells)
    if not both:
        return None
    fig = new_figure(5.2, 5.0)
    ax = fig.add_subplot()
    xs = [c.paper_mean for c in both]
    ys = [c.paper_mean + c.difference for c in both]  # ours
    xerr = [c.paper_se or 0.0 for c in both]
    yerr = [c.ours.se or 0.0 for c in both]
    ax.errorbar(xs, ys, xerr=xerr, yerr=yerr, fmt="o", markersize=4, capsize=2, linewidth=0.8, color="tab:blue")
    low, high = min(xs + ys + [0.0]), max(xs + ys)
    pad = 0.05 * (high - low or 1.0)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], linestyle="--", color="grey", linewidth=0.8)
    if len(both) <= LABELLED:
        for c, x, y in zip(both, xs, ys, strict=True):
            ax.annotate(c.label, (x, y), xytext=(3, 3), textcoords="offset points", fontsize=6)
    ax.set_xlabel("the paper's mean (± its standard error)")
    ax.set_ylabel("ours (± its standard error)")
    ax.set_title(title, fontsize=9)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path
