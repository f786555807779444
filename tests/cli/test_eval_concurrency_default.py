"""Episodes in flight default to one where every LLM agent plays the in-process embedded model: it
answers one call at a time, so more lanes only take turns on it and swap its state at each turn
(docs/main_job.md measures twice the wall time with two)."""

from __future__ import annotations

import pytest

from proagent.cli import build_parser
from proagent.cli.eval_request import EvalRequest
from proagent.cli.eval_run import apply_flags
from proagent.eval.config import EvalConfig


def _concurrency(*flags: str, data: dict | None = None) -> int:
    args = build_parser().parse_args(["eval", *flags])
    request = EvalRequest.from_args(args, None, args.agents)
    return EvalConfig.model_validate(apply_flags(dict(data or {}), request)).concurrency


@pytest.mark.parametrize(
    ("flags", "data", "expected"),
    [
        ((), None, 1),  # the default model is the embedded one
        (("--llm", "embedded"), None, 1),
        (("--concurrency", "4"), None, 4),  # a given count is kept
        ((), {"concurrency": 3}, 3),  # so is a config file's
        (("--llm", "scripted"), None, 8),  # no model to wait for: lanes batch the envs
        (("--llm", "openai/gpt-4o-mini"), None, 8),  # a server answers calls in parallel
        (("--agents", "greedy"), None, 8),  # no LLM agent at all
        (("--executor", "ray"), None, 8),  # each Ray worker loads its own model
    ],
)
def test_episodes_in_flight_default_to_one_on_the_embedded_model(flags, data, expected):
    assert _concurrency(*flags, data=data) == expected


def test_a_mixed_grid_keeps_the_default_when_one_agent_uses_a_server():
    data = {"agents": [{"kind": "proagent", "label": "small"}, {"kind": "proagent", "label": "big", "llm": "openai/x"}]}
    assert _concurrency(data=data) == 8
