"""benchmarks/scale_out.py without a Ray runtime: the `proagent eval` command lines it times parse
and resolve to the grid it describes (local and on a cluster), and its table prints each ratio's
median, spread and repeats. Running it end to end starts a Ray runtime and two eval processes per
repeat: minutes on 2 busy cores for a 4-episode grid, and the same command on Ray is played by
tests/eval/test_ray_executor.py, so the suite checks the script's parts instead."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from proagent.cli import build_parser
from proagent.cli.eval_request import EvalRequest
from proagent.cli.eval_run import apply_flags
from proagent.eval.config import EvalConfig
from proagent.paths import PROJECT_ROOT

pytest.importorskip("ray")


@pytest.fixture(scope="module")
def scale_out():
    spec = importlib.util.spec_from_file_location("scale_out", PROJECT_ROOT / "benchmarks" / "scale_out.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["scale_out"] = module  # its dataclasses look their module up by name
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("scale_out", None)


@pytest.mark.parametrize("address", [None, "127.0.0.1:6379"])
def test_the_timed_eval_command_parses_into_the_api_grid(scale_out, address, tmp_path):
    argv = scale_out.eval_argv("http://127.0.0.1:9/v1", 4, 5, address, str(tmp_path))
    args = build_parser(only="eval").parse_args(argv)
    request = EvalRequest.from_args(args, args.config, args.agents)
    config = EvalConfig.model_validate(apply_flags({}, request))
    assert (config.partners, config.layouts, config.seats) == (["greedy"], ["cramped_room"], [0])
    assert (config.episodes, config.horizon, config.concurrency) == (4, 5, 4)
    assert [a.name for a in config.agents] == ["proagent"]
    assert (request.executor, request.ray_address) == (("ray", address) if address else ("local", None))


def test_the_report_prints_each_ratio_with_its_spread_and_repeats(scale_out, capsys):
    api = scale_out.Ratio("API-bound: wall(ray)/wall(local)", [1.5, 1.2, 2.0], "<= 1.1")
    scale_out.report([api], {"api local": [10.0, 12.0, 11.0], "api ray": [15.0, 14.4, 22.0]})
    out = capsys.readouterr().out
    assert re.search(
        r"\| API-bound: wall\(ray\)/wall\(local\) +\|   1\.50x \|   1\.20-2\.00 \|       3 \| <= 1\.1", out
    )
    assert re.search(r"api local +median  11\.00s", out) and re.search(r"api ray +median  15\.00s", out)
    assert "ray's extra wall per run: median 5.00s; a local run of >= 50s" in out  # extras 5.0, 2.4, 11.0
