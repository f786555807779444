"""The paper's statistical tests (App. E.8) and the rating-interdependence correlation, by scipy.

Each result carries its sample size, so a table never shows a p-value without the n it rests on;
where a test is undefined (fewer than two samples, no variance) the result says so (``None``)
instead of scipy's NaN and its runtime warning.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Sequence

from pydantic import BaseModel, Field
from scipy import stats


class Mean(BaseModel):
    mean: float | None
    se: float | None = Field(None, description="standard error; None below two samples")
    n: int


class TTest(BaseModel):
    """A t-test: ``mean`` is the sample's mean (one-sample) or the mean difference (paired);
    ``d`` is Cohen's d against the compared value (paired: d_z, the mean difference over the
    differences' standard deviation)."""

    n: int
    mean: float | None
    t: float | None = None
    df: int | None = None
    p: float | None = None
    d: float | None = None


class Correlation(BaseModel):
    n: int
    pearson_r: float | None = None
    pearson_p: float | None = None
    spearman_rho: float | None = None
    spearman_p: float | None = None


def mean_of(values: Sequence[float]) -> Mean:
    if not values:
        return Mean(mean=None, n=0)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None
    return Mean(mean=statistics.fmean(values), se=se, n=len(values))


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def one_sample(values: Sequence[float], neutral: float) -> TTest:
    """Student's one-sample t-test of the mean against ``neutral`` (two-sided), with Cohen's
    d = (mean - neutral) / sd."""
    n = len(values)
    result = TTest(n=n, mean=statistics.fmean(values) if values else None)
    if n < 2 or statistics.stdev(values) == 0:
        return result
    test = stats.ttest_1samp(values, neutral)
    d = (statistics.fmean(values) - neutral) / statistics.stdev(values)
    return result.model_copy(update={"t": _finite(test.statistic), "df": n - 1, "p": _finite(test.pvalue), "d": d})


def paired(first: Sequence[float], second: Sequence[float]) -> TTest:
    """The paired t-test of ``second`` - ``first`` (two-sided), with d_z."""
    if len(first) != len(second):
        raise ValueError("paired samples need the same length")
    diffs = [b - a for a, b in zip(first, second, strict=True)]
    n = len(diffs)
    result = TTest(n=n, mean=statistics.fmean(diffs) if diffs else None)
    if n < 2 or statistics.stdev(diffs) == 0:
        return result
    test = stats.ttest_rel(second, first)
    d = statistics.fmean(diffs) / statistics.stdev(diffs)
    return result.model_copy(update={"t": _finite(test.statistic), "df": n - 1, "p": _finite(test.pvalue), "d": d})


def correlation(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Pearson's r and Spearman's rho with their two-sided p; None below three pairs or where
    either side is constant (no correlation is defined)."""
    n = len(x)
    if n < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return Correlation(n=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a tie-heavy Likert sample may warn; the n is shown
        pearson = stats.pearsonr(x, y)
        spearman = stats.spearmanr(x, y)
    return Correlation(
        n=n,
        pearson_r=_finite(pearson.statistic),
        pearson_p=_finite(pearson.pvalue),
        spearman_rho=_finite(spearman.statistic),
        spearman_p=_finite(spearman.pvalue),
    )
