"""A run folder's trace as frames a browser can draw: one JSON payload per episode.

Reads `trace.jsonl` of any run (play, eval with ``trace``, human) and groups its lines by episode
(eval traces interleave many: they are told apart by their ``key`` and ``attempt`` tags); only
episodes that finished are listed once the folder has an episodes.jsonl. Each
frame holds the kitchen (structured ``kitchen`` record, or parsed back from the ASCII ``state`` of
traces written before it existed), both actions, events, score, each agent's skill, the planner's
analysis and predicted intention (carried forward until the next decision), Verificator rejections
and belief corrections. Prompts are left out: they are large and the trace keeps them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from proagent.jsonl import episode_id, finished_attempt, read_jsonl
from proagent.web.ascii_kitchen import parse_ascii, parse_terrain

TRACE_FILE = "trace.jsonl"
EPISODES_FILE = "episodes.jsonl"


class ReplayError(ValueError):
    """The folder has nothing to replay, with the reason a user can act on."""


@dataclass
class EpisodeTrace:
    """The trace lines of one episode, in step order."""

    key: str
    episode: int
    records: list[dict] = field(default_factory=list)

    @property
    def label(self) -> str:
        tag = self.key.split("#")[0]
        return f"{tag} (episode {self.episode})" if tag else f"episode {self.episode}"


@dataclass
class RunTrace:
    path: Path
    config: dict
    episodes: list[EpisodeTrace]
    extra: dict = field(default_factory=dict)  # summary.json, questionnaire.json when present
    unfinished: int = 0  # traced episodes left out: no record in episodes.jsonl (a killed or running attempt)


def load_run(path: Path) -> RunTrace:
    """Read a run folder; raise ReplayError when there is no usable trace.

    Where the folder has an episodes.jsonl, only the traced episodes that finished are listed: the
    ones with a record there, traced by the attempt that wrote the record (``finished_attempt``),
    so a killed attempt's partial lines, or an episode still being played, are not an episode.
    Without episodes.jsonl (a run still in its first episode, a human game left unfinished) every
    traced episode is listed as far as it got."""
    path = Path(path)
    trace = path / TRACE_FILE
    if not path.is_dir():
        raise ReplayError(f"no run folder at {path}")
    if not trace.exists():
        raise ReplayError(f"{path} has no {TRACE_FILE} (eval runs write one only with trace = true)")
    groups: dict[tuple[str, str], EpisodeTrace] = {}
    for record in read_jsonl(trace).records:
        attempt = str(record.get("attempt", ""))
        key = f"{record.get('key', '')}#{attempt}#{record.get('episode', 0)}"
        groups.setdefault((episode_id(record), attempt), EpisodeTrace(key, int(record.get("episode", 0)))).records.append(record)
    if not groups:
        raise ReplayError(f"{trace} is empty")
    episodes = list(groups.values())
    if (path / EPISODES_FILE).exists():
        episodes = [groups[k] for k in _finished(groups, path / EPISODES_FILE)]
        if not episodes:
            raise ReplayError(f"{trace} has no finished episode: none of its episodes has a record in {EPISODES_FILE}")
    extra = {name: _read_json(path / f"{name}.json") for name in ("summary", "questionnaire")}
    config = _read_json(path / "config.json") or {}
    return RunTrace(path, config, episodes, {k: v for k, v in extra.items() if v}, len(groups) - len(episodes))


def _finished(groups: dict[tuple[str, str], EpisodeTrace], episodes_file: Path) -> list[tuple[str, str]]:
    """The (episode id, attempt) groups that have a record, in trace order (the first record of an
    episode counts, as in the eval's reading of episodes.jsonl)."""
    records: dict[str, dict] = {}
    for record in read_jsonl(episodes_file).records:
        records.setdefault(episode_id(record), record)
    attempts: dict[str, dict[str, list[dict]]] = {}
    for (eid, attempt), group in groups.items():
        attempts.setdefault(eid, {})[attempt] = group.records
    chosen = {(eid, finished_attempt(record, attempts[eid])) for eid, record in records.items() if eid in attempts}
    return [k for k in groups if k in chosen]


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # missing, not UTF-8, not JSON
        return None


def episode_payload(run: RunTrace, index: int = 0) -> dict:
    """Everything the replay page needs for episode ``index`` (position in the run's trace)."""
    if not 0 <= index < len(run.episodes):
        raise ReplayError(f"episode {index} not in this run (it has {len(run.episodes)}: 0..{len(run.episodes) - 1})")
    trace = run.episodes[index]
    records = sorted(trace.records, key=lambda r: r.get("step", 0))
    seat = _seat(records[0], trace.key, run.config)
    frames = _frames(records)
    return {
        "title": run.path.name,
        "episode": index,
        "episodes": [e.label for e in run.episodes],
        "layout": run.config.get("layout") or _layout_from_key(trace.key),
        "seat": seat,
        "names": _player_names(run.config, trace.key, seat),
        "terrain": records[0].get("terrain") or parse_terrain(records[0]["state"]),
        "frames": frames,
        "config": {k: run.config.get(k) for k in ("command", "layout", "partner", "llm", "seed", "horizon", "created") if k in run.config},
        "extra": run.extra,
    }


def _frames(records: list[dict]) -> list[dict]:
    frames: list[dict] = []
    analysis = intention = None
    for record in records:
        decision = record.get("decision") or None
        if decision is not None:
            analysis, intention = decision.get("analysis"), decision.get("intention")
        frames.append(_frame(record, decision, analysis, intention))
    last = records[-1]
    if last.get("final"):
        final = last["final"]
        kitchen = final.get("kitchen") or parse_ascii(final["state"])
        frames.append({**frames[-1], "kitchen": kitchen, "step": kitchen["step"], "actions": None, "events": [], "reward": 0.0,
                       "decision": None, "belief": None, "final": True})  # fmt: skip
    return frames


def _frame(record: dict, decision: dict | None, analysis: str | None, intention: str | None) -> dict:
    return {
        "step": record.get("step", 0),
        "kitchen": record.get("kitchen") or parse_ascii(record["state"]),
        "actions": record.get("actions"),
        "events": record.get("events", []),
        "reward": record.get("reward", 0.0),
        "score": record.get("score", 0.0),
        "skill": record.get("skill"),
        "partner_skill": record.get("partner_skill"),
        "thinking": bool(record.get("thinking")),
        "analysis": analysis,
        "intention": intention,
        "decision": _decision_summary(decision) if decision else None,
        "belief": record.get("belief"),
    }


def _decision_summary(decision: dict) -> dict:
    """A decision without its prompts: what was tried, why the Verificator rejected it."""
    attempts = [
        {"plan": a.get("plan"), "failures": a.get("failures") or [], "explanation": a.get("explanation"), "parse_error": a.get("parse_error")}
        for a in decision.get("attempts", [])
    ]
    return {
        "step": decision.get("step"),
        "skill": decision.get("skill"),
        "fallback": decision.get("fallback", False),
        "llm_calls": decision.get("llm_calls", 0),
        "llm_latency_s": decision.get("llm_latency_s", 0.0),
        "attempts": attempts,
    }


def _seat(record: dict, key: str, config: dict) -> int:
    if "seat" in record:
        return int(record["seat"])
    match = re.search(r"\|p(\d)\|", key)
    return int(match.group(1)) if match else int(config.get("seat", 0))


def _layout_from_key(key: str) -> str:
    parts = key.split("#")[0].split("|")
    return parts[2] if len(parts) > 2 else ""


def _player_names(config: dict, key: str, seat: int) -> list[str]:
    """Who played each seat: the agent in ``seat`` and its partner ("human" in human runs)."""
    parts = key.split("#")[0].split("|")
    if len(parts) > 2:
        agent, partner = parts[0], parts[1]
    else:
        agent = (config.get("agent") or {}).get("name") or "proagent"
        partner = config.get("partner", "partner")
    names = ["", ""]
    names[seat], names[1 - seat] = agent, partner
    return names
