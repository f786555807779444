"""Evaluation harness: agents x partners x layouts x seats x episodes, concurrent and resumable,
with ProAgent-style tables and charts. `proagent eval`, `proagent ablate`, `proagent report`.

    from proagent.eval import EvalConfig, World, start_run, play_run, finish_run
"""

from proagent.eval.config import AgentSpec, ConfigError, EvalConfig
from proagent.eval.plan import EpisodeJob, EpisodeKey, plan_jobs
from proagent.eval.records import EpisodeLog, EvalRecord, read_records
from proagent.eval.runner import EvalOutcome, Evaluator
from proagent.eval.session import (
    RunHandle,
    finish_run,
    play_run,
    report_run,
    resume_run,
    start_run,
)
from proagent.eval.stats import METRICS, MeanSE, mean_se
from proagent.eval.world import World

__all__ = [
    "METRICS",
    "AgentSpec",
    "ConfigError",
    "EpisodeJob",
    "EpisodeKey",
    "EpisodeLog",
    "EvalConfig",
    "EvalOutcome",
    "EvalRecord",
    "Evaluator",
    "MeanSE",
    "RunHandle",
    "World",
    "finish_run",
    "mean_se",
    "plan_jobs",
    "play_run",
    "read_records",
    "report_run",
    "resume_run",
    "start_run",
]
