"""The live terminal view of `proagent play`: kitchen, current skill, analysis, intention, score,
LLM calls and latency, and under it a spinner counting the seconds of the decision under way (the
model may think for half a minute). Off when output is not a terminal (CI logs stay readable):
plain progress lines take its place (`proagent.cli.progress_lines`)."""

from __future__ import annotations

from rich.console import Group
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from proagent.agent.proagent import ProAgent
from proagent.cli.progress_lines import DecisionSpinner
from proagent.runner.episode import StepView
from proagent.world.interface import Domain


class LiveView:
    def __init__(self, domain: Domain, enabled: bool, title: str) -> None:
        self.domain = domain
        self.enabled = enabled
        self.title = title
        self._live: Live | None = None
        self._analysis = ""
        self._intention = ""
        self.spinner = DecisionSpinner()

    def __enter__(self) -> LiveView:
        if self.enabled:
            self._live = Live(self.spinner, refresh_per_second=8, transient=False)
            self._live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.spinner.done = True
        if self._live is not None:
            self._live.__exit__(*exc)

    def update(self, view: StepView) -> None:
        if self._live is None:
            return
        agent = view.agent
        rendering = self.domain.capabilities.rendering
        lines = [Text(rendering.text(view.state) if rendering is not None else str(view.state))]
        if isinstance(agent, ProAgent):  # the LLM agent's thinking; other agents show the state only
            if agent.last_decision is not None:
                self._analysis = agent.last_decision.analysis or ""
                self._intention = agent.last_decision.intention or ""
            s = agent.stats
            mean_latency = s.llm_latency_s / s.llm_calls if s.llm_calls else 0.0
            lines.append(Text(f"skill: {agent.skill}   score: {view.score:.0f}", style="bold"))
            lines.append(Text(f"analysis: {self._analysis}"))
            lines.append(Text(f"teammate intention: {self._intention}"))
            lines.append(
                Text(
                    f"LLM calls {s.llm_calls} ({s.cached_calls} cached), mean latency {mean_latency:.2f} s, "
                    f"rejections {s.rejections}, loops {s.oscillations}, intention accuracy "
                    f"{agent.belief.hits}/{agent.belief.total}"
                )
            )
        self.spinner.stepped(int(view.state.step))
        self._live.update(Group(Panel(Group(*lines), title=self.title), self.spinner))
