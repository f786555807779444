"""The study runner behind `proagent study run`: participants, their progress, their rounds' games.

It keeps in memory only what can be rebuilt: the compiled envs and the game each participant is
playing now. Everything a participant did is in the study folder as soon as they did it
(participant.json rewritten whole, the episode record and questionnaire lines appended with fsync),
and `progress.next_step` reads where they are from there, so a stopped server, a closed tab or a
second tab all continue from what was saved. A round that was started but never finished (the
server stopped mid-game) is moved to ``participants/<id>/abandoned/`` (the report never reads it)
and played again from its start.

Each round is a normal `proagent human` game (`build_human_session`), written to the folder
`round_folder` names, with the study's partner, layout, mode, tick rate and round length.
"""

from __future__ import annotations

import math
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from proagent.agent.person import has_view
from proagent.builder import LLM_AGENT, LLMFlags, SetupError, resolve_env, session_builder
from proagent.contract import UnknownAgentError
from proagent.domains import domain_for
from proagent.llm.litellm_backend import check_api_base
from proagent.llm.types import LLMConfigError
from proagent.request import RequestError
from proagent.runner.run_folder import now_stamp
from proagent.study.format import (
    PARTICIPANTS_DIR,
    TRIAL_ROUND,
    AnswerLine,
    Demographics,
    Participant,
    StudyConfig,
    append_answers,
    now,
    round_folder,
    schedule,
    write_participant,
)
from proagent.study.progress import ParticipantError, Step, clean_text, load_participant, next_step, participant_dir
from proagent.study.read import StudyError, load_config, study_questionnaire
from proagent.web.human_request import HumanRequest
from proagent.web.human_session import HumanSession, build_human_session
from proagent.web.questionnaire import answers_record
from proagent.world.types import DomainEnv

CONSENT_FILE = "consent.txt"
MAX_CONSENT = 20_000  # characters
MAX_COMMENT = 1000
DEFAULT_CONSENT = (
    "You are invited to take part in a study of how people play a cooperative game with AI partners. "
    "You will play a few short rounds, each with a partner, and answer a few questions after each round. "
    "No name or contact details are asked; your answers are stored under a random code. "
    "You may stop at any time by closing this page. Press 'I agree' to take part."
)
AGE_RANGES = ("18-24", "25-34", "35-44", "45-54", "55-64", "65+")
GENDERS = ("woman", "man", "non-binary", "other")
FAMILIARITY = ("never played it", "played a few times", "played it often")
CHOICES = {"age_range": AGE_RANGES, "gender": GENDERS, "familiarity": FAMILIARITY}


class RunnerError(ValueError):
    """A request the study cannot honour now (wrong phase, unknown participant), with why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class DemographicsBody(BaseModel):
    """POST demographics: each answer one of the page's choices, or left out (null)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    age_range: str | None = Field(None, max_length=64)
    gender: str | None = Field(None, max_length=64)
    familiarity: str | None = Field(None, max_length=64)

    @field_validator("age_range", "gender", "familiarity")
    @classmethod
    def _a_choice(cls, value: str | None, info: ValidationInfo) -> str | None:
        name = info.field_name or ""
        if value in (None, ""):
            return None
        if value not in CHOICES[name]:
            raise ValueError(f"one of {', '.join(CHOICES[name])}, or nothing")
        return value


@dataclass
class LiveRound:
    """The game a participant is playing now (or has just finished)."""

    round: int
    name: str
    session: HumanSession


def round_steps(config: StudyConfig) -> int:
    """The round's horizon: ``steps``, or ``seconds`` at the study's tick rate, whichever is shorter."""
    ends = [config.round_length.steps] if config.round_length.steps else []
    if config.round_length.seconds:
        ends.append(max(1, math.ceil(config.round_length.seconds * config.fps)))
    if not ends:
        raise StudyError("round_length: give steps or seconds as well (soups ends a round early; the steps cap it)")
    return min(ends)


def read_consent(study_dir: Path) -> str:
    """consent.txt of the study folder (the lab's own text), else a short default."""
    path = study_dir / CONSENT_FILE
    if not path.is_file() or path.is_symlink():
        return DEFAULT_CONSENT
    if path.stat().st_size > 4 * MAX_CONSENT:
        raise StudyError(f"{path}: at most {MAX_CONSENT} characters")
    try:
        return path.read_text(encoding="utf-8")[:MAX_CONSENT]
    except UnicodeDecodeError as exc:
        raise StudyError(f"{path} is not UTF-8 text") from exc


class StudyRunner:
    """One study folder being run: thread-safe for the web handlers."""

    def __init__(
        self,
        study_dir: Path,
        llm: LLMFlags | None = None,
        command_line: Sequence[str] | None = None,
        envs: dict[str, DomainEnv] | None = None,
    ) -> None:
        """``llm``: the LLM agent's options (`--llm`, ...) for a partner named 'proagent' (default: the
        embedded model); ``command_line``: the words that started the study, recorded in every
        round's config.json; ``envs``: layout -> an env already compiled with this study's round
        length (a restarted runner in one process need not compile again)."""
        self.study_dir = Path(study_dir)
        self.config = load_config(self.study_dir)
        self.questionnaire = study_questionnaire(self.study_dir, self.config)
        self.horizon = round_steps(self.config)
        self.consent = read_consent(self.study_dir)
        self.llm = llm or LLMFlags()
        self.command_line = tuple(command_line or ("proagent", "study", "run", str(self.study_dir)))
        try:  # as `play` does: a key in the URL would end up in every round's folder (and fail at round 1)
            check_api_base(self.llm.api_base)
        except LLMConfigError as exc:
            raise StudyError(f"--api-base: {exc}") from None
        try:
            self.domain_name = domain_for(self.config.layouts[0].name, self.config.domain).name
        except ValueError as exc:
            raise StudyError(f"study.toml: {exc}") from exc
        self._lock = threading.RLock()
        self._envs: dict[str, DomainEnv] = envs if envs is not None else {}
        self._live: dict[str, LiveRound] = {}

    # ---- participants ----

    def new_participant(self, pid: str | None = None) -> Participant:
        """A participant with an opaque id (``pid``, else a random one) and their schedule."""
        with self._lock:
            root = self.study_dir / PARTICIPANTS_DIR
            index = sum(1 for p in root.iterdir() if p.is_dir()) if root.is_dir() else 0
            pid = pid or f"p{secrets.token_hex(5)}"
            try:
                folder = participant_dir(self.study_dir, pid)
            except ParticipantError as exc:
                raise RunnerError(400, str(exc)) from exc
            if folder.exists():
                raise RunnerError(409, f"participant {pid} exists already")
            person = Participant(id=pid, created=now(), schedule=schedule(self.config, pid, index))
            write_participant(self.study_dir, person)
            return person

    def participant(self, pid: str) -> Participant:
        try:
            return load_participant(self.study_dir, pid)
        except ParticipantError as exc:
            raise RunnerError(404, str(exc)) from exc

    def step(self, pid: str) -> Step:
        return next_step(self.study_dir, self.config, self.participant(pid))

    def overview(self) -> list[dict]:
        """Every participant with their phase, for the experimenter's page."""
        root = self.study_dir / PARTICIPANTS_DIR
        rows = []
        for folder in sorted(root.iterdir()) if root.is_dir() else []:
            try:
                step = self.step(folder.name)
            except RunnerError:
                continue
            rows.append(
                {
                    "id": folder.name,
                    "phase": step.phase,
                    "round": step.round,
                    "done": step.done_rounds,
                    "total": step.total,
                }
            )
        return rows

    def _expect(self, pid: str, phase: str) -> tuple[Participant, Step]:
        person = self.participant(pid)
        step = next_step(self.study_dir, self.config, person)
        if step.phase != phase:
            raise RunnerError(409, f"not now: the participant is at {step.phase}")
        return person, step

    def consent_given(self, pid: str) -> None:
        with self._lock:
            person, _ = self._expect(pid, "consent")
            write_participant(self.study_dir, person.model_copy(update={"consented": now()}))

    def demographics(self, pid: str, body: DemographicsBody) -> None:
        with self._lock:
            person, _ = self._expect(pid, "demographics")
            answers = Demographics(**body.model_dump())
            write_participant(
                self.study_dir, person.model_copy(update={"demographics": answers, "demographics_submitted": now()})
            )

    def answer(self, pid: str, round_number: int, payload: dict) -> AnswerLine:
        """One round's questionnaire (validated against the study's questionnaire), appended durably."""
        with self._lock:
            _, step = self._expect(pid, "questionnaire")
            if step.round != round_number:
                raise RunnerError(409, f"the questionnaire open now is round {step.round}'s")
            record = answers_record(self.questionnaire, payload)  # AnswerError: the caller answers 400
            line = AnswerLine(
                round=round_number,
                folder=step.folder_name,
                answers={a["id"]: a["value"] for a in record["answers"]},
                skipped=record["skipped"],
                comment=clean_text(record["comment"], MAX_COMMENT),
                submitted=now(),
            )
            append_answers(self.study_dir, pid, line)
            self._drop(pid)
            return line

    # ---- rounds ----

    def live_round(self, pid: str, start: bool) -> LiveRound:
        """The participant's game in memory (its page polls it to the end, even once the round is
        played); with ``start`` (the round page opens) a new one when their next step is a round
        that game is not. RunnerError 409 when there is nothing to play."""
        with self._lock:
            live = self._live.get(pid)
            if not start:
                if live is None:
                    raise RunnerError(409, "no round is being played now: open the study page again")
                return live
            step = self.step(pid)
            usable = live is not None and live.session.game.status != "error"
            if live is not None and usable and (step.phase != "round" or live.round == step.round):
                return live
            if step.phase != "round":
                raise RunnerError(409, f"no round to play now: the participant is at {step.phase}")
            self._drop(pid)
            self._live[pid] = live = self._build(pid, step)
            return live

    def _build(self, pid: str, step: Step) -> LiveRound:
        assert step.round is not None and step.layout is not None and step.partner is not None
        path = participant_dir(self.study_dir, pid) / "rounds" / step.folder_name
        if path.exists():  # started before, never finished (the server stopped mid-game)
            aside = participant_dir(self.study_dir, pid) / "abandoned"
            aside.mkdir(exist_ok=True)
            path.rename(aside / f"{step.folder_name}-{now_stamp()}")
        folder = round_folder(self.study_dir, pid, step.round, step.layout, step.partner)
        try:
            session = build_human_session(self.round_request(step), self._env(step.layout), folder)
        except (SetupError, RequestError) as exc:
            raise RunnerError(500, f"round {step.round}: {exc}") from exc
        return LiveRound(step.round, step.folder_name, session)

    def round_request(self, step: Step) -> HumanRequest:
        """The `proagent human` request of one round: the study's layout, partner, seat, mode, tick
        rate and round length, the runner's model, and a seed of its own per round."""
        assert step.round is not None
        soups = self.config.round_length.soups
        return HumanRequest.checked(
            layout=step.layout, domain=self.config.domain, horizon=self.horizon, agent=step.partner,
            human_seat=self.config.human_seat, mode=self.config.mode, fps=self.config.fps,
            until=("soups", soups) if soups else None, seed=self.config.seed + step.round, questionnaire=False,
            llm=self.llm, command_line=self.command_line,
        )  # fmt: skip

    def _env(self, layout: str) -> DomainEnv:
        """One compiled env per layout (every round of the study has the same horizon)."""
        if layout not in self._envs:
            try:
                self._envs[layout] = resolve_env(layout, self.horizon, self.config.domain)[1]
            except SetupError as exc:
                raise RunnerError(500, f"layout {layout}: {exc}") from exc
        return self._envs[layout]

    def check_partners(self) -> None:
        """Compile every layout's env and make every partner on it once before serving: a bad
        layout or partner name is an error at start, not in front of a participant (and the first
        round does not wait for a compile). The LLM agent is made per round, with its options."""
        trial = [(self.config.trial.layout, self.config.trial.partner)] if self.config.trial else []
        pairs = {(x.name, p.name) for x in self.config.layouts for p in self.config.partners} | set(trial)
        for layout in sorted({layout for layout, _ in pairs}):
            try:
                env = self._env(layout)
            except RunnerError as exc:
                raise StudyError(str(exc)) from exc
            state = env.jit_reset(jax.random.PRNGKey(0))
            jax.block_until_ready(env.jit_step(jax.random.PRNGKey(0), state, jnp.zeros((env.num_agents,), jnp.int32)))
            domain = domain_for(layout, self.config.domain)
            if domain.capabilities.rendering is None or has_view(domain):
                raise StudyError(f"{domain.name}: the study pages play worlds that draw themselves in the browser")
            builder = session_builder(domain, None)
            for partner in sorted(p for x, p in pairs if x == layout and p != LLM_AGENT):
                try:
                    builder.make(partner, env)
                except (UnknownAgentError, ValueError) as exc:
                    raise StudyError(f"partner {partner!r} on {layout}: {exc or 'unknown agent'}") from exc

    def _drop(self, pid: str) -> None:
        live = self._live.pop(pid, None)
        if live is not None:
            live.session.game.stop()

    def close(self) -> None:
        """Stop every game (a game stopped mid-round is played again from its start later)."""
        with self._lock:
            for pid in list(self._live):
                self._drop(pid)


__all__ = ["TRIAL_ROUND", "LiveRound", "RunnerError", "StudyRunner"]
