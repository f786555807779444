"""The web endpoints of `proagent study run` (the pages: proagent/web/static/study.html, and
human.html for a round).

GET  /                          the study page: the experimenter's view, or with ?id= a participant's
GET  /play?id=ID                a round: the `proagent human` page, on this participant's game
GET  /api/study/participants?key=K    the experimenter's list (ids and phases only)
POST /api/study/participants?key=K    {} or {"id": "P001"}: a new participant and their URL
GET  /api/study/state?id=ID     where the participant is, with what that page needs
POST /api/study/consent?id=ID   {"agree": true}
POST /api/study/demographics?id=ID   {"age_range": ..., "gender": ..., "familiarity": ...} (each optional)
POST /api/study/answers?id=ID   {"round": k, "answers": {...}, "comment": ""} or {"round": k, "skipped": true}
GET  /api/info, /api/state, POST /api/start, /api/action (each ?id=ID): the round's game, as in
                                `proagent human` (the same handlers, `human_routes`)

The experimenter's routes need the key the runner printed when it started (``?key=``): a
participant who drops ``?id=`` from their link sees neither the other ids nor a way to add people.
Every id is checked against the participant-id pattern before it names a folder; every body is
parsed strictly (`parse_body`); the server's RequestGuard has already refused other origins.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from proagent.study.blind import Blinder, blinded_routes, study_names
from proagent.study.format import ID_FIELD, PARTICIPANT_ID
from proagent.study.runner import CHOICES, DemographicsBody, LiveRound, RunnerError, StudyRunner
from proagent.web.human_app import human_routes
from proagent.web.questionnaire import AnswerError
from proagent.web.replay_data import replay_drawing_for
from proagent.web.server import (
    Handler,
    HttpError,
    Response,
    error,
    file_response,
    json_response,
    parse_body,
    static_file,
)

PAGE = "study.html"
ROUND_PAGE = "human.html"


class NewParticipantBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    id: str | None = Field(None, pattern=ID_FIELD)


class ConsentBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    agree: bool


def _pid(query: dict[str, str]) -> str:
    pid = query.get("id", "")
    if not PARTICIPANT_ID.fullmatch(pid):
        raise HttpError(400, "?id= must be a participant id (letters, digits, _ and -; at most 64)")
    return pid


def _refusal(exc: RunnerError) -> HttpError:
    return HttpError(exc.status, str(exc))


def study_routes(runner: StudyRunner, experimenter_key: str) -> dict[tuple[str, str], Handler]:
    """The study's routes; each resolves the participant from ``?id=`` and asks the runner; the
    experimenter's need ``?key=experimenter_key``. Every participant-facing answer is blinded
    (`proagent.study.blind`): no partner, agent or model name reaches a participant's browser."""
    participant_facing = {
        ("GET", "/play"): lambda query, body: static_file(ROUND_PAGE),
        ("GET", "/domain.js"): lambda query, body: file_response(replay_drawing_for(runner.domain_name).script),
        **_participant_routes(runner),
        **_game_routes(runner),
    }
    blinder = Blinder(study_names(runner.config, runner.llm.llm))  # the protocol: never a partner's name
    return {**_experimenter_routes(runner, experimenter_key), **blinded_routes(participant_facing, blinder)}


def _experimenter_routes(runner: StudyRunner, key: str) -> dict[tuple[str, str], Handler]:
    """The experimenter's list and new participants (no participant id needed, the key is)."""

    def check_key(query: dict) -> None:
        if not hmac.compare_digest(query.get("key", "").encode(), key.encode()):
            raise HttpError(403, "the experimenter's page needs its key: open the link `proagent study run` printed")

    def participants(query: dict, body: dict | None) -> Response:
        check_key(query)
        return json_response({"study": runner.config.name, "participants": runner.overview()})

    def new(query: dict, body: dict | None) -> Response:
        check_key(query)
        wanted = parse_body(NewParticipantBody, body).id
        try:
            person = runner.new_participant(wanted)
        except RunnerError as exc:
            raise _refusal(exc) from exc
        return json_response({"id": person.id, "url": f"/?id={person.id}", "rounds": len(person.schedule)})

    return {("GET", "/api/study/participants"): participants, ("POST", "/api/study/participants"): new}


def _participant_routes(runner: StudyRunner) -> dict[tuple[str, str], Handler]:
    """The participant's pages: where they are, consent, demographics, a round's answers."""

    def state(query: dict, body: dict | None) -> Response:
        pid = _pid(query)
        try:
            step = runner.step(pid)
        except RunnerError as exc:
            raise _refusal(exc) from exc
        page: dict = {
            "id": pid,
            "phase": step.phase,
            "round": step.round,
            "done": step.done_rounds,
            "total": step.total,
        }
        page["trial"] = step.round == 0
        if step.phase == "consent":
            page["consent"] = runner.consent
        elif step.phase == "demographics":
            page["choices"] = {name: list(values) for name, values in CHOICES.items()}
        elif step.phase == "questionnaire":
            page["questionnaire"] = runner.questionnaire.model_dump()
        return json_response(page)

    def consent(query: dict, body: dict | None) -> Response:
        pid = _pid(query)
        if not parse_body(ConsentBody, body).agree:
            return error(400, "consent is given with agree: true; close the page to decline")
        return _ask(lambda: runner.consent_given(pid))

    def demographics(query: dict, body: dict | None) -> Response:
        pid = _pid(query)
        answers = parse_body(DemographicsBody, body)
        return _ask(lambda: runner.demographics(pid, answers))

    def answers(query: dict, body: dict | None) -> Response:
        pid = _pid(query)
        payload = dict(body or {})
        number = payload.pop("round", None)
        if not isinstance(number, int) or isinstance(number, bool):
            raise HttpError(400, "round: the round these answers are for (an integer)")
        try:
            runner.answer(pid, number, payload)
        except AnswerError as exc:
            raise HttpError(400, str(exc)) from exc
        except RunnerError as exc:
            raise _refusal(exc) from exc
        return json_response({"saved": True})

    return {
        ("GET", "/api/study/state"): state,
        ("POST", "/api/study/consent"): consent,
        ("POST", "/api/study/demographics"): demographics,
        ("POST", "/api/study/answers"): answers,
    }


def _ask(action: Callable[[], None]) -> Response:
    try:
        action()
    except RunnerError as exc:
        raise _refusal(exc) from exc
    return json_response({"saved": True})


def _game_routes(runner: StudyRunner) -> dict[tuple[str, str], Handler]:
    """The `proagent human` game endpoints, each on the game of the participant in ``?id=``."""

    def live(query: dict, start: bool) -> LiveRound:
        pid = _pid(query)
        try:
            runner.participant(pid)
            return runner.live_round(pid, start)
        except RunnerError as exc:
            raise _refusal(exc) from exc

    def info(query: dict, body: dict | None) -> Response:
        pid = _pid(query)
        game = live(query, start=True)
        names = [
            "you" if seat == game.session.game.settings.human_seat else "partner"
            for seat in range(game.session.env.num_agents)
        ]
        title = "trial round" if game.round == 0 else f"round {game.round}"
        page = {
            **game.session.info,
            "agent": "your partner",
            "names": names,
            "questionnaire": None,
            "run": f"{title} of the study",
        }
        return json_response({**page, "next": f"/?id={pid}"})

    def delegate(method: str, path: str) -> Handler:
        def handler(query: dict, body: dict | None) -> Response:
            game = live(query, start=False)
            routes = human_routes(game.session.game, game.session.info, None, game.session.folder)
            return routes[(method, path)](query, body)

        return handler

    return {
        ("GET", "/api/info"): info,
        **{(m, p): delegate(m, p) for m, p in (("GET", "/api/state"), ("POST", "/api/start"), ("POST", "/api/action"))},
    }
