"""Belief accuracy over turns from run folders played with ``--belief-probe`` (docs/results/yokai_beliefs.md).

    PYTHONPATH=. python scripts/yokai_beliefs.py RUN [RUN ...] --out beliefs.png [--layout 9c_2p] [--note TEXT]

Reads each run's episodes.jsonl (untrusted: every line passes the run-folder checks and each
probed turn a strict model; a bad one is skipped with a warning), averages the accuracy on the
cards the seat had seen and on those it never saw per turn over all episodes (of one layout with
``--layout``: layouts differ in cards and turns), draws both lines
with their episode counts, and prints the same numbers as a Markdown table. ``--note`` goes under
the title: say what played (a scripted test model is not an LLM).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.jsonl import read_jsonl
from proagent.llm.sanitize import clip
from proagent.run_lines import MAX_STEPS, episode_line

NOTE_MAX = 120  # characters of the note under the title
log = logging.getLogger("yokai_beliefs")


class ProbedTurn(BaseModel):
    """One entry of an episode record's ``belief_by_turn``, typed strictly (no "3" for 3)."""

    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False)

    turn: int = Field(ge=0, le=MAX_STEPS)
    seen_accuracy: float | None = Field(None, ge=0.0, le=1.0)
    unseen_accuracy: float | None = Field(None, ge=0.0, le=1.0)


Series = dict[int, list[float]]  # turn -> one accuracy per episode probed at that turn


def read_turns(runs: list[Path], layout: str | None = None) -> tuple[Series, Series, int]:
    """Seen and unseen accuracies per turn over every episode of ``runs`` (of ``layout``, if given),
    and the count of probed episodes."""
    seen: Series = defaultdict(list)
    unseen: Series = defaultdict(list)
    episodes = 0
    for run in runs:
        for record in read_jsonl(run / "episodes.jsonl", episode_line).records:
            if layout is not None and record.get("layout") != layout:
                continue
            turns = _typed_turns(record.get("belief_by_turn"), run)
            episodes += bool(turns)
            for t in turns:
                if t.seen_accuracy is not None:
                    seen[t.turn].append(t.seen_accuracy)
                if t.unseen_accuracy is not None:
                    unseen[t.turn].append(t.unseen_accuracy)
    return seen, unseen, episodes


def _typed_turns(raw: object, run: Path) -> list[ProbedTurn]:
    if not isinstance(raw, list):
        return []
    try:
        return [ProbedTurn.model_validate(t) for t in raw]
    except ValidationError as exc:
        log.warning("%s: an episode's belief_by_turn skipped (%s)", run.name, exc.errors()[0]["msg"])
        return []


def table(seen: Series, unseen: Series) -> str:
    """The means per turn as Markdown: turn, seen accuracy (n), unseen accuracy (n)."""
    lines = ["| turn | seen: mean accuracy | n | unseen: mean accuracy | n |", "|---:|---:|---:|---:|---:|"]
    for turn in sorted({*seen, *unseen}):
        s, u = seen.get(turn, []), unseen.get(turn, [])
        lines.append(f"| {turn} | {_mean(s)} | {len(s)} | {_mean(u)} | {len(u)} |")
    return "\n".join(lines)


def _mean(values: list[float]) -> str:
    return f"{statistics.fmean(values):.2f}" if values else "-"


def plot(seen: Series, unseen: Series, episodes: int, title: str, note: str, out: Path) -> Path:
    """Both series against the turn, on the Agg canvas (no display, no global backend switch)."""
    fig = Figure(figsize=(6.4, 4.0), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for series, label, colour in ((seen, "cards the seat had seen", "#4c72b0"), (unseen, "cards it never saw", "#dd8452")):
        turns = sorted(series)
        ax.plot(turns, [statistics.fmean(series[t]) for t in turns], marker="o", label=label, color=colour)
    ax.set_xlabel("turn (game step // 4, every player's turns counted)")
    ax.set_ylabel("belief accuracy (unknown counts as wrong)")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"Yōkai belief probes{title}: mean over {episodes} episode{'s' if episodes != 1 else ''}", fontsize=11)
    if note:
        fig.text(0.5, 0.01, note, ha="center", fontsize=8, style="italic")
    ax.legend(loc="center right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Yōkai belief accuracy over turns from --belief-probe runs")
    p.add_argument("runs", nargs="+", type=Path, help="run folders (each with episodes.jsonl)")
    p.add_argument("--out", type=Path, required=True, help="the PNG to write")
    p.add_argument("--layout", default=None, help="only the episodes of this layout")
    p.add_argument("--note", default="", help="a line under the plot: what played")
    args = p.parse_args(argv)
    missing = [str(r) for r in args.runs if not (r / "episodes.jsonl").is_file()]
    if missing:
        print(f"error: no episodes.jsonl in {', '.join(missing)}", file=sys.stderr)
        return 2
    seen, unseen, episodes = read_turns(args.runs, args.layout)
    if not episodes:
        print("error: no episode in these runs was played with --belief-probe", file=sys.stderr)
        return 2
    note = clip("".join(ch for ch in args.note if ch.isprintable()), NOTE_MAX) or ""
    title = f", {clip(args.layout, 40)}" if args.layout else ""
    print(f"wrote {plot(seen, unseen, episodes, title, note, args.out)}")
    print(table(seen, unseen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
