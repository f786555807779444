"""Blinding: what a participant's browser receives never names their partner.

The study protocol shows the partner only as "your partner". The round page is `proagent human`'s,
whose answers carry what a person playing alone may see (the episode record with the team's names,
errors that quote a model, the agent's own words), so every answer of a participant-facing route
passes through `Blinder.answer` on its way out: the finished episode is cut to what the page shows
(score, outcomes, steps), names and lists of names become "your partner", and any text that still
names a partner (by name or label), the LLM agent or its model has that name replaced. The lab's
own texts (consent, questionnaire, choices) are sent as the lab wrote them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from proagent.builder import LLM_AGENT
from proagent.study.format import StudyConfig
from proagent.web.server import Handler, HttpError, Response

HIDDEN = "your partner"
RECORD_SHOWN = ("score", "domain_metrics", "steps")  # what the round page shows of a finished episode
NAMING_KEYS = ("partner", "team", "agent_stats", "seat_usage", "partner_provenance", "llm", "model")
LAB_TEXTS = ("consent", "questionnaire", "choices")  # written by the lab, shown as written


class Blinder:
    """Blinds answers against ``names`` (partners, labels, the LLM agent and its model)."""

    def __init__(self, names: Iterable[str]) -> None:
        words = sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True)
        self.names = tuple(words)
        body = "|".join(re.escape(w) for w in words) or r"(?!)"
        self._pattern = re.compile(rf"(?<![A-Za-z0-9_])(?:{body})(?![A-Za-z0-9_])", re.IGNORECASE)

    def text(self, value: str) -> str:
        return self._pattern.sub(HIDDEN, value)

    def payload(self, value: Any, key: str = "") -> Any:
        """``value`` (a JSON answer or a part of one, under ``key``) blinded."""
        if key in LAB_TEXTS:
            return value
        if key == "record" and isinstance(value, dict):
            return {k: self.payload(value[k], k) for k in RECORD_SHOWN if k in value}
        if key in NAMING_KEYS:
            return HIDDEN if isinstance(value, str) else None
        if isinstance(value, dict):
            return {k: self.payload(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.payload(v, key) for v in value]
        return self.text(value) if isinstance(value, str) else value

    def answer(self, response: Response) -> Response:
        """A route's answer, blinded when it is JSON (static pages and scripts name no one)."""
        if response.content_type != "application/json":
            return response
        data = json.loads(response.body)
        return Response(response.status, json.dumps(self.payload(data), default=str).encode("utf-8"))

    def route(self, handler: Handler) -> Handler:
        """``handler`` with its answers blinded, errors included (an `HttpError` is answered by the
        server from its message, so the message is blinded here)."""

        def blinded(query: dict, body: dict | None) -> Response:
            try:
                return self.answer(handler(query, body))
            except HttpError as exc:
                raise HttpError(exc.status, self.text(str(exc))) from None

        return blinded


def study_names(config: StudyConfig, llm: str) -> list[str]:
    """What would name a partner: each partner's name and label (the trial's too), the LLM agent's
    name, and the model behind it (``--llm`` as given and its last part, ``gpt-4o-mini``)."""
    names = [LLM_AGENT, *(p.name for p in config.partners), *(p.label or "" for p in config.partners)]
    names += [config.trial.partner] if config.trial else []
    return [*names, llm, *re.split(r"[/:]", llm)[-1:]] if llm else names


def blinded_routes(routes: dict[tuple[str, str], Handler], blinder: Blinder) -> dict[tuple[str, str], Handler]:
    """Every route of ``routes`` answering through ``blinder``."""
    return {key: blinder.route(handler) for key, handler in routes.items()}
