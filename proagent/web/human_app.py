"""The web endpoints of `proagent human`: the page's view of one HumanGame.

GET  /api/info           static facts: terrain, seats, names, mode, tick rate, questionnaire
GET  /api/state          the current snapshot (the page polls it)
GET  /domain.js          the domain's drawing script (the page itself knows no world)
POST /api/start          {} : start the episode (the person pressed Start)
POST /api/action         {"action": "up"|"down"|"left"|"right"|"interact"|"stay"}
POST /api/questionnaire  {"answers": {"q1": 1..5, ...}, "comment": ""} or {"skipped": true}

Posted bodies are strict (pydantic strict mode, unknown fields refused): a key is one of the six
lower-case names, a Likert answer a JSON integer in the scale (``true`` is not 1). The server's
RequestGuard has already refused other origins and malformed requests (proagent/web/server.py).
"""

from __future__ import annotations

import threading

from pydantic import BaseModel, ConfigDict, Field

from proagent.runner.run_folder import RunFolder
from proagent.web.human_game import HumanGame
from proagent.web.questionnaire import AnswerError, Questionnaire, answers_record
from proagent.web.replay_data import replay_drawing_for
from proagent.web.server import Handler, Response, error, file_response, json_response, parse_body

QUESTIONNAIRE_RESULT = "questionnaire.json"


class StartBody(BaseModel):
    """POST /api/start: an empty object."""

    model_config = ConfigDict(strict=True, extra="forbid")


class ActionBody(BaseModel):
    """POST /api/action: one key press, by the domain's action name (checked against the game's)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    action: str = Field(max_length=32)


def human_routes(
    game: HumanGame, info: dict, questionnaire: Questionnaire | None, folder: RunFolder
) -> dict[tuple[str, str], Handler]:
    saving = threading.Lock()

    def get_info(query: dict, body: dict | None) -> Response:
        return json_response(
            {**info, "questionnaire": questionnaire.model_dump() if questionnaire else None, "run": str(folder.path)}
        )

    def get_state(query: dict, body: dict | None) -> Response:
        return json_response({**game.snapshot(), "questionnaire_saved": (folder.path / QUESTIONNAIRE_RESULT).exists()})

    def start(query: dict, body: dict | None) -> Response:
        parse_body(StartBody, body)
        return json_response({"started": game.start(), "status": game.status})

    actions = {name: index for index, name in enumerate(game.domain.action_names)}

    def action(query: dict, body: dict | None) -> Response:
        name = parse_body(ActionBody, body).action
        if name not in actions:
            return error(400, f"unknown action {name!r}; actions: {', '.join(actions)}")
        game.press(actions[name])
        return json_response({"ok": True})

    def answer(query: dict, body: dict | None) -> Response:
        if questionnaire is None:
            return error(404, "this session has no questionnaire")
        if not game.done.is_set():
            return error(409, "the questionnaire opens when the game is over")
        try:
            record = answers_record(questionnaire, body or {})
        except AnswerError as exc:
            return error(400, str(exc))
        with saving:
            if (folder.path / QUESTIONNAIRE_RESULT).exists():
                return error(409, "the questionnaire was already saved")
            folder.write_json(QUESTIONNAIRE_RESULT, record)
        game.mark_finished()
        return json_response({"saved": str(folder.path / QUESTIONNAIRE_RESULT)})

    return {
        ("GET", "/domain.js"): lambda query, body: file_response(replay_drawing_for(game.domain.name).script),
        ("GET", "/api/info"): get_info,
        ("GET", "/api/state"): get_state,
        ("POST", "/api/start"): start,
        ("POST", "/api/action"): action,
        ("POST", "/api/questionnaire"): answer,
    }
