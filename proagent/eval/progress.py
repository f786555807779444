"""Live progress of an evaluation: episodes and steps with ETA, LLM calls, tokens and money so far.

The display polls `Evaluator.snapshot()` from a small asyncio task twice a second instead of
being pushed every step: 32 episodes x 400 steps of pushes would cost more than the display.
Without a terminal it prints one line per finished episode instead (CI logs stay readable), and a
progress line every ``every_calls`` LLM calls or ``every_s`` seconds, whichever comes first, and
once at the end (episodes, steps, mean score with its n, LLM calls, seconds per call, money), so a
log shows signs of life while long episodes run.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from proagent.eval.records import EvalRecord
from proagent.eval.runner import Snapshot
from proagent.numbers import format_score

REFRESH_S = 0.5


class ProgressLines:
    """The plain progress lines of a run without a terminal: `due` says when one is owed (every
    ``every_calls`` LLM calls or ``every_s`` seconds), `line` writes it from a snapshot."""

    def __init__(self, every_calls: int, every_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_calls = every_calls
        self.every_s = every_s
        self._clock = clock
        self.started = self._last = clock()
        self._calls = 0
        self.scores: list[float] = []

    def due(self, snap: Snapshot) -> bool:
        return snap.llm_calls - self._calls >= self.every_calls or self._clock() - self._last >= self.every_s

    def line(self, snap: Snapshot) -> str:
        now = self._clock()
        self._last, self._calls = now, snap.llm_calls
        n = len(self.scores)
        score = f"mean score {format_score(sum(self.scores) / n)} (n={n})" if n else "no episode finished"
        per = f"{(now - self.started) / snap.llm_calls:.1f} s/call" if snap.llm_calls else "no call yet"
        return (
            f"progress: {snap.episodes_done}/{snap.episodes_total} episodes, {snap.steps_done:,}/{snap.steps_total:,} "
            f"steps, {score}, {snap.llm_calls} LLM calls, {per}, ${snap.spent_usd:.4f}"
        )


class ProgressView:
    def __init__(
        self,
        mode: str,
        snapshot: Callable[[], Snapshot],
        console: Console | None = None,
        lines: ProgressLines | None = None,
    ) -> None:
        self.console = console or Console(stderr=True)
        self.live = mode == "on" or (mode == "auto" and self.console.is_terminal)
        self.quiet = mode == "off"
        self._snapshot = snapshot
        self._progress: Progress | None = None
        self._episodes = self._steps = None
        self._task: asyncio.Task | None = None
        self._lines = None if self.live or self.quiet else (lines or ProgressLines(10, 10.0))

    async def __aenter__(self) -> Self:
        if self._lines is not None:
            self._task = asyncio.create_task(self._lines_forever(self._lines))
        if not self.live:
            return self
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[llm]}"),
            console=self.console,
        )
        snap = self._snapshot()
        self._episodes = self._progress.add_task(
            "episodes", total=snap.episodes_total or None, completed=snap.episodes_done, llm=""
        )
        self._steps = self._progress.add_task("steps", total=snap.steps_total or None, llm="")
        self._progress.start()
        self._task = asyncio.create_task(self._refresh_forever())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._lines is not None:
            self._say(self._lines.line(self._snapshot()))
        if self._progress is not None:
            self._refresh()
            self._progress.stop()

    def episode_done(self, record: EvalRecord) -> None:
        if self._lines is None:
            return
        self._lines.scores.append(record.score)
        snap = self._snapshot()
        print(
            f"[{snap.episodes_done}/{snap.episodes_total}] {record.key.id}: score {record.score:.0f}, "
            f"{record.llm_calls} LLM calls, {record.wall_time_s:.1f} s; total ${snap.spent_usd:.4f}",
            file=sys.stderr,
        )

    def _say(self, line: str) -> None:
        self.console.out(line, highlight=False)

    async def _lines_forever(self, lines: ProgressLines) -> None:
        while True:
            await asyncio.sleep(min(REFRESH_S, lines.every_s / 4))
            snap = self._snapshot()
            if lines.due(snap):
                self._say(lines.line(snap))

    async def _refresh_forever(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            self._refresh()

    def _refresh(self) -> None:
        assert self._progress is not None
        snap = self._snapshot()
        usage = f"LLM calls {snap.llm_calls}, tokens {snap.tokens}, ${snap.spent_usd:.4f}"
        if snap.failures:
            usage += f", {snap.failures} failed"
        self._progress.update(
            self._episodes, total=snap.episodes_total or None, completed=snap.episodes_done, llm=usage
        )
        self._progress.update(self._steps, total=snap.steps_total or None, completed=snap.steps_done)
