"""`proagent reproduce NAME`: regenerate a published table with your own model, in one command.

The targets (data/reproduce_targets.toml) say which paper and table, the exact setting, and the one
implementation that runs it: an evaluation grid or an ablation file (played here, as `proagent eval`
and `proagent ablate` play them, then written beside the paper's numbers) or a table module of
proagent.tables (run in this process with the flags it takes; it writes its own page beside the
paper's; ``--set KEY=VALUE`` gives its own settings). `--list` shows the
targets, `--dry-run` the episodes, LLM calls, tokens and cost a run would take, without running.
Flags override the target's setting as in `proagent eval` (e.g. ``--episodes 1 --horizon 60`` for a
quick try); the table says the command that made it, so a changed setting is never mistaken for the paper's.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.cli.eval_run import AGENT_FLAGS, GRID_FLAGS, RUN_FLAGS, add_agent_flags, add_grid_flags, add_run_flags

if TYPE_CHECKING:
    from proagent.eval.config import EvalConfig
    from proagent.eval.manifest import EvalManifest
    from proagent.eval.records import EvalRecord
    from proagent.eval.reproduce import Estimate, Registry, Target
    from proagent.tables.common import Plan


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reproduce", help="regenerate a published table (see --list) beside the paper's numbers")
    p.add_argument("target", nargs="?", help="a target name from --list")
    p.add_argument("--list", action="store_true", help="list the targets: paper, table, setting, implementation")
    p.add_argument(
        "--dry-run", action="store_true", help="print the episodes, expected LLM calls, tokens and cost; run nothing"
    )
    p.add_argument(
        "--out",
        type=Path,
        help="the page, as PATH.md (default: in the run folder: reproduce.md for a grid target, TARGET.md for a "
        "table target; nothing is written into docs/ unless this flag names it)",
    )
    p.add_argument("--agents", help="eval targets: keep only these of the target's agents (comma list of kinds)")
    p.add_argument(
        "--set",
        dest="table_settings",
        action="append",
        metavar="KEY=VALUE",
        help="a table target's own setting (repeatable; --list names them), e.g. agents=careful,random",
    )
    add_grid_flags(p)
    add_agent_flags(p)
    add_run_flags(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.eval.reproduce import load_registry

    registry = load_registry()
    if args.list:
        return list_targets(registry)
    if args.target is None:
        return refuse("give a target name (see proagent reproduce --list)")
    target = registry.get(args.target)
    if target is None:
        return refuse(f"unknown target {args.target!r}; known: {', '.join(t.name for t in registry.targets)}")
    if target.implementation == "table":
        return run_table(target, args)
    if args.table_settings:
        return refuse(f"{target.name} is an evaluation grid: --set is for table targets (use the eval flags)")
    return run_grid(target, args)


def refuse(message: str) -> int:
    """One line (a config's problems, listed one a line by the validator, are joined), status 2."""
    print("error: " + " ".join(line.strip() for line in message.splitlines()), file=sys.stderr)
    return 2


def list_targets(registry: Registry) -> int:
    for t in registry.targets:
        paper = registry.papers[t.paper]
        print(f"{t.name}\n  paper: {paper.title} ({t.table})\n  setting: {t.setting}")
        where = t.config_file or (t.module and table_where(t.module)) or "the grid in data/reproduce_targets.toml"
        print(f"  runs: {t.implementation} ({where})\n  paper's numbers: {t.paper_numbers or t.paper_note}")
    return 0


def given_flags(args: argparse.Namespace) -> list[str]:
    """The dests of the eval flags given on the command line (those not left at None)."""
    dests = [*GRID_FLAGS, *RUN_FLAGS, *AGENT_FLAGS, "env", "runs_dir", "resume", "out", "agents"]
    return [d for d in dests if vars(args)[d] is not None]


def run_grid(target: Target, args: argparse.Namespace) -> int:
    """An eval or ablate target: validate (before any run folder), then dry-run or play and compare."""
    from proagent.cli.eval_request import EvalRequest
    from proagent.cli.eval_run import agent_flags_given, apply_flags, execute_run
    from proagent.eval.ablation import refuse_varied_overrides
    from proagent.eval.config import ConfigError
    from proagent.eval.reproduce import checked_config, grid_data
    from proagent.request import RequestError

    try:
        request = EvalRequest.from_args(args, None, None)  # --agents narrows the target's agents, below
        data, ablation = grid_data(target)
        if args.agents is not None:  # the target's agents keep their settings (e.g. Table 1's prompt set)
            data = narrowed_agents(data, args.agents, target.name)
        if ablation is not None:
            refuse_varied_overrides(ablation, agent_flags_given(request), target.name)
        config = checked_config(apply_flags(data, request), target.name)
    except (ConfigError, RequestError) as exc:
        return refuse(str(exc))
    problem = resume_problem(request.resume, config.name) if request.resume is not None else None
    if problem is not None:
        return refuse(problem)
    if args.dry_run:
        return dry_run(target, config, request.llm)
    code, folder = execute_run(request, data, ablation)
    if folder is not None:
        write_comparison(target, folder, args.out)
    return code


def narrowed_agents(data: dict, agents: str, name: str) -> dict:
    """The grid with only the named agents of the target (by kind or label), each with its settings."""
    from proagent.eval.config import ConfigError

    wanted = [a.strip() for a in agents.split(",") if a.strip()]
    known = [a.get("label") or a.get("kind", "proagent") for a in data.get("agents", [])]
    unknown = [a for a in wanted if a not in known]
    if unknown or not wanted:
        raise ConfigError(
            f"--agents: {name} has no agent {', '.join(unknown) or '(none named)'}; it has {', '.join(known)}"
        )
    return {**data, "agents": [a for a, k in zip(data["agents"], known) if k in wanted]}


def resume_problem(path: Path, name: str) -> str | None:
    """Why ``path`` cannot continue this target (None if it can): a run of another target would be
    finished and then compared with the wrong paper's numbers."""
    from proagent.eval.config import ConfigError
    from proagent.eval.manifest import load_manifest
    from proagent.runner.run_folder import RunFolder

    if not path.is_dir():
        return f"--resume: no run folder at {path}"
    try:
        found = load_manifest(RunFolder(path)).config.name
    except ConfigError as exc:
        return f"--resume: {exc}"
    return None if found == name else f"--resume: {path} is a run of {found!r}, not of this target ({name!r})"


def dry_run(target: Target, config: EvalConfig, llm: str | None) -> int:
    from proagent.eval.reproduce import episode_count, estimate

    model = llm or next((a.llm for a in config.agents if a.kind == "proagent"), None)
    llm_episodes = episode_count(config, llm_only=True)
    return print_estimate(target, estimate(target, episode_count(config), model, llm_episodes, config.horizon))


def print_estimate(target: Target, e: Estimate) -> int:
    """The dry run's lines: episodes, then the LLM calls, tokens and cost the measured figures give."""
    from proagent.llm.factory import EMBEDDED_SPEC

    model = e.model
    print(f"{target.name}: {e.episodes} episodes (nothing run)")
    if e.llm_episodes == 0:
        print("LLM calls and tokens: none (no LLM agent plays in this target)")
        return 0
    if e.llm_calls is None:
        print(f"LLM calls and tokens: not measured for this target ({e.llm_episodes} episodes with an LLM agent)")
        return 0
    assert e.prompt_tokens is not None and e.completion_tokens is not None
    print(
        f"expected LLM calls: {e.llm_calls:,.0f}; prompt tokens: {e.prompt_tokens:,.0f}; completion tokens: "
        f"{e.completion_tokens:,.0f}"
    )
    print(f"  (per-episode figures measured: {e.source})")
    if model == EMBEDDED_SPEC:
        print("expected cost: none to a provider (the embedded model runs on this machine)")
    elif e.cost_usd is None:
        print(f"expected cost: no list price for {model!r} in litellm's price table")
    else:
        print(f"expected cost with {model}: ${e.cost_usd:,.2f} (litellm's list prices; --max-cost caps a run)")
    return 0


def made_by(commands: list[str]) -> str:
    """The commands that made a run, as a page quotes them: the one that started it, then each that
    resumed it (the caller leaves out those that found nothing left to play), with the run folder
    (a path of the machine that made it) left out."""
    from proagent.tables_out import without_resume

    first, *later = [shlex.join(without_resume(shlex.split(c))) for c in commands]
    return "".join([f"`{first}`", *(f", then `{c} --resume <that run folder>`" for c in later)])


def write_comparison(target: Target, folder: Path, out: Path | None) -> None:
    """Our numbers from the run's records beside the paper's, with the commands that made them."""
    from proagent.eval.manifest import load_manifest
    from proagent.eval.model_names import eval_llm_seats, models_caption, models_short
    from proagent.eval.paper_gap import gap_plot
    from proagent.eval.paper_setting import withheld_line
    from proagent.eval.records import read_records
    from proagent.eval.reproduce_table import PaperNumbers, cell_gaps, compare, comparison_markdown, read_paper_numbers
    from proagent.paths import PROJECT_ROOT
    from proagent.runner.run_folder import RunFolder

    if target.paper_numbers is not None:
        paper = read_paper_numbers(PROJECT_ROOT / target.paper_numbers)
    else:  # a figure without numbers: ours alone, with what the paper says in words
        paper = PaperNumbers(source=f"{target.table}; {target.paper_note}", metric="score", rows=[])
    records = read_records(folder / "episodes.jsonl")
    manifest = load_manifest(RunFolder(folder))
    config = manifest.config
    differences = not_the_papers(target, config, paper.keys()) if paper.rows else []
    if differences:
        paper = paper.withheld(f"{target.table} of the {target.paper} paper, its numbers withheld (see above)")

    notes = [
        f"Setting (the target's own, before the flags of the command that made this page): {target.setting}.",
        f"Played: {played(config)}.",
        (
            f"Regenerate: {made_by([s.command for s in manifest.sessions if s.pending != 0])} (run folder "
            f"`{folder.name}`)."
        ),
        models_caption(eval_llm_seats(config, manifest.models)),
        *([withheld_line(differences)] if differences else []),
    ]
    title = f"{target.name}: {target.table}"
    rows = compare(records, paper)
    path = out.with_suffix(".md") if out is not None else folder / "reproduce.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    caption = f"{title}\n{models_short(eval_llm_seats(config, manifest.models))}"
    plot = gap_plot(cell_gaps(rows), path.with_name(path.stem + "_vs_paper.png"), caption)
    if plot is None and (folder / "scores.png").exists():  # nothing to set beside the paper: our scores alone
        plot = Path(shutil.copyfile(folder / "scores.png", path.with_name(path.stem + "_scores.png")))
    text = comparison_markdown(title, rows, paper, notes, plot) + variants_compared(records, manifest)
    path.write_text(text, encoding="utf-8")
    print(text)
    print(f"table: {path}", file=sys.stderr)


def variants_compared(records: list[EvalRecord], manifest: EvalManifest) -> str:
    """An ablation target's own table under the page's (each variant's values as run, its other
    metrics, the paired differences from the baseline), as `proagent ablate` writes it; else nothing."""
    from proagent.eval.ablation_table import ablation_markdown, ablation_table
    from proagent.eval.report import run_order

    if manifest.ablation is None:
        return ""
    table = ablation_table(records, manifest, run_order(manifest))
    return "\n## The variants compared\n\n" + ablation_markdown(table).split("\n\n", 1)[1] if table.rows else ""


def not_the_papers(target: Target, config: EvalConfig, keys: tuple[str, ...]) -> list[str]:
    """How the run's setting differs from the paper's (the target's own grid; empty: like with like)."""
    from proagent.eval.paper_setting import setting_differences
    from proagent.eval.reproduce import checked_config, grid_data

    return setting_differences(config, checked_config(grid_data(target)[0], target.name), keys)


def played(config: EvalConfig) -> str:
    """What the run behind a page played, from its config: a page made with smaller settings than
    the target's says so next to its numbers."""
    steps = f"{config.horizon} steps" if config.horizon is not None else "each layout's own horizon"
    return (
        f"{', '.join(config.layouts)}; seats {', '.join(map(str, config.seats))}; {steps}; "
        f"{config.episodes} episode(s) per agent, partner, layout and seat"
    )


def table_where(module: str) -> str:
    """Where a table target's implementation is, and the settings it takes with --set."""
    from proagent.tables.registry import TABLES, own_settings, table_flags, table_module

    if module not in TABLES:
        return module
    table = table_module(module)
    own = ", ".join(own_settings(table)) or "none"
    return f"{TABLES[module]}; flags: {flag_names(table_flags(table))}; --set: {own}"


def run_table(target: Target, args: argparse.Namespace) -> int:
    """A table target: refuse flags it does not take and bad settings (one line, before any run),
    then dry-run it or run it in this process."""
    from pydantic import ValidationError
    from rich.console import Console

    from proagent.tables.common import TableError
    from proagent.tables.registry import table_flags, table_module
    from proagent.tables.table_run import TableRunError

    assert target.module is not None
    module = table_module(target.module)
    takes = table_flags(module)
    unsupported = [d for d in given_flags(args) if d not in takes]
    if unsupported:
        return refuse(f"{target.name} takes no {flag_names(unsupported)} (it takes: {flag_names(takes)}, and --set)")
    try:
        settings = module.Settings.model_validate(
            table_settings(target, args, takes) if args.resume is None else resumed_table(target, args, takes)
        )
    except TableRunError as exc:
        return refuse(str(exc))
    except ValidationError as exc:
        return refuse(f"{target.name}: {settings_problem(exc)}")
    except ValueError as exc:
        return refuse(f"{target.name}: {exc}")
    if args.dry_run:
        return table_dry_run(target, module.plan(settings), args.llm)
    try:
        page = module.run(settings, Console(stderr=True))
    except TableError as exc:
        return refuse(f"{target.name}: {exc}")
    print(page.read_text(encoding="utf-8"))
    print(f"table: {page}", file=sys.stderr)
    return 0


def table_settings(target: Target, args: argparse.Namespace, takes: tuple[str, ...]) -> dict[str, object]:
    """The target's settings, then the flags given, then ``--set`` pairs, and the command line."""
    from proagent.tables_out import without_resume

    out: dict[str, object] = dict(target.settings)
    out.update({d: vars(args)[d] for d in takes if vars(args)[d] is not None})
    for pair in args.table_settings or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--set {pair!r}: give KEY=VALUE")
        out[key.strip().replace("-", "_")] = value
    out["command"] = shlex.join(without_resume(args.command_line))  # run folders stay on the machine that made them
    out["target"] = target.name
    if args.progress is not None:
        out["progress"] = args.progress
    return out


def resumed_table(target: Target, args: argparse.Namespace, takes: tuple[str, ...]) -> dict[str, object]:
    """The settings of a table resumed from ``--resume``: the recorded ones, with only the flags a
    resume may change (a TableRunError names any other given)."""
    from proagent.tables.table_run import resumed_settings

    given: dict[str, object] = {d: vars(args)[d] for d in takes if d != "resume" and vars(args)[d] is not None}
    if args.table_settings:
        given["set"] = args.table_settings
    if args.progress is not None:
        given["progress"] = args.progress
    return resumed_settings(args.resume, target.name, given)


def settings_problem(exc: Exception) -> str:
    """A settings error in one line: each field and what is wrong with it."""
    from pydantic import ValidationError

    assert isinstance(exc, ValidationError)
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in exc.errors())


def table_dry_run(target: Target, plan: Plan, llm: str | None) -> int:
    from proagent.eval.reproduce import estimate
    from proagent.llm.factory import EMBEDDED_SPEC

    return print_estimate(
        target, estimate(target, plan.episodes, llm or EMBEDDED_SPEC, plan.llm_episodes, plan.horizon)
    )


def flag_names(dests: tuple[str, ...] | list[str]) -> str:
    """The flags as typed (``cache`` is set by ``--no-cache``)."""
    return ", ".join("--no-cache" if d == "cache" else "--" + d.replace("_", "-") for d in dests) or "none"
