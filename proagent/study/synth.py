"""Synthetic study folders: the study format filled by agents, so the report can be tested (and a
lab can try its analysis) before any person plays.

Each "participant" is a scripted or trained partner in the human seat (default ``greedy``; a
``human_proxy_*`` partner is closer to a person and slower), playing the study's schedule with
the study's partners on short rounds through the ordinary episode runner: every round is a real
run folder (config.json with the ``human`` marker, trace.jsonl, episodes.jsonl, summary.json), as
`proagent human` writes it. The questionnaire answers are drawn from a seeded distribution (see
`synthetic_answers`) that rises with the round's constructive interdependence, so the report's
correlations have something to find. Nothing here is a finding about people.
"""

from __future__ import annotations

import asyncio
import random
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from proagent.builder import LLM_AGENT, resolve_env, session_builder
from proagent.checkout import git_state
from proagent.runner.episode import run_episode
from proagent.runner.records import EpisodeRecord, HumanRunConfig
from proagent.runner.run_folder import RunFolder, package_versions
from proagent.runner.summary import summary_of
from proagent.study.format import (
    STUDY_FILE,
    AnswerLine,
    Demographics,
    Participant,
    RoundLength,
    StudyConfig,
    StudyLayout,
    StudyPartner,
    append_answers,
    now,
    round_folder,
    schedule,
    write_participant,
)
from proagent.web.questionnaire import Questionnaire, load_questionnaire
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv

DEFAULT_LAYOUTS = (("counter_circuit", "Non-RC"), ("forced_coordination", "RC"))
DEFAULT_PARTNERS = ("greedy", "supplier", "onion_passer", "random")  # scripted: a round takes a fraction of a second
DEFAULT_PROXY = "greedy"
DEFAULT_HORIZON = 100
SLOPE = 0.15  # rating points per constructive interdependence
CHOICES = {
    "age_range": ("18-24", "25-34", None),
    "gender": ("female", "male", None),
    "familiarity": ("none", "some", "played before", None),
}


class SynthError(ValueError):
    """A bad request (an existing folder, an unknown agent); the message is one line."""


def synth_config(
    participants: int,
    rounds: int,
    seed: int,
    horizon: int,
    partners: tuple[str, ...],
    layouts: tuple[tuple[str, str], ...],
) -> StudyConfig:
    return StudyConfig(
        name=f"synthetic study ({participants} participants x {rounds} rounds, seed {seed})",
        layouts=[StudyLayout(name=name, label=label) for name, label in layouts],
        partners=[StudyPartner(name=name) for name in partners],
        ordering="latin_square",
        seed=seed,
        rounds=rounds,
        round_length=RoundLength(steps=horizon),
        mode="turns",
    )


def synthetic_answers(
    questionnaire: Questionnaire, rng: random.Random, bias: float, effect: float, constructive: int
) -> dict[str, int]:
    """One round's answers: per item, round(neutral + participant bias + partner-and-layout effect
    + SLOPE * constructive interdependence + N(0, 0.7)), clipped to the scale."""
    points = len(questionnaire.scale)
    neutral = (points + 1) / 2
    out = {}
    for q in questionnaire.questions:
        value = neutral + bias + effect + SLOPE * min(constructive, 12) - 0.6 + rng.gauss(0, 0.7)
        out[q.id] = max(1, min(points, round(value)))
    return out


def write_study(
    out: Path,
    participants: int = 12,
    rounds: int = 8,
    seed: int = 0,
    horizon: int = DEFAULT_HORIZON,
    partners: tuple[str, ...] = DEFAULT_PARTNERS,
    layouts: tuple[tuple[str, str], ...] = DEFAULT_LAYOUTS,
    proxy: str = DEFAULT_PROXY,
    progress: Callable[[str], None] | None = None,
    command: str | None = None,
) -> StudyConfig:
    """A whole synthetic study in ``out`` (which must not exist or be empty); the same arguments
    give the same folder (episodes and answers are seeded), timestamps aside. ``command``: what
    every round's config.json records as the command that made it (default: the `proagent study
    synth` command line of these arguments)."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SynthError(f"{out} exists and is not an empty folder; choose a new one")
    if participants < 1 or rounds < 1 or horizon < 1:
        raise SynthError("participants, rounds and horizon must be at least 1")
    config = synth_config(participants, rounds, seed, horizon, partners, layouts)
    envs = {name: resolve_env(name, horizon) for name, _ in layouts}
    _check_agents(envs, (*partners, proxy))
    out.mkdir(parents=True, exist_ok=True)
    _write_toml(out / STUDY_FILE, config)
    rng = random.Random(seed)
    effects = {(p, lay): rng.gauss(0, 0.4) + 0.3 * j for p in partners for j, (lay, _) in enumerate(layouts)}
    if command is None:
        words = ["proagent", "study", "synth", str(out), "--participants", str(participants), "--rounds", str(rounds)]
        words += ["--seed", str(seed), "--horizon", str(horizon), "--proxy", proxy, "--partners", ",".join(partners)]
        command = shlex.join(words)
    plays = _Plays(
        out, config, envs, proxy, load_questionnaire(), rng, effects, *git_state(), package_versions(), command
    )
    for index in range(participants):
        pid = f"P{index + 1:03d}"
        plays.participant(pid, index, seed)
        if progress is not None:
            progress(f"{pid}: {rounds} rounds")
    return config


@dataclass
class _Plays:
    """What every round of a synthetic study shares: the compiled envs, the answers' random
    stream and effects, and the provenance a run's config.json records (read once, not per round)."""

    out: Path
    config: StudyConfig
    envs: dict[str, tuple[Domain, DomainEnv]]
    proxy: str
    questionnaire: Questionnaire
    rng: random.Random
    effects: dict[tuple[str, str], float]
    commit: str
    dirty: bool
    versions: dict[str, str]
    command: str  # the command that made the study, recorded by every round

    def participant(self, pid: str, index: int, seed: int) -> None:
        """participant.json, then every planned round and its answers."""
        demographics = Demographics(**{k: self.rng.choice(v) for k, v in CHOICES.items()})
        plan = schedule(self.config, pid, index)
        write_participant(self.out, Participant(id=pid, created=now(), demographics=demographics, schedule=plan))
        bias = self.rng.gauss(0, 0.5)
        for planned in plan:
            folder = round_folder(self.out, pid, planned.round, planned.layout, planned.partner)
            record = self.play(folder, planned.layout, planned.partner, seed * 100_003 + index * 1_000 + planned.round)
            effect = self.effects[(planned.partner, planned.layout)]
            answers = synthetic_answers(self.questionnaire, self.rng, bias, effect, record.int_constructive or 0)
            line = AnswerLine(round=planned.round, folder=folder.path.name, answers=answers, submitted=now())
            append_answers(self.out, pid, line)

    def play(self, folder: RunFolder, layout: str, partner: str, seed: int) -> EpisodeRecord:
        """One round as `proagent human` stores it, with the proxy in the human seat."""
        domain, env = self.envs[layout]
        human, agent = self.config.human_seat, 1 - self.config.human_seat
        settings = {
            "mode": "synthetic",
            "proxy": self.proxy,
            "human_seat": human,
            "agent_seat": agent,
            "seed": seed,
            "questionnaire": True,
        }
        folder.write_json("config.json", self._config(domain, env, partner, seed, settings))
        builder = session_builder(domain, None)
        team = [builder.make(self.proxy, env), builder.make(partner, env)]
        if human == 1:
            team.reverse()
        trace = lambda line: folder.append_jsonl("trace.jsonl", line)
        record = asyncio.run(run_episode(env, domain, team, agent, seed, 0, trace=trace))
        folder.append_jsonl("episodes.jsonl", record, durable=True)
        folder.write_json("summary.json", {**summary_of([record], domain.useful_events), "human": settings})
        return record

    def _config(self, domain: Domain, env: DomainEnv, partner: str, seed: int, settings: dict) -> HumanRunConfig:
        return HumanRunConfig(
            command=self.command,
            domain=domain.name,
            layout=env.name,
            partner="human",
            seat=1 - self.config.human_seat,
            episodes=1,
            seed=seed,
            horizon=self.config.round_length.steps or 0,
            llm="none",
            agent={"name": partner},
            prompt_hashes={},
            git_commit=self.commit,
            git_dirty=self.dirty,
            versions=self.versions,
            created=datetime.now(UTC).isoformat(),
            human=settings,
        )


def _check_agents(envs: dict[str, tuple[Domain, DomainEnv]], names: tuple[str, ...]) -> None:
    for domain, env in envs.values():
        builder = session_builder(domain, None)
        for name in dict.fromkeys(names):
            if name == LLM_AGENT:
                raise SynthError(
                    "the synthetic study plays no LLM agent (it must run in seconds); name partners from `proagent "
                    "partners`"
                )
            try:
                builder.make(name, env)
            except ValueError as exc:  # UnknownAgentError is one
                raise SynthError(f"{name}: {str(exc).splitlines()[0]}") from None


def _write_toml(path: Path, config: StudyConfig) -> None:
    """study.toml by hand (the standard library reads TOML but does not write it)."""
    from proagent.files import write_atomic

    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return repr(v)

    data = config.model_dump(exclude_none=True)
    lines = ["# A synthetic study (proagent study synth): agents in the human seat, drawn answers.", ""]
    tables = {k: v for k, v in data.items() if isinstance(v, dict | list)}
    lines += [f"{k} = {value(v)}" for k, v in data.items() if k not in tables]
    for key, v in tables.items():
        rows = v if isinstance(v, list) else [v]
        for row in rows:
            lines += ["", f"[[{key}]]" if isinstance(v, list) else f"[{key}]"]
            lines += [f"{k} = {value(x)}" for k, x in row.items()]
    write_atomic(path, "\n".join(lines) + "\n")
