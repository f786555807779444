"""`proagent play`: ProAgent with a partner on one layout; writes a run folder."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path

from proagent.cli.arg_types import non_negative_int, positive_float, positive_int
from proagent.paths import PROJECT_ROOT

EMBEDDED_NOTICE = (
    "Using the embedded SmolLM2-135M model (no API key needed). It runs the real pipeline but "
    "plays weakly; pass --llm openai/<model> (or --llm openai/<name> --api-base URL for a local "
    "server) for a capable model."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play episodes of ProAgent with a partner")
    p.add_argument("--layout", default="counter_circuit", help="layout name or path to a kitchen file")
    p.add_argument("--partner", default="greedy", help="partner name (see `proagent partners`)")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0, help="ProAgent's player index")
    p.add_argument("--episodes", type=positive_int, default=1)
    p.add_argument("--horizon", type=positive_int, default=400)
    p.add_argument("--seed", type=non_negative_int, default=0)
    add_agent_options(p)
    p.add_argument("--name", default=None, help="run folder suffix (default play-<layout>-<partner>)")
    p.add_argument("--runs-dir", type=Path, default=None)
    p.add_argument("--no-gif", action="store_true")
    p.add_argument("--live", choices=("auto", "on", "off"), default="auto", help="live terminal view (auto: if a TTY)")
    p.set_defaults(run=run)


def add_agent_options(p: argparse.ArgumentParser) -> None:
    """The LLM agent's options, shared by `play` and `human --agent proagent`."""
    p.add_argument("--llm", default="embedded", help="'embedded' (default) or a litellm model id, e.g. openai/gpt-4o-mini")
    p.add_argument("--api-base", default=None, help="URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp)")
    p.add_argument("--prompt", default=None, help="prompt set: a folder in prompts/ (default: compact for the embedded model, else proagent)")
    p.add_argument("--belief", choices=("replace", "annotate", "off"), default="replace")
    p.add_argument("--memory-k", type=non_negative_int, default=5, help="recent trajectory records shown to the planner")
    p.add_argument("--max-replans", type=non_negative_int, default=4)
    p.add_argument("--no-verificator", action="store_true", help="accept any parsed plan without checking it")
    p.add_argument(
        "--no-loop-check",
        action="store_true",
        help="let the agent repeat a skill its last skill just undid (loops are still counted as 'oscillations')",
    )
    p.add_argument(
        "--legal-only",
        choices=("auto", "on", "off"),
        default="auto",
        help="offer the model only skills whose preconditions hold (auto: on for the embedded model)",
    )
    p.add_argument("--llm-timeout", type=positive_float, default=60.0, help="seconds to wait for one LLM answer before retrying")
    p.add_argument("--cache-dir", type=Path, default=PROJECT_ROOT / ".cache" / "llm", help="LLM response cache")
    p.add_argument("--no-cache", action="store_true")


def run(args: argparse.Namespace) -> int:
    from proagent.cli.setup import SetupError, build_session

    try:
        session = build_session(args)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if session.embedded:
        print(EMBEDDED_NOTICE, file=sys.stderr)
    print(f"run folder: {session.folder.path}", file=sys.stderr)
    from proagent.llm.types import LLMError

    records: list = []
    try:
        asyncio.run(_play_all(args, session, records))
    except LLMError as exc:
        print(f"error: the LLM failed: {exc}", file=sys.stderr)
        _report_abort(records, session.folder.path, args.episodes, str(exc))
        return 1
    _print_summary(records, session.folder.path)
    return 0


def _report_abort(records: list, folder: Path, planned: int, reason: str) -> None:
    """After a failure: the summary of what finished (if anything did), and only true claims about files."""
    if not records:
        print(f"no episode finished; the run folder {folder} keeps the config and the trace so far", file=sys.stderr)
        return
    from proagent.runner.run_folder import RunFolder

    summary = {**summary_of(records), "aborted": reason, "episodes_planned": planned}
    RunFolder(folder).write_json("summary.json", summary)
    print(
        f"{len(records)} of {planned} episode(s) finished; they are kept in {folder / 'episodes.jsonl'}, "
        f"their summary in {folder / 'summary.json'}",
        file=sys.stderr,
    )


async def _play_all(args: argparse.Namespace, session, records: list) -> None:
    """Play ``args.episodes`` episodes; each finished record is appended to ``records`` at once, so
    a failure in a later episode leaves the earlier ones for the summary."""
    from proagent.cli.live import LiveView
    from proagent.runner.episode import run_episode

    live = args.live == "on" or (args.live == "auto" and sys.stdout.isatty())
    for episode in range(args.episodes):
        seed = args.seed + episode
        agent, partner = session.new_agent(seed), session.new_partner()
        states: list | None = None if args.no_gif else []
        with LiveView(enabled=live, title=f"episode {episode + 1}/{args.episodes}") as view:
            record = await run_episode(
                session.env,
                agent,
                partner,
                args.seat,
                seed,
                episode,
                trace=lambda r: session.folder.append_jsonl("trace.jsonl", r),
                on_step=view.update,
                states=states,
            )
        session.folder.append_jsonl("episodes.jsonl", record, durable=True)
        if states:
            _save_gif(session, states, episode)
        records.append(record)
        own = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in own_events(record).items())
        print(
            f"episode {episode}: score {record.score:.0f} ({record.soups} soups), {record.decisions} decisions, "
            f"{record.llm_calls} LLM calls, {record.rejections} rejected plans, {record.parse_failures} unreadable "
            f"answers, {record.fallbacks} fallbacks, {record.retries} retries, {record.oscillations} loops detected, "
            f"{record.wall_time_s:.1f} s; "
            f"the agent's own events: {own}",
            file=sys.stderr,
        )


def _save_gif(session, states: list, episode: int) -> None:
    from envs import render_rgb_batch, save_gif, stack_states

    frames = render_rgb_batch(stack_states(states), session.env.dynamics.agent_view_size)
    name = "episode.gif" if episode == 0 else f"episode-{episode}.gif"
    save_gif(frames, session.folder.path / name, fps=8)


def _print_summary(records: list, folder: Path) -> None:
    from proagent.runner.run_folder import RunFolder

    summary = summary_of(records)
    RunFolder(folder).write_json("summary.json", summary)
    print(f"score {summary['score_mean']:.1f} ± {summary['score_se']:.1f} over {len(records)} episode(s); summary in {folder / 'summary.json'}")
    if "constructive_mean" in summary:
        print(
            f"interdependencies {summary['interdependencies_mean']:.1f} per episode, "
            f"{summary['constructive_mean']:.1f} constructive; details: proagent analyze {folder}"
        )


def summary_of(records: list) -> dict:
    """summary.json of a run folder (also written by `proagent human`)."""
    scores = [r.score for r in records]
    mean = statistics.fmean(scores)
    se = statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else 0.0
    return {
        "episodes": len(records),
        "score_mean": mean,
        "score_se": se,
        "soups_mean": statistics.fmean(r.soups for r in records),
        "llm_calls_mean": statistics.fmean(r.llm_calls for r in records),
        "decisions_mean": statistics.fmean(r.decisions for r in records),
        "rejections_mean": statistics.fmean(r.rejections for r in records),
        "oscillations_mean": statistics.fmean(r.oscillations for r in records),
        "parse_failures_mean": statistics.fmean(r.parse_failures for r in records),
        "fallbacks_mean": statistics.fmean(r.fallbacks for r in records),
        "retries_mean": statistics.fmean(r.retries for r in records),
        "agent_events_mean": {k: statistics.fmean(own_events(r)[k] for r in records) for k in USEFUL_EVENTS},
        "intention_accuracy": _pooled_accuracy(records),
        **_interdependence_means(records),
        "finished": datetime.now(UTC).isoformat(),
    }


USEFUL_EVENTS = ("put_in_pot", "fill_dish", "deliver")  # the agent's own contribution to soups


def own_events(record) -> dict[str, int]:
    """How many useful events the agent in ``record.seat`` caused itself (not its partner)."""
    return {kind: record.events.get(kind, [0, 0])[record.seat] for kind in USEFUL_EVENTS}


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
        "initiated_mean": [statistics.fmean(r.int_initiated[i] for r in scored) for i in (0, 1)],
        "accepted_mean": [statistics.fmean(r.int_accepted[i] for r in scored) for i in (0, 1)],
    }


def _pooled_accuracy(records: list) -> float | None:
    total = sum(r.intention_total for r in records)
    return sum(r.intention_hits for r in records) / total if total else None
