"""Helpers for the evaluation tests: a scripted LLM that cooks sensibly, a priced one, small configs.

Nothing here touches a network: the "LLM" is a ScriptedModel answering with the Overcooked loopback
responder (from each request's grounding), so episodes score and make a realistic number of calls.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from proagent.eval.config import AgentSpec, EvalConfig
from proagent.eval.records import EvalRecord
from proagent.eval.runner import EvalOutcome
from proagent.eval.session import RunHandle, play_run, report_run, start_run
from proagent.eval.world import World
from tests.support.priced import PricedModel, respond

__all__ = ["PricedModel", "comparable", "config", "lines", "play", "rec", "respond", "run_eval", "spec"]

HORIZON = 40  # one horizon for every test: the envs (and their compiled steps) are shared
TIMING_FIELDS = {"wall_time_s", "llm_latency_s", "overhead_ms_median", "attempt", "cached_calls", "spent_usd", "cost_usd", "team_cost_usd"}


def config(**overrides: Any) -> EvalConfig:
    base: dict[str, Any] = {
        "name": "t",
        "agents": [{"kind": "proagent", "llm": "scripted"}, {"kind": "greedy"}],
        "partners": ["greedy", "stay"],
        "layouts": ["cramped_room"],
        "seats": [0, 1],
        "episodes": 2,
        "horizon": HORIZON,
        "concurrency": 4,
        "cache": False,
    }
    return EvalConfig.model_validate({**base, **overrides})


def play(handle: RunHandle, world: World) -> EvalOutcome:
    return asyncio.run(play_run(handle, world, progress="off"))


def run_eval(cfg: EvalConfig, world: World, runs: Path) -> tuple[RunHandle, EvalOutcome]:
    """Start, play and report a run, as `proagent eval` does (without printing)."""
    handle = start_run(cfg, world, "pytest", runs)
    outcome = play(handle, world)
    report_run(handle.folder.path)
    return handle, outcome


def comparable(records: list[EvalRecord]) -> dict[str, dict]:
    """Records by key without the fields that depend on timing or on the cache."""
    return {r.key.id: _untimed(r.model_dump(exclude=TIMING_FIELDS)) for r in records}


def _untimed(record: dict) -> dict:
    """Each seat's agent_stats and usage without its timing and cache fields, like the top-level ones."""
    def untimed(seats: list[dict]) -> list[dict]:
        return [{k: v for k, v in stats.items() if k not in TIMING_FIELDS} for stats in seats]

    return {**record, "agent_stats": untimed(record["agent_stats"]), "seat_usage": untimed(record["seat_usage"])}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def spec(**fields: Any) -> AgentSpec:
    return AgentSpec.model_validate(fields)


def rec(agent: str, partner: str, seat: int, episode: int, score: float, **extra: Any) -> EvalRecord:
    """A record of a finished episode on cramped_room with these fields (others: plausible constants)."""
    base = {
        "episode": episode, "seed": episode, "layout": "cramped_room", "partner": partner, "seat": seat, "score": score,
        "soups": int(score // 20), "steps": 400, "wall_time_s": 1.0, "shaped_return": [0.0, 0.0], "agent": agent,
        "agent_kind": "proagent",
    }  # fmt: skip
    return EvalRecord(**{**base, **extra})
