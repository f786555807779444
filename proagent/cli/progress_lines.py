"""Signs of life for long commands: plain progress lines where output is not a terminal (a log, CI, a
pipe), a spinner per decision on one.

A decision of the embedded model can take half a minute on a loaded machine; without these a run
looks hung. `PlainProgress` writes one line every N decisions or every T seconds, whichever comes
first (step, score, decisions, seconds per decision); a daemon thread keeps the seconds promise
while a single decision runs long, since the episode loop only reports between steps.
`Heartbeat` does the same for a command that reports in lines of its own (`train`): a line when
nothing was said for T seconds. `DecisionSpinner` is the terminal's one-line equivalent, drawn
under the live view.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Self

from pydantic import BaseModel, ConfigDict, Field
from rich.spinner import Spinner
from rich.text import Text

from proagent.agent.proagent import ProAgent
from proagent.contract import Agent
from proagent.numbers import format_score
from proagent.runner.episode import StepView

Clock = Callable[[], float]
Write = Callable[[str], None]


class ProgressSettings(BaseModel):
    """How often a plain progress line is written: every ``every_decisions`` decisions or every
    ``every_s`` seconds, whichever comes first (``--progress-every``, ``--progress-seconds``)."""

    model_config = ConfigDict(frozen=True)

    every_decisions: int = Field(10, ge=1)
    every_s: float = Field(10.0, gt=0)


def team_decisions(team: Sequence[Agent]) -> int:
    """Decisions taken so far by the team's LLM agents (every seat that plays ProAgent)."""
    return sum(agent.stats.decisions for agent in team if isinstance(agent, ProAgent))


class _Ticking:
    """A context manager running a daemon thread that calls ``tick`` a few times per ``period_s``:
    the timed lines come even while the caller is blocked in one long step."""

    def __init__(self, period_s: float, name: str) -> None:
        self._period_s = period_s
        self._name = name
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(min(1.0, self._period_s / 4)):
            self.tick()


class PlainProgress(_Ticking):
    """Progress lines of one episode, fed by `run_episode`'s ``on_step``; a context manager that
    runs the thread writing the timed line while a decision is under way."""

    def __init__(self, settings: ProgressSettings, label: str, write: Write, clock: Clock = time.monotonic) -> None:
        self.settings = settings
        self.label = label
        self.horizon = 0  # the state's, from the first step on
        self._write = write
        self._clock = clock
        super().__init__(settings.every_s, "progress-lines")
        self.started = self._last_line = self._last_step = clock()
        self.step = self.decisions = self._decisions_at_line = 0
        self.score = 0.0

    def on_step(self, view: StepView) -> None:
        """After each step: a line once ``every_decisions`` more decisions were taken, or
        ``every_s`` seconds passed since the last line."""
        with self._lock:
            self.step, self.horizon = int(view.state.step), int(view.state.horizon)
            self.score, self.decisions = view.score, team_decisions(view.team)
            self._last_step = self._clock()
            due = self.decisions - self._decisions_at_line >= self.settings.every_decisions
            if due or self._last_step - self._last_line >= self.settings.every_s:
                self._line()

    def tick(self) -> None:
        """The timed line, when ``every_s`` seconds passed with no line (the thread's check)."""
        with self._lock:
            if self._clock() - self._last_line >= self.settings.every_s:
                self._line(waiting=True)

    def _line(self, waiting: bool = False) -> None:
        now = self._clock()
        per = f"{(now - self.started) / self.decisions:.1f} s/decision" if self.decisions else "no decision yet"
        steps = f"step {self.step}/{self.horizon}" if self.horizon else "starting"
        line = f"{self.label}: {steps}, score {format_score(self.score)}, {self.decisions} decisions, {per}"
        if waiting and now - self._last_step >= self.settings.every_s:
            line += f"; deciding for {now - self._last_step:.0f} s"
        self._write(line)
        self._last_line, self._decisions_at_line = now, self.decisions


class DecisionSpinner:
    """A spinner and the seconds since the last step (a decision under way), re-rendered by the
    live view on each refresh, so the terminal moves while the model thinks."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._spinner = Spinner("dots")
        self.step = 0
        self.since = clock()
        self.done = False

    def stepped(self, step: int) -> None:
        self.step, self.since = step, self._clock()

    def __rich__(self) -> Spinner | Text:
        if self.done:  # the last frame stays on screen: no decision under way there
            return Text("")
        self._spinner.update(text=Text(f"step {self.step + 1}: deciding... {self._clock() - self.since:.1f} s"))
        return self._spinner


class Heartbeat(_Ticking):
    """Writes the lines of a command that reports in its own lines (`say`), and a line of its own
    when nothing was said for ``every_s`` seconds (a compile, a long evaluation)."""

    def __init__(self, every_s: float, write: Write, clock: Clock = time.monotonic) -> None:
        self.every_s = every_s
        self._write = write
        self._clock = clock
        super().__init__(every_s, "heartbeat")
        self.started = self._last = clock()
        self.last_line = ""

    def say(self, line: str) -> None:
        with self._lock:
            self._write(line)
            self._last, self.last_line = self._clock(), line

    def tick(self) -> None:
        """A line when ``every_s`` seconds passed since the last one."""
        with self._lock:
            now = self._clock()
            if now - self._last >= self.every_s:
                after = f" since: {self.last_line[:80]}" if self.last_line else ""
                self._write(f"still working, {now - self.started:.0f} s in; {now - self._last:.0f} s{after}")
                self._last = now
