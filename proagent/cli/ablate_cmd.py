"""`proagent ablate runs/ablations/<file>`: run an ablation (variants of one agent) and compare them.

The file is an evaluation config with ``base`` and ``variants`` instead of ``agents`` (see
runs/ablations/README.md). Flags override it as in `proagent eval`, e.g. ``--llm``/``--api-base``
to pick the model, ``--episodes 1 --horizon 60`` for a quick try, ``--resume`` to continue; a
flag that sets a field the variants vary (``--memory-k`` on the memory_k ablation) is refused, since
it would run every variant with one value under the variants' own labels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from proagent.cli.eval_run import add_agent_flags, add_grid_flags, add_run_flags


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ablate", help="run an ablation config from runs/ablations/ and compare its variants")
    p.add_argument("config", nargs="?", type=Path, help="an ablation .toml/.yaml file")
    add_grid_flags(p)
    add_agent_flags(p)
    add_run_flags(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.cli.eval_request import EvalRequest
    from proagent.cli.eval_run import agent_flags_given, error_exit, execute
    from proagent.eval.ablation import expand_ablation, refuse_varied_overrides
    from proagent.eval.config import ConfigError, read_config_file
    from proagent.request import RequestError

    try:
        request = EvalRequest.from_args(args, args.config, None)
    except RequestError as exc:
        return error_exit(exc)
    if request.resume is not None:
        return execute(request, {}, ablation=None)
    if request.config is None:
        print("error: give an ablation file (see runs/ablations/) or --resume RUN", file=sys.stderr)
        return 2
    try:
        data, ablation = expand_ablation(read_config_file(request.config), str(request.config))
        refuse_varied_overrides(ablation, agent_flags_given(request), str(request.config))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return execute(request, data, ablation=ablation)
