"""What `proagent eval` and `proagent ablate` share: the grid, agent and run flags, applying them
to a config, and running it (so neither command imports the other)."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from proagent.agent.clock import CLOCK_FALLBACKS, FALLBACK_HELP
from proagent.agent.clock import HELP as CLOCK_HELP
from proagent.bounded import small_whole
from proagent.cli.agent_options import PROBE_FORCED_HELP, adapter_file, add_pipeline_options
from proagent.cli.arg_types import (
    WALL_CLOCK_HELP,
    add_progress_options,
    clock_spec,
    concurrency_count,
    episode_count,
    horizon_steps,
    non_negative_int,
    positive_float,
    positive_int,
    run_name,
    seed_number,
    wall_clock_seconds,
    writable_folder,
)
from proagent.cli.eval_request import EvalRequest

if TYPE_CHECKING:
    from proagent.eval.ray_executor import RayExecutor
    from proagent.eval.world import World

# flag dest -> EvalConfig field, for flags that set top-level fields
GRID_FLAGS = MappingProxyType({
    **{f: f for f in (
        "name", "domain", "partners", "layouts", "seats", "topologies", "feedback", "repair", "episodes", "seed",
        "horizon",
    )},
    "wall_clock": "wall_clock_s",
})  # fmt: skip
RUN_FLAGS = MappingProxyType({
    "concurrency": "concurrency", "llm_concurrency": "llm_concurrency", "max_cost": "max_cost_usd",
    "max_failures": "max_failures", "trace": "trace", "stepping": "stepping", "cache": "cache",
    "cache_dir": "cache_dir",
})  # fmt: skip
AGENT_FLAGS = (
    "adapter", "clock", "clock_fallback", "llm", "api_base", "llm_timeout_s", "prompt", "belief", "memory_k",
    "memory_retrieval", "max_replans", "verificator", "loop_check", "legal_only", "belief_probe", "probe_forced",
)  # fmt: skip
# AgentSpec field -> the flag that sets it, for messages about a flag
AGENT_FLAG_NAMES = MappingProxyType({
    **{f: "--" + f.replace("_", "-") for f in AGENT_FLAGS},
    "llm_timeout_s": "--llm-timeout", "verificator": "--verificator/--no-verificator", "loop_check": "--no-loop-check",
})  # fmt: skip
LIST_FIELDS = ("partners", "layouts", "seats", "topologies")


def add_grid_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", type=run_name, help="run folder suffix")
    p.add_argument("--domain", help="the world: a built-in name or module:attribute (default overcooked)")
    p.add_argument(
        "--partners",
        help="comma list of partner names or checkpoint folders' paths, or 'proagent' (an LLM agent), or 'default' "
        "(each layout's default teammate: its best shipped partner) (default: default)",
    )
    p.add_argument("--layouts", help="comma list of layouts (default: the world's own, `proagent layouts`)")
    p.add_argument("--seats", help="the agent's seats: e.g. 0, 1 or 0,1 (default 0,1)")
    p.add_argument(
        "--topologies",
        help="comma list of MAEIL topologies (individual, debate, centralized, decentralized, broadcast_chain): "
        "each agent is also run in each (default: none, no conversation)",
    )
    p.add_argument(
        "--feedback",
        action="store_const",
        const=True,
        help="environment feedback: attach the world's constraint and dependency snapshot to the leader's messages "
        "(worlds that give one)",
    )
    p.add_argument(
        "--repair",
        choices=("off", "on", "both"),
        help="COOP²-Repair: on, or both (matched pairs: each episode also played without repair) (default off)",
    )
    p.add_argument("--episodes", type=episode_count, help="episodes per agent x partner x layout x seat (x topology)")
    p.add_argument("--seed", type=seed_number, help="episode i plays seed + i")
    p.add_argument("--horizon", type=horizon_steps, help="steps per episode (default: each layout's own, else 400)")
    p.add_argument("--wall-clock", type=wall_clock_seconds, metavar="S", help=WALL_CLOCK_HELP)
    p.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="an environment setting for every layout (repeatable), e.g. agent_view_size=2",
    )


def add_agent_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llm", help="model of every proagent agent: 'embedded', a litellm id or python:module:factory")
    p.add_argument("--api-base", help="OpenAI-compatible server URL for --llm")
    p.add_argument(
        "--llm-timeout",
        dest="llm_timeout_s",
        type=positive_float,
        help="seconds to wait for one LLM answer (default 60)",
    )
    p.add_argument("--prompt", help="prompt set (a folder in prompts/)")
    p.add_argument(
        "--adapter",
        type=adapter_file,
        metavar="PATH|none",
        help="the embedded model's LoRA adapter GGUF for every proagent agent, none: the raw model for every one "
        "(default: each agent's own, the raw model unless its config names one)",
    )
    p.add_argument("--clock", type=clock_spec, metavar="turns|tokens:N|seconds:S", help=CLOCK_HELP)
    p.add_argument("--clock-fallback", choices=CLOCK_FALLBACKS, help=FALLBACK_HELP)
    p.add_argument("--belief", choices=("replace", "annotate", "off"))
    p.add_argument("--memory-k", type=non_negative_int)
    add_pipeline_options(p)
    p.add_argument("--max-replans", type=non_negative_int)
    p.add_argument("--no-loop-check", dest="loop_check", action="store_const", const=False)
    p.add_argument("--legal-only", choices=("auto", "on", "off"))
    p.add_argument(
        "--belief-probe",
        dest="belief_probe",
        action="store_const",
        const=True,
        help="each turn, also ask every proagent agent what it believes of hidden facts (one more call; worlds with "
        "belief probes)",
    )
    p.add_argument(
        "--probe-forced",
        dest="probe_forced",
        action="store_const",
        const=True,
        help=PROBE_FORCED_HELP,
    )


def add_run_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--resume", type=Path, help="continue the run folder at this path (e.g. runs/<run>): skip its finished episodes"
    )
    p.add_argument(
        "--concurrency",
        type=concurrency_count,
        help="episodes in flight (default 8; 1 where every LLM agent plays the embedded model in this process)",
    )
    p.add_argument(
        "--llm-concurrency",
        type=positive_int,
        help="LLM requests in flight to each model endpoint over all episodes; on Ray, over all runs sharing it "
        "(default 32)",
    )
    p.add_argument("--max-cost", type=positive_float, help="USD: start no new episode once this much is spent")
    p.add_argument("--max-failures", type=positive_int)
    p.add_argument("--trace", action="store_const", const=True, help="write every step to trace.jsonl")
    p.add_argument("--stepping", choices=("lockstep", "single"), help="batch envs per layout (default) or not")
    p.add_argument("--no-cache", dest="cache", action="store_const", const=False)
    p.add_argument(
        "--cache-dir", type=writable_folder, help="the model-answer cache (default: .cache/llm in the current folder)"
    )
    p.add_argument(
        "--runs-dir", type=writable_folder, help="where run folders go (default: runs/ in the current folder)"
    )
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where episodes play: this process (default), or the workers of a Ray cluster (see docs/scale_out.md)",
    )
    p.add_argument(
        "--ray-address", help="with --executor ray: a running cluster's head, host:port (default: a local one)"
    )
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto")
    add_progress_options(p, "LLM calls")


def apply_flags(data: dict[str, Any], request: EvalRequest) -> dict[str, Any]:
    """``data`` with the flags that were given applied on top; defaults only where neither says."""
    from proagent.builder import parse_settings
    from proagent.eval.config import DEFAULT_PARTNER

    out = dict(data)
    given = request.model_dump()
    for dest, field in {**GRID_FLAGS, **RUN_FLAGS}.items():
        if given[dest] is not None:
            out[field] = _split(given[dest], field) if field in LIST_FIELDS else given[dest]
    if request.env:
        out["env"] = {**out.get("env", {}), **parse_settings(list(request.env))}
    if request.agents:
        out["agents"] = [{"kind": kind} for kind in _split(request.agents, "agents")]
    out.setdefault("agents", [{"kind": "proagent"}])
    out.setdefault("partners", [DEFAULT_PARTNER])
    out.setdefault("layouts", [default_layout(out.get("domain"))])
    agent_flags = {f: given[f] for f in AGENT_FLAGS if given[f] is not None}
    if "legal_only" in agent_flags:
        agent_flags["legal_only"] = {"auto": "auto", "on": True, "off": False}[agent_flags["legal_only"]]
    out["agents"] = [{**a, **agent_flags} if _is_proagent(a) else a for a in out["agents"]]
    if "concurrency" not in out and _local(request) and _only_embedded(out["agents"]):
        out["concurrency"] = 1  # one in-process model answers one call at a time: lanes would only take turns
    return out


def default_layout(domain: str | None) -> str:
    """The layout an evaluation plays when none is named: the world's own default (an unknown
    world is left for the config check, which reports it with the layout)."""
    from proagent.domains import get_domain
    from proagent.world.types import DomainInputError

    try:
        return get_domain(domain).default_layout()
    except DomainInputError:
        return ""


def _is_proagent(agent: Any) -> bool:
    return isinstance(agent, dict) and agent.get("kind", "proagent") == "proagent"


def _local(request: EvalRequest) -> bool:
    """Whether episodes play in this process (no Ray executor, no cluster address)."""
    return request.executor == "local" and request.ray_address is None


def _only_embedded(agents: list[Any]) -> bool:
    """Whether some agent is an LLM agent and every LLM agent plays the embedded model (each episode's
    decisions then wait for the one model; in flight together they also pay a state swap at each turn)."""
    from proagent.llm.factory import is_embedded_model

    llm_agents = [a for a in agents if _is_proagent(a)]
    return bool(llm_agents) and all(is_embedded_model(a.get("llm")) for a in llm_agents)


def _split(value: str, field: str) -> list:
    items = [v.strip() for v in str(value).split(",") if v.strip()]
    return [seat if field == "seats" and (seat := small_whole(v)) is not None else v for v in items]


def agent_flags_given(request: EvalRequest) -> dict[str, str]:
    """AgentSpec field -> the flag that set it, for each agent flag given on the command line."""
    given = request.model_dump()
    return {f: AGENT_FLAG_NAMES[f] for f in AGENT_FLAGS if given[f] is not None}


def resume_changes(request: EvalRequest) -> dict[str, Any]:
    """The config fields the flags would change (resume_run refuses all but execution ones)."""
    given = request.model_dump()
    changes = {field: given[dest] for dest, field in {**GRID_FLAGS, **RUN_FLAGS}.items() if given[dest] is not None}
    if request.env:
        changes["env"] = list(request.env)
    changes.update({f: given[f] for f in AGENT_FLAGS if given[f] is not None})
    if request.agents or request.config:
        changes["agents/config"] = True
    return changes


def execute(request: EvalRequest, data: dict[str, Any], ablation: Any) -> int:
    """Start (or resume) the run, play it, report. Shared by eval and ablate."""
    return execute_run(request, data, ablation)[0]


def execute_run(request: EvalRequest, data: dict[str, Any], ablation: Any) -> tuple[int, Path | None]:
    """`execute`, also giving the run folder (None when the run never started) for a command that
    reads the records afterwards (`proagent reproduce`)."""
    from rich.console import Console

    from proagent.builder import SetupError
    from proagent.eval.config import ConfigError, EvalConfig, validate_config
    from proagent.eval.progress import ProgressLines
    from proagent.eval.session import finish_run, play_run, resume_run, start_run
    from proagent.eval.world import World

    command = shlex.join(request.command_line)  # as typed (`main` sets it), recorded in the manifest
    world = World()
    console = Console()
    try:
        executor = connect_executor(request, world)
    except ValueError as exc:
        return error_exit(exc), None
    try:
        if request.resume is not None:
            handle = resume_run(request.resume, resume_changes(request), world, command)
        else:
            config = validate_config(apply_flags(data, request), str(request.config or "flags"), EvalConfig)
            if executor is not None:  # their processes start up while this one resolves the grid
                executor.start_workers_for([config])
            handle = start_run(config, world, command, request.runs_dir, ablation)
    except (ConfigError, SetupError) as exc:
        if executor is not None:
            executor.close()
        return error_exit(exc), None
    print(f"run folder: {handle.folder.path}", file=sys.stderr)
    lines = ProgressLines(request.progress_every, request.progress_seconds)
    try:
        outcome = asyncio.run(play_run(handle, world, request.progress, Console(stderr=True), lines, executor))
    finally:  # the workers stop however the run ends
        if executor is not None:
            executor.close()
    finish_run(handle, outcome, console)
    return (1 if outcome.failures or outcome.disk_error else 0), handle.folder.path


def connect_executor(request: EvalRequest, world: World) -> RayExecutor | None:
    """The Ray executor, connected and with every node checked, for ``--executor ray``; None for
    the local one. Runs before the run folder exists: a bad flag, a missing Ray or an unreachable
    cluster is one line (ValueError) and no folder."""
    if _local(request):
        return None  # no import of the Ray side at all
    from proagent.eval.ray_executor import ExecutorError, open_executor

    try:
        executor = open_executor(request.executor, request.ray_address, world)
    except ExecutorError as exc:
        raise ValueError(str(exc)) from None
    for warning in executor.warnings if executor is not None else []:
        print(f"warning: {warning}", file=sys.stderr)
    return executor


def error_exit(exc: Exception) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2
