"""`proagent play`: ProAgent with a partner on one layout; writes a run folder."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.cli.agent_options import SCRIPTED_NOTICE, add_agent_options, add_topology_options, embedded_notice
from proagent.cli.arg_types import (
    WALL_CLOCK_HELP,
    add_progress_options,
    episode_count,
    horizon_steps,
    non_negative_int,
    positive_int,
    run_name,
    seed_number,
    wall_clock_seconds,
    writable_folder,
)
from proagent.numbers import episode_label, format_score, format_score_mean

if TYPE_CHECKING:
    from proagent.runner.episode import StepView


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play episodes of ProAgent with a partner")
    p.add_argument(
        "--layout",
        default=None,
        help="layout name (see `proagent layouts`) or path to a kitchen file (default: the world's own, "
        "counter_circuit in Overcooked)",
    )
    p.add_argument(
        "--partner",
        default=None,
        help="partner name (see `proagent partners`), a checkpoint folder's path (runs/train/<run>/), 'proagent' for "
        "copies of the agent, or one name per other seat (pusher,proagent); default: the world's own (greedy in "
        "classic kitchens, the best-scoring sp seed of the layout on V2 ones, pusher in CUBE)",
    )
    p.add_argument("--seat", type=non_negative_int, default=0, help="ProAgent's player index (0..agents-1)")
    p.add_argument(
        "--domain",
        default=None,
        help="the world: a built-in name or module:attribute (default: the one owning --layout)",
    )
    p.add_argument(
        "--agents",
        type=positive_int,
        default=None,
        help="team size, where the domain can change it (CUBE); default: the layout's",
    )
    p.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="an environment setting (repeatable), e.g. agent_view_size=2, wrong_soup_penalty=false (default: the "
        "layout's own)",
    )
    add_topology_options(p)
    p.add_argument("--episodes", type=episode_count, default=1)
    p.add_argument(
        "--horizon", type=horizon_steps, default=None, help="steps per episode (default: the layout's own, else 400)"
    )
    p.add_argument("--wall-clock", type=wall_clock_seconds, default=None, metavar="S", help=WALL_CLOCK_HELP)
    p.add_argument("--seed", type=seed_number, default=0)
    add_agent_options(p)
    p.add_argument("--name", default=None, type=run_name, help="run folder suffix (default play-<layout>-<partner>)")
    p.add_argument(
        "--runs-dir",
        type=writable_folder,
        default=None,
        help="where run folders go (default: runs/ in the current folder)",
    )
    p.add_argument("--no-gif", action="store_true")
    p.add_argument("--live", choices=("auto", "on", "off"), default="auto", help="live terminal view (auto: if a TTY)")
    add_progress_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.cli.requests import PlayRequest
    from proagent.cli.setup import SetupError, build_session
    from proagent.llm.scripted import is_scripted

    try:
        request = PlayRequest.from_args(args)
        session = build_session(request)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if session.embedded:
        print(embedded_notice(request.llm.adapter_file), file=sys.stderr)
    elif is_scripted(args.llm):
        print(SCRIPTED_NOTICE, file=sys.stderr)
    print(f"run folder: {session.folder.path}", file=sys.stderr)
    from proagent.llm.types import LLMError

    records: list = []
    try:
        asyncio.run(_play_all(args, session, records))
    except LLMError as exc:
        print(f"error: the LLM failed: {exc}", file=sys.stderr)
        _report_abort(records, session.folder.path, args.episodes, str(exc), session.domain.useful_events)
        return 1
    _print_summary(records, session.folder.path, session.domain.useful_events)
    return 0


def _report_abort(records: list, folder: Path, planned: int, reason: str, useful: tuple[str, ...]) -> None:
    """After a failure: the summary of what finished (if anything did), and only true claims about files."""
    if not records:
        print(f"no episode finished; the run folder {folder} keeps the config and the trace so far", file=sys.stderr)
        return
    from proagent.runner.run_folder import RunFolder
    from proagent.runner.summary import summary_of

    summary = {**summary_of(records, useful), "aborted": reason, "episodes_planned": planned}
    RunFolder(folder).write_json("summary.json", summary)
    print(
        f"{len(records)} of {planned} episode(s) finished; they are kept in {folder / 'episodes.jsonl'}, "
        f"their summary in {folder / 'summary.json'}",
        file=sys.stderr,
    )


async def _play_all(args: argparse.Namespace, session, records: list) -> None:
    """Play ``args.episodes`` episodes; each finished record is appended to ``records`` at once, so
    a failure in a later episode leaves the earlier ones for the summary."""
    from proagent.runner.episode import run_episode
    from proagent.runner.summary import own_events
    from proagent.world.kit.pictures import GifRecorder

    live = args.live == "on" or (args.live == "auto" and sys.stdout.isatty())
    for episode in range(args.episodes):
        seed = args.seed + episode
        team = session.new_team()
        rendering = session.domain.capabilities.rendering
        picture = session.folder.path / ("episode.gif" if episode == 0 else f"episode-{episode}.gif")
        gif = (
            None if args.no_gif or rendering is None
            else GifRecorder(session.env, rendering, picture, seats=len(team), score_text=format_score)
        )  # fmt: skip
        with _progress_view(args, session, live, episode) as progress:
            on_step = progress if gif is None else _scoring(gif, progress)
            record = await run_episode(
                session.env,
                session.domain,
                team,
                args.seat,
                seed,
                episode,
                trace=lambda r: session.folder.append_jsonl("trace.jsonl", r),
                on_step=on_step,
                states=gif,
                topology=session.topology,
                wall_clock_s=session.wall_clock_s,
                pace=session.pace(),
            )
        session.folder.append_jsonl("episodes.jsonl", record, durable=True)
        if gif is not None and len(gif):
            gif.save()
        records.append(record)
        own = ", ".join(
            f"{n} {kind.replace('_', ' ')}" for kind, n in own_events(record, session.domain.useful_events).items()
        )
        outcomes = ", ".join(f"{value:g} {name.replace('_', ' ')}" for name, value in record.domain_metrics.items())
        print(
            f"{episode_label(episode)}: score {format_score(record.score)} ({outcomes}), {record.decisions} decisions, "
            f"{_calls(record)}, {record.rejections} rejected plans, {record.parse_failures} unreadable "
            f"answers, {record.fallbacks} fallbacks, {record.retries} retries, {record.oscillations} loops detected, "
            f"{record.wall_time_s:.1f} s{_ended(record)}; "
            f"the agent's own events: {own}",
            file=sys.stderr,
        )


@contextmanager
def _progress_view(args: argparse.Namespace, session, live: bool, episode: int) -> Iterator[Callable[[StepView], None]]:
    """The episode's step callback: the live view (with a spinner per decision) on a terminal, else
    plain progress lines on stderr every ``--progress-every`` decisions or ``--progress-seconds``."""
    from proagent.cli.live import LiveView
    from proagent.cli.progress_lines import PlainProgress, ProgressSettings

    label = f"{episode_label(episode)}/{args.episodes}"
    if live:
        with LiveView(session.domain, enabled=True, title=label) as view:
            yield view.update
        return
    settings = ProgressSettings(every_decisions=args.progress_every, every_s=args.progress_seconds)
    with PlainProgress(settings, label, lambda line: print(line, file=sys.stderr, flush=True)) as progress:
        yield progress.on_step


def _scoring(gif, progress: Callable[[StepView], None]) -> Callable[[StepView], None]:
    """The progress view's callback that also gives the GIF each step's score (its caption line)."""

    def on_step(view: StepView) -> None:
        gif.scored(view.score)
        progress(view)

    return on_step


def _ended(record) -> str:
    """A note on an episode the wall-clock budget ended (its steps fell short of the horizon)."""
    return f", ended by the wall clock after {record.steps} steps" if record.ended_by == "wall_clock" else ""


def _calls(record) -> str:
    """The agent's LLM calls, and the team's where other seats called an LLM too (copies of ProAgent)."""
    own = f"{record.llm_calls} LLM calls"
    if record.team_llm_calls == record.llm_calls:
        return own
    return f"{own} ({record.team_llm_calls} by the team, {record.team_tokens} tokens)"


def _print_summary(records: list, folder: Path, useful: tuple[str, ...]) -> None:
    from proagent.runner.run_folder import RunFolder
    from proagent.runner.summary import summary_of

    summary = summary_of(records, useful)
    RunFolder(folder).write_json("summary.json", summary)
    if summary["identical_episodes"]:
        score = format_score_mean(summary["score_mean"], None, 1)
        print(
            f"the {len(records)} episodes played out identically (same score, steps, events and decisions: a fixed "
            f"scenario with deterministic agents), so they count as one: score {score}; summary in "
            f"{folder / 'summary.json'}"
        )
    else:
        score = format_score_mean(summary["score_mean"], summary["score_se"], len(records))
        print(f"mean score over the episodes: {score}; summary in {folder / 'summary.json'}")
    if "constructive_mean" in summary:
        print(
            f"interdependencies {summary['interdependencies_mean']:.1f} per episode, "
            f"{summary['constructive_mean']:.1f} constructive; details: proagent analyze {folder}"
        )
