"""A person plays one chef, an agent the other: the game loop behind `proagent human`.

The loop is the ordinary `run_episode` (same trace, same episode record, same metrics), run in a
thread with its own event loop. What is new is only its pace and its partner: before each step it
waits for the next clock tick (real time, ``fps`` steps a second) or for the person's next key
(turn-based), and the person's seat is a Partner that returns their latest key press (STAY if
none since the last step). The page reads a snapshot of the game through `snapshot()`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from proagent.agent.clock import tick_pace
from proagent.contract import Agent, ImmediateAgent
from proagent.runner.episode import StepView, run_episode
from proagent.runner.records import EpisodeRecord
from proagent.runner.run_folder import RunFolder
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, EngineState, Event, State

Mode = Literal["realtime", "turns"]
Status = Literal["ready", "running", "over", "finished", "error"]


class GameSettings(BaseModel):
    """How the human game runs; recorded in the run's config.json under ``human``."""

    mode: Mode = "realtime"
    fps: float = Field(5.0, gt=0, le=60, description="steps a second in real-time mode")
    human_seat: int = Field(0, ge=0)
    agent_seat: int = Field(1, ge=0, description="the agent's seat (two-player layouts: the other one)")
    seed: int = 0
    questionnaire: bool = True
    until: tuple[str, int] | None = Field(
        None, description="end the game once the world's episode metric (one of its metric_names) reaches this count"
    )


class GameStopped(Exception):
    """The session was stopped before the episode ended (Ctrl+C, page gone)."""


class KeyLatch:
    """The person's latest key press, shared between the web threads and the game loop."""

    def __init__(self, idle_action: int) -> None:
        self._lock = threading.Lock()
        self._action: int | None = None
        self.idle_action = idle_action
        self.presses = 0

    def press(self, action: int) -> None:
        with self._lock:
            self._action = action
            self.presses += 1

    @property
    def pending(self) -> bool:
        with self._lock:
            return self._action is not None

    def take(self) -> int:
        """The action for this step: the latest press since the last step, else the idle action."""
        with self._lock:
            action, self._action = self._action, None
        return action if action is not None else self.idle_action


class HumanPlayer(ImmediateAgent):
    """The person's seat, as an agent like any other: it plays whatever key they pressed last."""

    name = "human"

    def __init__(self, keys: KeyLatch) -> None:
        self.keys = keys
        self.seat = 0

    def reset(self, seat: int, seed: int, first: object = None) -> None:
        self.seat = seat

    def policy(self, state: State, engine: EngineState) -> int:
        return self.keys.take()


AgentFactory = Callable[[int], Agent]  # seed -> the agent playing with the person (LLM, scripted, RL)
Finisher = Callable[[EpisodeRecord], None]  # writes summary and replay once the episode is saved


class HumanGame:
    """One human-agent episode; thread-safe for the web handlers (start, press, snapshot)."""

    def __init__(
        self,
        domain: Domain,
        env: DomainEnv,
        make_agent: AgentFactory,
        settings: GameSettings,
        folder: RunFolder,
        finish: Finisher | None = None,
    ) -> None:
        self.domain, self.env, self.make_agent, self.settings, self.folder, self.finish = (
            domain,
            env,
            make_agent,
            settings,
            folder,
            finish,
        )
        self.keys = KeyLatch(domain.idle_action)
        self.record: EpisodeRecord | None = None
        self.done = threading.Event()  # the episode ended (or failed); the questionnaire may follow
        self.finished = threading.Event()  # nothing more to wait for: the command may exit
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Real time: one step a tick, as an LLM agent's seconds clock (a late step is not caught up on).
        self._tick = tick_pace(1.0 / settings.fps)
        self._status: Status = "ready"
        self._error: str | None = None
        self._busy = False
        self._view: dict = {}
        self._agent_info: dict = {"skill": None, "analysis": None, "intention": None, "thinking": False}
        self._agent: Agent | None = None

    def _record(self, state: State) -> dict:
        """The state as the page draws it (the world's `Rendering`; checked before a game is made)."""
        return self.domain.capabilities.rendering.record(state)

    # ---- control (web threads) ----

    def start(self) -> bool:
        """Start the episode; False if it was started already."""
        with self._lock:
            if self._thread is not None:
                return False
            self._status = "running"
            self._thread = threading.Thread(target=self._run, name="proagent-human-game", daemon=True)
        self._thread.start()
        return True

    def press(self, action: int) -> None:
        self.keys.press(action)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def mark_finished(self) -> None:
        with self._lock:
            if self._status == "over":
                self._status = "finished"
        self.finished.set()

    def running_in_background(self, grace_s: float = 0.0) -> bool:
        """The game thread is still alive after ``grace_s`` (waiting for an in-flight LLM call)."""
        if self._thread is None:
            return False
        self._thread.join(timeout=grace_s)
        return self._thread.is_alive()

    @property
    def status(self) -> Status:
        with self._lock:
            return self._status

    def snapshot(self) -> dict:
        with self._lock:
            return {
                "status": self._status,
                "error": self._error,
                "busy": self._busy,
                "presses": self.keys.presses,
                **self._view,
                "agent": dict(self._agent_info),
                "record": self.record.model_dump(mode="json") if self.record else None,
            }

    def initial_view(self, state: State) -> None:
        with self._lock:
            self._view = {
                "step": state.step,
                "horizon": state.horizon,
                "score": 0.0,
                "state": self._record(state),
                "actions": None,
                "events": [],
            }

    # ---- the game thread ----

    def _run(self) -> None:
        try:
            asyncio.run(self._play())  # may then wait for an LLM call still running in a worker thread
        except GameStopped:
            self._end("error", "stopped before the end of the episode")
        except Exception as exc:  # noqa: BLE001 - shown on the page and by the command, never lost silently
            self._end("error", f"{type(exc).__name__}: {exc}")

    def _end(self, status: Status, error: str | None, record: EpisodeRecord | None = None) -> None:
        with self._lock:
            self._status, self._error, self.record, self._busy = status, error, record, False
        self.done.set()
        if status != "over":
            self.finished.set()

    async def _play(self) -> EpisodeRecord:
        seed, seat = self.settings.seed, self.settings.agent_seat
        self._agent = agent = self.make_agent(seed)
        human = HumanPlayer(self.keys)
        team = [agent if s == seat else human for s in range(self.env.num_agents)]
        try:
            record = await run_episode(
                self.env, self.domain, team, seat, seed, 0,
                trace=self._trace, on_step=self._on_step, pace=self._pace, stop_when=self._stop_when(),
            )  # fmt: skip
        finally:
            await agent.aclose()
        self.folder.append_jsonl("episodes.jsonl", record, durable=True)
        if self.finish is not None:
            self.finish(record)
        self._end("over" if self.settings.questionnaire else "finished", None, record)  # now, not after the loop closes
        return record

    def _stop_when(self) -> Callable[[float, Sequence[Event]], bool] | None:
        """The game's early end (``until``): the world's metric counted over the events so far."""
        if self.settings.until is None:
            return None
        metric, count = self.settings.until
        return lambda score, events: self.domain.episode_metrics(events).get(metric, 0.0) >= count

    async def _pace(self) -> None:
        """Wait for the next tick (real time) or the person's next key (turn-based)."""
        if self._stop.is_set():
            raise GameStopped()
        if self.settings.mode == "realtime":
            await self._tick()
        else:
            while not self.keys.pending:
                await self._sleep(0.01)
        with self._lock:
            self._busy = True

    async def _sleep(self, seconds: float) -> None:
        if self._stop.is_set():
            raise GameStopped()
        await asyncio.sleep(seconds)

    def _trace(self, record: dict) -> None:
        self.folder.append_jsonl("trace.jsonl", record)
        decision = record.get("decision")
        with self._lock:
            self._agent_info["skill"] = record.get("skill")
            if decision:
                self._agent_info["analysis"] = decision.get("analysis")
                self._agent_info["intention"] = decision.get("intention")
            self._agent_info["thinking"] = bool(record.get("thinking"))

    def _on_step(self, view: StepView) -> None:
        with self._lock:
            self._busy = False
            self._view = {
                "step": view.state.step,
                "horizon": view.state.horizon,
                "score": view.score,
                "state": self._record(view.state),
                "actions": [self.domain.action_names[a] for a in view.actions],
                "events": [e.to_record() for e in view.events],
            }
