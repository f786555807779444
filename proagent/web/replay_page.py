"""The replay page: served from a run folder, or exported as one self-contained HTML file.

The served page fetches ``/api/replay?episode=N`` and its domain's drawing script from
``/replay/domain.js`` (the `ReplayDrawing` of the run's domain: the page itself knows no world);
the exported file carries the same payload in a ``<script>`` and has the page's CSS and JS, the
domain's script included, inlined, so it opens from file:// with no server and no network (it can
be mailed or attached to a paper's supplement).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from proagent.bounded import read_int
from proagent.web.replay_data import ReplayDrawing, ReplayError, RunTrace, drawing_of, episode_payload
from proagent.web.server import STATIC_DIR, Handler, Response, error, file_response, json_response

PAGE = "replay.html"
DOMAIN_SCRIPT = "/replay/domain.js"  # where replay.html loads the domain's drawing script from
_ASSET = re.compile(
    r'<script src="(/static/[\w.-]+\.js|/replay/domain\.js)"></script>'
    r'|<link rel="stylesheet" href="/static/([\w.-]+\.css)">'
)


def replay_routes(
    run: RunTrace, default_episode: int = 0, drawing: ReplayDrawing | None = None
) -> dict[tuple[str, str], Handler]:
    """The page's JSON and its domain's script; ``drawing`` defaults to that of the run's domain
    (resolved now, so an unknown domain is a ReplayError before anything is served)."""
    drawing = drawing or drawing_of(run)

    def get_replay(query: dict, body: dict | None) -> Response:
        try:
            index = read_int(str(query.get("episode", default_episode)), "?episode", 0, None)
            return json_response(episode_payload(run, index, drawing))
        except (ValueError, ReplayError) as exc:
            return error(404, str(exc))

    def get_script(query: dict, body: dict | None) -> Response:
        return file_response(drawing.script)

    return {("GET", "/api/replay"): get_replay, ("GET", DOMAIN_SCRIPT): get_script}


def _script_json(data: object) -> str:
    """JSON that cannot end the <script> it sits in."""
    return json.dumps(data, default=str).replace("</", "<\\/").replace("<!--", "<\\!--")


def _inliner(drawing: ReplayDrawing):
    """Replaces a page's <script src>/<link> with the file's text (the domain's script for DOMAIN_SCRIPT)."""

    def inline(match: re.Match) -> str:
        js, css = match.group(1), match.group(2)
        if js:
            path = drawing.script if js == DOMAIN_SCRIPT else STATIC_DIR / js.removeprefix("/static/")
            return "<script>\n" + path.read_text(encoding="utf-8").replace("</script", "<\\/script") + "\n</script>"
        return "<style>\n" + (STATIC_DIR / css).read_text(encoding="utf-8") + "\n</style>"

    return inline


def export_html(run: RunTrace, out: Path, episode: int = 0, drawing: ReplayDrawing | None = None) -> Path:
    """Write a self-contained replay of ``episode`` to ``out`` (drawn by the run's domain by default)."""
    drawing = drawing or drawing_of(run)
    payload = episode_payload(run, episode, drawing)
    page = (STATIC_DIR / PAGE).read_text(encoding="utf-8")
    page = _ASSET.sub(_inliner(drawing), page)
    data = f"<script>window.REPLAY_DATA = {_script_json(payload)};</script>\n"
    page = page.replace("<!-- REPLAY_DATA -->", data, 1)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out)
    return out
