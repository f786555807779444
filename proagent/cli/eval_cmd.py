"""`proagent eval`: agents x partners x layouts x seats x episodes, concurrent and resumable.

The grid comes from a TOML/YAML file, from flags, or both (flags win; agent flags such as
--llm or --memory-k apply to every 'proagent' agent). `--resume RUN` continues a run from its own
config.json, skipping finished episodes. The flags and the run itself are in `eval_run.py`,
shared with `proagent ablate`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from proagent.cli.eval_run import add_agent_flags, add_grid_flags, add_run_flags, error_exit, execute


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="evaluate agents with partners on layouts (tables, charts, resumable)")
    p.add_argument(
        "config", nargs="?", type=Path, help="a .toml/.yaml evaluation config (see runs/ablations/ for examples)"
    )
    p.add_argument("--agents", help="comma list: 'proagent' and/or partner names playing the agent's seat")
    add_grid_flags(p)
    add_agent_flags(p)
    add_run_flags(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.cli.eval_request import EvalRequest
    from proagent.eval.config import ConfigError, read_config_file
    from proagent.request import RequestError

    try:
        request = EvalRequest.from_args(args, args.config, args.agents)
        data = read_config_file(request.config) if request.config else {}
    except (ConfigError, RequestError) as exc:
        return error_exit(exc)
    return execute(request, data, ablation=None)


