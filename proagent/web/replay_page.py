"""The replay page: served from a run folder, or exported as one self-contained HTML file.

The served page fetches ``/api/replay?episode=N``; the exported file carries the same payload in
a ``<script>`` and has the page's CSS and JS inlined, so it opens from file:// with no server and
no network (it can be mailed or attached to a paper's supplement).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from proagent.web.replay_data import ReplayError, RunTrace, episode_payload
from proagent.web.server import STATIC_DIR, Handler, Response, error, json_response

PAGE = "replay.html"
_ASSET = re.compile(r'<script src="/static/([\w.-]+\.js)"></script>|<link rel="stylesheet" href="/static/([\w.-]+\.css)">')


def replay_routes(run: RunTrace, default_episode: int = 0) -> dict[tuple[str, str], Handler]:
    def get_replay(query: dict, body: dict | None) -> Response:
        try:
            index = int(query.get("episode", default_episode))
            return json_response(episode_payload(run, index))
        except (ValueError, ReplayError) as exc:
            return error(404, str(exc))

    return {("GET", "/api/replay"): get_replay}


def _script_json(data: object) -> str:
    """JSON that cannot end the <script> it sits in."""
    return json.dumps(data, default=str).replace("</", "<\\/").replace("<!--", "<\\!--")


def _inline(match: re.Match) -> str:
    js, css = match.group(1), match.group(2)
    if js:
        return "<script>\n" + (STATIC_DIR / js).read_text(encoding="utf-8").replace("</script", "<\\/script") + "\n</script>"
    return "<style>\n" + (STATIC_DIR / css).read_text(encoding="utf-8") + "\n</style>"


def export_html(run: RunTrace, out: Path, episode: int = 0) -> Path:
    """Write a self-contained replay of ``episode`` to ``out``."""
    payload = episode_payload(run, episode)
    page = (STATIC_DIR / PAGE).read_text(encoding="utf-8")
    page = _ASSET.sub(_inline, page)
    data = f"<script>window.REPLAY_DATA = {_script_json(payload)};</script>\n"
    page = page.replace("<!-- REPLAY_DATA -->", data, 1)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out)
    return out
