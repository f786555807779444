"""Per-episode metrics and their mean ± standard error.

The standard error is the sample standard deviation (n - 1) over sqrt(n), as in ProAgent's
Table 1; with one episode it is undefined (None), not zero, so a single lucky episode does not
look certain. Metrics a record lacks (intention accuracy of a partner-agent) are skipped, and
``n`` says how many episodes a figure rests on.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Iterable, Mapping, Sequence
from types import MappingProxyType

from pydantic import BaseModel

from proagent.eval.records import EvalRecord
from proagent.numbers import format_interval, format_mean
from proagent.runner.summary import identical_episodes

# name -> description; the order is the order of report columns.
METRICS: MappingProxyType[str, str] = MappingProxyType({
    "score": "team score",
    "llm_calls": "LLM calls of the evaluated agent (planner, explainer)",
    "team_llm_calls": "LLM calls of the whole team (every seat's LLM agent)",
    "fresh_calls": "LLM calls of the evaluated agent not answered by the cache",
    "tokens": "prompt + completion tokens of the evaluated agent",
    "team_tokens": "prompt + completion tokens of the whole team",
    "llm_latency_s": "seconds waiting for the LLM",
    "spent_usd": "money the whole team spent (every seat; fresh calls only)",
    "decisions": "skills chosen",
    "rejections": "plans rejected by the Verificator",
    "replans_per_decision": "rejections + parse failures per decision",
    "parse_failures": "unreadable answers",
    "fallbacks": "decisions with no acceptable plan (waited)",
    "retries": "LLM requests retried (timeouts, 429, 5xx, malformed answers)",
    "oscillations": "undo loops detected (a skill undid the one before, no progress)",
    "skills_done": "skills completed",
    "skills_failed": "skills failed or timed out",
    "skill_success_rate": "skills completed / skills ended",
    "intention_accuracy": "teammate intentions predicted correctly",
    "skill_duration_mean": "steps per skill",
    "clock_idle_steps": "steps idle while a decision was under way (--clock tokens:N or seconds:S)",
    "clock_stale_steps": "steps acted on a skill decided on an earlier world (--clock tokens:N or seconds:S)",
    "clock_fallback_steps": "steps the fallback acted while a decision was under way (--clock-fallback)",
    "decisions_per_100_steps": "decisions per 100 steps (--clock tokens:N or seconds:S)",
    "decision_steps_mean": "world steps a decision took, mean (--clock tokens:N or seconds:S)",
    "overhead_ms_median": "agent time per decision outside the LLM (ms, median)",
    "wall_time_s": "episode wall time (s)",
    "int_total": "interdependent action pairs (proagent.interdependence)",
    "int_constructive": "constructive interdependencies (goal-reaching, non-looping)",
    "int_non_constructive": "non-constructive interdependencies",
    "int_constructive_share": "constructive / all interdependencies",
    "int_initiated_agent": "trigger actions of the agent (interdependencies it offered)",
    "int_accepted_agent": "partner trigger actions the agent acted upon",
    "int_initiated_partner": "trigger actions of the partner",
    "int_accepted_partner": "agent trigger actions the partner acted upon",
})


# What only an LLM agent has: undefined (skipped), not zero, for a partner playing the agent's seat.
LLM_METRICS = frozenset(
    {
        "llm_calls", "fresh_calls", "cached_calls", "tokens", "prompt_tokens", "completion_tokens", "llm_latency_s",
        "cost_usd", "decisions", "rejections", "replans_per_decision", "parse_failures", "fallbacks",
        "oscillations", "retries", "skills_done", "skills_failed", "skill_success_rate", "intention_accuracy",
        "intention_hits", "intention_total", "skill_duration_mean", "overhead_ms_median", "clock_idle_steps",
        "clock_stale_steps", "clock_fallback_steps", "decisions_per_100_steps", "decision_steps_mean",
    }
)  # fmt: skip


# Two-sided 95% critical values of Student's t for 1..30 degrees of freedom (scipy is not a
# dependency); beyond 30 the normal's 1.96 is within 2% of t.
T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
Z95 = 1.96
INTERVAL_NOTE = "95% t interval of the mean (t with n - 1 degrees of freedom; none below n = 2)"


RATE_NOTE = (
    "for a rate (a metric named …_rate, …_share or …_accuracy) the Wilson score interval, which stays within [0, 1]"
)
RATE_SUFFIXES = ("_rate", "_share", "_accuracy")


def is_rate(metric: str) -> bool:
    """A metric whose every value lies in [0, 1] (a share of attempts, decisions or predictions)."""
    return metric.endswith(RATE_SUFFIXES)


def wilson_interval(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``p`` over ``n`` trials: within [0, 1] however
    small n or extreme p (a t interval of a rate near 1 runs past 1). Over episodes' rates it treats
    each episode as one trial, which is wider than the rates' own spread: conservative."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def t_critical(df: int) -> float:
    """The two-sided 95% critical value of t with ``df`` degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError(f"t needs at least 1 degree of freedom, got {df}")
    return T95[df - 1] if df <= len(T95) else Z95


class MeanSE(BaseModel):
    n: int
    mean: float | None = None
    se: float | None = None
    # The n episodes played out exactly alike (a fixed scenario with deterministic agents): one result
    # repeated, so there is no spread to estimate and the cell says so instead of a "± 0.0" that looks
    # like n independent agreeing samples.
    identical: bool = False

    def text(self, digits: int = 1) -> str:
        """``mean ± se (n=…)`` by the one formatter (`proagent.numbers.format_mean`): no ± below n = 2,
        nor for identical episodes (``mean (n=5, identical)``)."""
        if self.mean is None:
            return format_mean(0.0, math.nan, 0, digits)
        return format_mean(self.mean, math.nan if self.se is None else self.se, self.n, digits, self.identical)

    def interval(self, rate: bool = False) -> tuple[float, float] | None:
        """The 95% t interval of the mean (``rate``: the Wilson score interval, within [0, 1]); None
        below two samples, where there is no spread to use."""
        if self.mean is None or self.se is None or self.n < 2 or self.identical:
            return None
        if rate:
            return wilson_interval(min(1.0, max(0.0, self.mean)), self.n)
        half = t_critical(self.n - 1) * self.se
        return self.mean - half, self.mean + half

    def interval_text(self, digits: int = 1, rate: bool = False) -> str:
        """``[low, high]``, or ``–`` where no interval can be estimated (n < 2)."""
        bounds = self.interval(rate)
        return "–" if bounds is None else format_interval(*bounds, digits)


def mean_se(values: Sequence[float]) -> MeanSE:
    n = len(values)
    if n == 0:
        return MeanSE(n=0)
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(n) if n > 1 else None
    return MeanSE(n=n, mean=mean, se=se)


def paired_difference(values: Mapping[Hashable, float], baseline: Mapping[Hashable, float]) -> MeanSE:
    """Mean ± se of ``values[k] - baseline[k]`` over the keys both have (episodes played on the same
    seed, layout, seat and partner), so that what the seed decides cancels out of the difference."""
    return mean_se([values[k] - baseline[k] for k in values if k in baseline])


def metric_value(record: EvalRecord, metric: str) -> float | None:
    """One episode's value of ``metric`` (a record field or a derived one); None if undefined."""
    if metric in LLM_METRICS and record.agent_kind != "proagent":
        return None
    if metric == "tokens":
        return float(record.prompt_tokens + record.completion_tokens)
    if metric == "fresh_calls":
        return float(record.llm_calls - record.cached_calls)
    if metric == "skill_success_rate":
        ended = record.skills_done + record.skills_failed
        return record.skills_done / ended if ended else None
    if (
        metric.startswith("int_")
        and metric in METRICS
        and metric not in ("int_total", "int_constructive", "int_non_constructive")
    ):
        return _interdependence_value(record, metric)
    if metric == "replans_per_decision":
        return (record.rejections + record.parse_failures) / record.decisions if record.decisions else None
    if metric in record.domain_metrics:
        return float(record.domain_metrics[metric])
    if record.process_metrics:
        process = process_value(record.process_metrics, metric)
        if process is not None:
            return process
    value = getattr(record, metric, None)
    return None if value is None else float(value)


# Derived cooperation-process metrics (MAEIL and the domain's constraints, `record.process_metrics`).
CONSTRAINTS = ("spatial", "temporal", "participation", "dependency")
PROCESS_METRICS: MappingProxyType[str, str] = MappingProxyType({
    "messages_per_step": "messages sent per environment step (model-written: say, directive)",
    "message_imbalance": "coefficient of variation of messages sent per agent",
    "interruptions": "message arrivals that interrupted an executing or waiting agent",
    "replans": "interrupted agents that changed plan",
    "resumption_rate": "interrupted agents that kept their plan / all interrupted",
    "plan_coherence": "share of committed plans on the most common target, per step",
    "rounds_per_step": "cognitive rounds per environment step",
    "decision_latency_ms": "wall time of the cognitive phase per step (ms)",
    "coop_rate": "task-steps with all four constraints satisfied / task-steps",
    **{f"c_rate_{c}": f"task-steps with the {c} constraint satisfied / task-steps" for c in CONSTRAINTS},
    **{
        f"failures_{c}": f"failed attempts attributed to the {c} constraint (MA-Crafter: the failed collections' {c} "
        "violations, fractional as EmCoop's)"
        for c in CONSTRAINTS
    },
})  # fmt: skip
# Metrics only some worlds record, shown where the records have them: capability changes dZ (worlds whose
# agents hold items and tools) and EmCoop's own episode metrics (MA-Crafter).
CAPABILITY_METRICS: MappingProxyType[str, str] = MappingProxyType({
    "dz_tools_gained": "tools gained (dZ > 0), summed over agents and steps",
    "dz_tools_lost": "tools lost (dZ < 0), summed over agents and steps",
    "dz_items_gained": "materials gained (dZ > 0), summed over agents and steps",
    "dz_items_lost": "materials lost (dZ < 0: crafted, placed, shared away), summed over agents and steps",
    # EmCoop's own episode metrics (MA-Crafter: proagent/domains/macrafter/constraints.py names the EmCoop code of each)
    "attempt_success_rate": "collection attempts that succeeded / attempt events (EmCoop's results table)",
    **{
        f"{c}_violation_rate": f"mean {c} violation 1 - min(score, 1) over attempt events (EmCoop's results table)"
        for c in ("spatial", "temporal", "dependency")
    },
    "C_plus": "C+: distinct tasks whose spatial, temporal or dependency count rose at some step (EmCoop)",
    "C_minus": "C-: distinct tasks whose spatial, temporal or dependency count fell at some step (EmCoop)",
    "delta_Z": "capability gain records - loss records, vitals and saplings aside (EmCoop's delta_Z)",
})  # fmt: skip


def process_value(process: dict[str, float], metric: str) -> float | None:
    """A process metric: recorded as is, or a rate derived from the constraint counts."""
    if metric in process:
        return float(process[metric])
    if metric == "coop_rate" and process.get("task_steps"):
        return process["coop_satisfied"] / process["task_steps"]
    if metric.startswith("c_rate_"):
        c = metric.removeprefix("c_rate_")
        total = process.get(f"c_plus_{c}", 0.0) + process.get(f"c_minus_{c}", 0.0)
        return process[f"c_plus_{c}"] / total if total else None
    return None


def domain_metric_names(records: Iterable[EvalRecord]) -> list[str]:
    """The domain's own metrics the records carry, in first-seen order (report columns after score)."""
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record.domain_metrics))
    return list(names)


def _interdependence_value(record: EvalRecord, metric: str) -> float | None:
    """Derived interdependence metrics; per-player counts are read from the agent's or the partner's seat."""
    if record.int_total is None:
        return None
    if metric == "int_constructive_share":
        return record.int_constructive / record.int_total if record.int_total else None
    if not metric.endswith("_agent") and len(record.int_initiated) != 2:
        return None  # "the partner" is one seat only in two-player episodes
    who = record.seat if metric.endswith("_agent") else 1 - record.seat
    counts = record.int_initiated if "_initiated_" in metric else record.int_accepted
    return float(counts[who]) if who < len(counts) else None


def metric_stat(records: Iterable[EvalRecord], metric: str) -> MeanSE:
    """Mean ± se of ``metric`` over ``records``; marked ``identical`` (no se) when the episodes played
    out exactly alike and gave one value (timings, which differ every run, keep their spread)."""
    records = list(records)
    values = [v for v in (metric_value(r, metric) for r in records) if v is not None]
    stat = mean_se(values)
    if len(values) > 1 and len(set(values)) == 1 and identical_episodes(records):
        return stat.model_copy(update={"se": None, "identical": True})
    return stat


def numeric_fields() -> set[str]:
    """Numeric record fields: usable as metrics besides the derived ones in METRICS."""
    numeric = (int, float, int | None, float | None)
    return {name for name, info in EvalRecord.model_fields.items() if info.annotation in numeric}


def unknown_metrics(metrics: Iterable[str], domain_metrics: Iterable[str] = ()) -> list[str]:
    """The names in ``metrics`` that are neither a record field, a derived metric nor one of the
    domain's metrics (``domain_metrics``)."""
    known = set(METRICS) | set(PROCESS_METRICS) | set(CAPABILITY_METRICS) | numeric_fields() | set(domain_metrics)
    return [m for m in metrics if m not in known]
