"""The cognitive trace of one episode and its process metrics.

Every stage transition, message, read and committed plan is recorded with the cognitive clock
(``t_cog``, one tick per round of deliberation, across the episode), the environment step
(``t_env``) and the wall time since the episode started; the runner writes each step's records
into the trace (``cognition``). The metrics summarize them: message volume and imbalance, time in
each stage (decision latency), interruptions, re-plans, resumptions.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from proagent.maeil.talk import SPOKEN_KINDS, Message, Stage

if TYPE_CHECKING:
    from proagent.maeil.topology import Phase


class CognitiveLog:
    def __init__(self, num_agents: int, talkers: tuple[int, ...]) -> None:
        self.started = time.perf_counter()
        self.talkers = talkers
        self.clock = 0
        self.stage: dict[int, Stage] = {s: Stage.WAIT for s in range(num_agents)}
        self.entered: dict[int, float] = {s: self.started for s in talkers}
        self.stage_time: dict[int, Counter] = {s: Counter() for s in talkers}
        self.records: list[dict] = []  # this step's, until `drain`
        self.sent: Counter = Counter()  # spoken messages per sender
        self.protocol_messages = 0
        self.interruptions = 0
        self.plan_outcomes: Counter = Counter()  # new | replanned | resumed
        self.rounds: list[int] = []
        self.phase_s: list[float] = []

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def _wall_ms(self) -> float:
        return round(1000 * (time.perf_counter() - self.started), 3)

    def enter(self, seat: int, stage: Stage, phase: Phase, cause: int | None = None) -> None:
        previous = self.stage[seat]
        if previous == stage:
            return
        now = time.perf_counter()
        self.stage_time[seat][previous.value] += now - self.entered[seat]
        self.entered[seat] = now
        self.stage[seat] = stage
        self.interruptions += int(stage == Stage.INTERRUPT)
        record = {"kind": "stage", "agent": seat, "from": previous.value, "to": stage.value}
        record |= {"t_cog": self.clock, "t_env": phase.t_env, "wall_ms": self._wall_ms()}
        if cause is not None:
            record["cause"] = cause
        self.records.append(record)

    def message(self, message: Message) -> None:
        if message.kind in SPOKEN_KINDS:
            self.sent[message.sender] += 1
        else:
            self.protocol_messages += 1
        self.records.append({**message.to_record(), "wall_ms": self._wall_ms()})

    def read(self, seat: int, messages: Sequence[Message], phase: Phase) -> None:
        if messages:
            self.records.append(
                {
                    "kind": "read",
                    "agent": seat,
                    "count": len(messages),
                    "t_cog": self.clock,
                    "t_env": phase.t_env,
                    "wall_ms": self._wall_ms(),
                }
            )

    def plan(self, seat: int, plan: str, outcome: str, phase: Phase) -> None:
        self.plan_outcomes[outcome] += 1
        timing = {"t_cog": self.clock, "t_env": phase.t_env, "wall_ms": self._wall_ms()}
        self.records.append({"kind": "plan", "agent": seat, "plan": plan, "outcome": outcome, **timing})

    def phase_done(self, rounds: int, seconds: float) -> None:
        self.rounds.append(rounds)
        self.phase_s.append(seconds)

    def drain(self) -> list[dict]:
        """This step's records (for the trace), forgotten here."""
        out, self.records = self.records, []
        return out

    def stages(self) -> dict[str, str]:
        return {str(s): self.stage[s].value for s in self.talkers}

    def metrics(self) -> dict[str, float]:
        """Episode totals: flat floats, so reports and tables take them like any metric."""
        per_agent = [self.sent[s] for s in self.talkers]
        total = sum(per_agent)
        mean = total / len(per_agent) if per_agent else 0.0
        steps = max(1, len(self.phase_s))
        stage_s = Counter()
        for counter in self.stage_time.values():
            stage_s.update(counter)
        out = {
            "messages": float(total),
            "protocol_messages": float(self.protocol_messages),
            "messages_per_step": total / steps,
            # coefficient of variation of messages sent per agent: 0 when everyone speaks equally
            "message_imbalance": statistics.pstdev(per_agent) / mean if mean > 0 and len(per_agent) > 1 else 0.0,
            "interruptions": float(self.interruptions),
            "plans_new": float(self.plan_outcomes["new"]),
            "replans": float(self.plan_outcomes["replanned"]),
            "resumptions": float(self.plan_outcomes["resumed"]),
            "cognitive_rounds": float(sum(self.rounds)),
            "rounds_per_step": sum(self.rounds) / steps,
            "decision_latency_ms": 1000 * statistics.fmean(self.phase_s) if self.phase_s else 0.0,
        }
        interrupted = self.plan_outcomes["replanned"] + self.plan_outcomes["resumed"]
        out["resumption_rate"] = self.plan_outcomes["resumed"] / interrupted if interrupted else 0.0
        for stage in Stage:
            out[f"time_{stage.value}_s"] = stage_s[stage.value] / max(1, len(self.talkers))
        for seat in self.talkers:
            out[f"messages_p{seat}"] = float(self.sent[seat])
        return out
