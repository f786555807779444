"""`proagent human --interface text`: a person types skills for one seat in the terminal, agents
(ProAgent or any partner) play the others; the game is saved as an ordinary run folder.

For turn-based worlds with a text view (``prompts/<world>/human/view.j2``; Yōkai). The agents come
from the one builder every front end uses (proagent/builder.py): the person is one more name in it
(``human``), so the team is assembled exactly as `play` and `eval` assemble theirs. Bad inputs
(layout, agent, seat, prompt set, model) are one line and exit 2 before any run folder exists.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from proagent.agent.person import Person, PersonLeft, TypedPlayer, has_view
from proagent.builder import (
    LLM_AGENT,
    AgentBuilder,
    SetupError,
    check_name,
    env_settings,
    prepare_llm,
    resolve_env,
    session_builder,
    settled_horizon,
)
from proagent.checkout import git_state
from proagent.llm.scripted import describe_model
from proagent.runner.episode import run_episode
from proagent.runner.records import EpisodeRecord, HumanRunConfig
from proagent.runner.run_folder import RunFolder, package_versions, run_name_from
from proagent.runner.summary import summary_of
from proagent.web.human_request import HumanRequest
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv

HUMAN = "human"  # the person's name in the builder, the team and the record


class TerminalPerson:
    """The person at this terminal: the view on stdout, their lines from stdin."""

    def show(self, view: str, facts: dict[str, Any]) -> None:
        print(f"\n{view}", flush=True)

    def say(self, line: str) -> None:
        print(line, flush=True)

    def ask(self) -> str | None:
        try:
            return input("> ")
        except EOFError:
            return None


@dataclass
class TextSession:
    domain: Domain
    env: DomainEnv
    builder: AgentBuilder
    folder: RunFolder
    human_seat: int
    agent_seat: int  # the record's focal seat: the first seat an agent plays
    agent: str
    seed: int

    async def play(self) -> EpisodeRecord:
        """The game; trace lines as it goes, the episode record and summary at its end."""
        names = [
            HUMAN if seat == self.human_seat else self.agent
            for seat in range(self.env.num_agents)
            if seat != self.agent_seat
        ]
        team = self.builder.team(self.env, self.agent_seat, self.builder.make(self.agent, self.env), ",".join(names))
        try:
            record = await run_episode(
                self.env, self.domain, team, self.agent_seat, self.seed, 0,
                trace=lambda r: self.folder.append_jsonl("trace.jsonl", r),
            )  # fmt: skip
        finally:
            for member in team:
                await member.aclose()
        self.folder.append_jsonl("episodes.jsonl", record, durable=True)
        summary = summary_of([record], self.domain.useful_events)
        self.folder.write_json(
            "summary.json", {**summary, "human": {"interface": "text", "human_seat": self.human_seat}}
        )
        return record


def build_text_session(request: HumanRequest, person: Person) -> TextSession:
    """Every check first, then the run folder and its config.json."""
    domain, env = resolve_env(request.layout, request.horizon, request.domain)
    if not has_view(domain):
        raise SetupError(
            f"--interface text: the {domain.name} world has no text view for a person; use --interface web"
        )
    human_seat, agent = request.human_seat, request.agent
    if not 0 <= human_seat < env.num_agents:
        raise SetupError(f"--human-seat {human_seat}: {env.name} has seats 0..{env.num_agents - 1}")
    agent_seats = [seat for seat in range(env.num_agents) if seat != human_seat]
    if agent == LLM_AGENT:
        llm = prepare_llm(request.llm, domain, env, agent_seats, request.seed)
        builder, info, hashes = (
            session_builder(domain, llm),
            {"name": LLM_AGENT, **llm.config.model_dump()},
            llm.prompt_hashes,
        )
    else:
        builder, info, hashes = session_builder(domain, None), {"name": agent}, {}
        info["provenance"] = check_name(builder, agent, env)
    builder = AgentBuilder(domain, {**builder.llm_agents, HUMAN: lambda e: TypedPlayer(domain, e, person)})
    name = request.name or run_name_from(f"human-{env.name}-{agent}")
    folder = RunFolder.create(name, **({"root": request.runs_dir} if request.runs_dir else {}))
    folder.write_json("config.json", _run_config(request, domain, env, agent_seats[0], info, hashes))
    return TextSession(domain, env, builder, folder, human_seat, agent_seats[0], agent, request.seed)


def _run_config(
    request: HumanRequest, domain: Domain, env: DomainEnv, agent_seat: int, info: dict, hashes: dict[str, str]
) -> HumanRunConfig:
    """What config.json records of a text game: enough to play it again."""
    commit, dirty = git_state()
    llm = request.agent == LLM_AGENT
    return HumanRunConfig(
        command=shlex.join(request.command_line),
        domain=request.domain or domain.name,
        layout=env.name,
        partner=HUMAN,
        seat=agent_seat,
        episodes=1,
        seed=request.seed,
        horizon=settled_horizon(domain, request.layout or env.name, request.horizon),
        llm=request.llm.llm if llm else "none",
        model=describe_model(request.llm.llm) if llm else None,
        api_base=request.llm.api_base if llm else None,
        agent=info,
        num_agents=env.num_agents,
        env_settings=env_settings(domain, env),
        prompt_hashes=hashes,
        git_commit=commit,
        git_dirty=dirty,
        versions=package_versions(),
        created=datetime.now(UTC).isoformat(),
        human={"interface": "text", "human_seat": request.human_seat},
    )


def run_text(request: HumanRequest, person: Person | None = None) -> int:
    """The text game from the command line (``person``: a scripted one in tests)."""
    try:
        session = build_text_session(request, person or TerminalPerson())
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"run folder: {session.folder.path}", file=sys.stderr)
    try:
        record = asyncio.run(session.play())
    except PersonLeft as exc:
        print(
            f"no finished episode: {exc}; the steps played are in {session.folder.path / 'trace.jsonl'}",
            file=sys.stderr,
        )
        return 1
    outcomes = ", ".join(f"{value:g} {name.replace('_', ' ')}" for name, value in record.domain_metrics.items())
    print(f"score {record.score:g} ({outcomes}) in {record.wall_time_s:.0f} s")
    print(f"saved {session.folder.path}: config.json, trace.jsonl, episodes.jsonl, summary.json")
    return 0
