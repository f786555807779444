"""A run's summary.json (play, human): means over its episodes, the agent's own useful events,
pooled intention accuracy, the interdependence means. Shared, so no front end imports another."""

from __future__ import annotations

import math
import statistics
from datetime import UTC, datetime

from proagent.runner.records import EpisodeRecord


def summary_of(records: list[EpisodeRecord], useful_events: tuple[str, ...]) -> dict:
    """summary.json of a run folder; ``useful_events``: the domain's event kinds that are an agent's own
    contribution."""
    scores = [r.score for r in records]
    mean = statistics.fmean(scores)
    alike = identical_episodes(records)
    # no spread from one episode, nor from copies of one: null, as the tables print no ±
    se = statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 and not alike else None
    return {
        "episodes": len(records),
        "identical_episodes": alike,
        "distinct_episodes": 1 if alike else len(records),
        "score_mean": mean,
        "score_se": se,
        **{f"{name}_mean": _mean_where_defined(records, name) for name in _metric_names(records)},
        "llm_calls_mean": statistics.fmean(r.llm_calls for r in records),
        "team_llm_calls_mean": statistics.fmean(
            r.team_llm_calls for r in records
        ),  # every seat's, not only the agent's
        "team_tokens_mean": statistics.fmean(r.team_tokens for r in records),
        "team_cost_usd_mean": statistics.fmean(r.team_cost_usd for r in records),
        "decisions_mean": statistics.fmean(r.decisions for r in records),
        "rejections_mean": statistics.fmean(r.rejections for r in records),
        "oscillations_mean": statistics.fmean(r.oscillations for r in records),
        "parse_failures_mean": statistics.fmean(r.parse_failures for r in records),
        "fallbacks_mean": statistics.fmean(r.fallbacks for r in records),
        "retries_mean": statistics.fmean(r.retries for r in records),
        "agent_events_mean": {
            k: statistics.fmean(own_events(r, useful_events)[k] for r in records) for k in useful_events
        },
        "intention_accuracy": _pooled_accuracy(records),
        **_interdependence_means(records),
        "finished": datetime.now(UTC).isoformat(),
    }


def _outcome(record: EpisodeRecord) -> tuple:
    """What an episode played out as: its score, length, events, metrics, shaped returns and the
    team's decisions and model calls (timings aside, which differ every run)."""
    return (record.score, record.steps, record.events, record.domain_metrics, record.shaped_return,
            record.decisions, record.team_llm_calls, record.rejections)  # fmt: skip


def identical_episodes(records: list[EpisodeRecord]) -> bool:
    """Two or more episodes that played out exactly alike (a fixed scenario with deterministic
    agents): one result repeated, so the summary counts it once and gives no standard error."""
    return len(records) > 1 and all(_outcome(r) == _outcome(records[0]) for r in records[1:])


def _metric_names(records: list[EpisodeRecord]) -> list[str]:
    """The domain metrics in the order the first record lists them (then any others)."""
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record.domain_metrics))
    return list(names)


def _mean_where_defined(records: list[EpisodeRecord], name: str) -> float | None:
    """The mean over the episodes that have the metric: one a game may lack (Yōkai's win rate of the
    games ended early) is undefined there, not zero; None (JSON null) where no episode has it."""
    values = [v for v in (r.metric(name, math.nan) for r in records) if not math.isnan(v)]
    return statistics.fmean(values) if values else None


def own_events(record: EpisodeRecord, useful_events: tuple[str, ...]) -> dict[str, int]:
    """How many useful events the agent in ``record.seat`` caused itself (not its teammates)."""
    return {kind: _seat_count(record.events.get(kind), record.seat) for kind in useful_events}


def _seat_count(counts: list[int] | None, seat: int) -> int:
    return counts[seat] if counts and seat < len(counts) else 0


def _interdependence_means(records: list) -> dict:
    """Cooperation metrics (proagent.interdependence) over the episodes; `proagent analyze` has the details."""
    scored = [r for r in records if r.int_total is not None]
    if not scored:
        return {}
    total = sum(r.int_total for r in scored)
    return {
        "interdependencies_mean": statistics.fmean(r.int_total for r in scored),
        "constructive_mean": statistics.fmean(r.int_constructive for r in scored),
        "non_constructive_mean": statistics.fmean(r.int_non_constructive for r in scored),
        "constructive_share": sum(r.int_constructive for r in scored) / total if total else None,
        "initiated_mean": [
            statistics.fmean(r.int_initiated[i] for r in scored) for i in range(len(scored[0].int_initiated))
        ],
        "accepted_mean": [
            statistics.fmean(r.int_accepted[i] for r in scored) for i in range(len(scored[0].int_accepted))
        ],
    }


def _pooled_accuracy(records: list) -> float | None:
    total = sum(r.intention_total for r in records)
    return sum(r.intention_hits for r in records) / total if total else None
