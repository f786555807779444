"""The web endpoints of `proagent human`: the page's view of one HumanGame.

GET  /api/info           static facts: terrain, seats, names, mode, tick rate, questionnaire
GET  /api/state          the current snapshot (the page polls it)
POST /api/start          start the episode (the person pressed Start)
POST /api/action         {"action": "up"|"down"|"left"|"right"|"interact"|"stay"}
POST /api/questionnaire  {"answers": {"q1": 1..5, ...}, "comment": ""} or {"skipped": true}
"""

from __future__ import annotations

import threading

from envs import Action
from proagent.runner.run_folder import RunFolder
from proagent.web.human_game import HumanGame
from proagent.web.questionnaire import AnswerError, Questionnaire, answers_record
from proagent.web.server import Handler, Response, error, json_response

QUESTIONNAIRE_RESULT = "questionnaire.json"
ACTIONS = {a.name.lower(): a for a in Action}


def human_routes(game: HumanGame, info: dict, questionnaire: Questionnaire | None, folder: RunFolder) -> dict[tuple[str, str], Handler]:
    saving = threading.Lock()

    def get_info(query: dict, body: dict | None) -> Response:
        return json_response({**info, "questionnaire": questionnaire.model_dump() if questionnaire else None, "run": str(folder.path)})

    def get_state(query: dict, body: dict | None) -> Response:
        return json_response({**game.snapshot(), "questionnaire_saved": (folder.path / QUESTIONNAIRE_RESULT).exists()})

    def start(query: dict, body: dict | None) -> Response:
        return json_response({"started": game.start(), "status": game.status})

    def action(query: dict, body: dict | None) -> Response:
        chosen = ACTIONS.get(str((body or {}).get("action", "")).lower())
        if chosen is None:
            return error(400, f"unknown action; one of {[a.name.lower() for a in Action]}")
        game.press(chosen)
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
        ("GET", "/api/info"): get_info,
        ("GET", "/api/state"): get_state,
        ("POST", "/api/start"): start,
        ("POST", "/api/action"): action,
        ("POST", "/api/questionnaire"): answer,
    }
