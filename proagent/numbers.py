"""How numbers read by people are written: scores, means with their uncertainty, episode numbers.

One module so that a score reads the same on an episode line, in a summary, a replay header and a
table (the same rounding everywhere), and so that an uncertainty is never shown where it cannot be
estimated (no "± 0.0" from a single episode). Episodes are counted from 1 in everything a person
reads; records and file names keep the 0-based ``episode`` index they store.
"""

from __future__ import annotations

import math

SCORE_DIGITS = 2  # scores are sums of rewards: integers in Overcooked, fractions in CUBE and shaped worlds


def format_score(value: float, digits: int = SCORE_DIGITS) -> str:
    """``value`` rounded to ``digits`` decimals, trailing zeros dropped: 5 -> "5", 5.5 -> "5.5",
    -0.20999999530613422 -> "-0.21", -0.001 -> "0" (never "-0")."""
    if not math.isfinite(value):
        return str(value)
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, never "-0.0" (a mean of tiny negative costs rounds to 0)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def format_mean(mean: float, se: float, n: int, digits: int = 1, identical: bool = False) -> str:
    """``mean ± se (n=…)``; below two samples there is no standard error to show, so only the value
    and ``n=1`` (or ``n=0`` with no value). ``identical``: the n samples are one result repeated (episodes
    that played out exactly alike), so no ± either: ``mean (n=5, identical)``."""
    if n <= 0:
        return "n/a (n=0)"
    if identical:
        return f"{_fixed(mean, digits)} (n={n}, identical)"
    if n < 2 or not math.isfinite(se):
        return f"{_fixed(mean, digits)} (n={n})"
    return f"{_fixed(mean, digits)} ± {_fixed(se, digits)} (n={n})"


def format_interval(low: float, high: float, digits: int = 1) -> str:
    """A confidence interval as ``[low, high]``, both ends rounded like `format_mean`'s mean."""
    return f"[{_fixed(low, digits)}, {_fixed(high, digits)}]"


def format_published(value: str, error: float | None) -> str:
    """A paper's own number as it printed it: ``value`` (already rounded as the paper has it) and its
    error bar, whatever the paper's kind (standard error over seeds, standard deviation); no n,
    since the paper's n is not ours to state."""
    return value if error is None else f"{value} ± {error:g}"


def format_score_mean(mean: float, se: float | None, n: int) -> str:
    """A mean score beside the episodes' own scores: both numbers by `format_score`, so a single
    episode's summary reads exactly as its episode line (``5.5 (n=1)`` after ``score 5.5``)."""
    if n <= 0:
        return "n/a (n=0)"
    if n < 2 or se is None or not math.isfinite(se):
        return f"{format_score(mean)} (n={n})"
    return f"{format_score(mean)} ± {format_score(se)} (n={n})"


def episode_label(index: int) -> str:
    """The person-facing name of the episode stored with 0-based ``index``: ``episode 1`` for index 0."""
    return f"episode {index + 1}"
