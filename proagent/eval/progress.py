"""Live progress of an evaluation: episodes and steps with ETA, LLM calls, tokens and money so far.

The display polls `Evaluator.snapshot()` from a small asyncio task twice a second instead of
being pushed every step: 32 episodes x 400 steps of pushes would cost more than the display.
Without a terminal it prints one line per finished episode instead (CI logs stay readable).
"""

from __future__ import annotations

import asyncio
import sys
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

REFRESH_S = 0.5


class ProgressView:
    def __init__(self, mode: str, snapshot: Callable[[], Snapshot], console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.live = mode == "on" or (mode == "auto" and self.console.is_terminal)
        self.quiet = mode == "off"
        self._snapshot = snapshot
        self._progress: Progress | None = None
        self._episodes = self._steps = None
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> Self:
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
        self._episodes = self._progress.add_task("episodes", total=snap.episodes_total or None, completed=snap.episodes_done, llm="")
        self._steps = self._progress.add_task("steps", total=snap.steps_total or None, llm="")
        self._progress.start()
        self._task = asyncio.create_task(self._refresh_forever())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._progress is not None:
            self._refresh()
            self._progress.stop()

    def episode_done(self, record: EvalRecord) -> None:
        if self.live or self.quiet:
            return
        snap = self._snapshot()
        print(
            f"[{snap.episodes_done}/{snap.episodes_total}] {record.key.id}: score {record.score:.0f}, "
            f"{record.llm_calls} LLM calls, {record.wall_time_s:.1f} s; total ${snap.spent_usd:.4f}",
            file=sys.stderr,
        )

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
        self._progress.update(self._episodes, total=snap.episodes_total or None, completed=snap.episodes_done, llm=usage)
        self._progress.update(self._steps, total=snap.steps_total or None, completed=snap.steps_done)
