"""A run folder's trace as frames a browser can draw: one JSON payload per episode.

Reads `trace.jsonl` of any run (play, eval with ``trace``, human) and groups its lines by episode
(eval traces interleave many: they are told apart by their ``key`` and ``attempt`` tags); only
episodes that finished are listed once the folder has an episodes.jsonl. Each
frame holds what the run's domain draws (its `ReplayDrawing` decodes each trace line: this module
knows no world), every seat's action, events, score, each agent's skill, the planner's analysis
and predicted intention (carried forward until the next decision), every LLM teammate's too (the
trace's ``team_decisions``), Verificator rejections, the undo
loops caught (each with the skill, the step it was chosen before and what undid it) and belief
corrections; the payload also carries the episode's ``domain_metrics``. Prompts are left
out: they are large and the trace keeps them.

Where the trace has what MAEIL and the cooperation-constraint metrics record (``cognition``,
``stages``, ``constraints`` on its lines), the payload also has ``lanes`` (`episode_lanes`): per
step, what the page's three-lane timeline draws (each agent's stages and the plans, interrupts and
messages of the cognitive phase before the step; the constraints of the tasks worked on). Traces
without them have no ``lanes`` and their payload is as before.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.domains import DEFAULT_DOMAIN
from proagent.domains import replay_drawing_for as domain_replay_drawing
from proagent.jsonl import episode_id, finished_attempt, read_jsonl
from proagent.numbers import episode_label, format_score
from proagent.run_lines import MAX_SEATS, MAX_STEPS, NAME, check_plain, episode_line, trace_line
from proagent.runner.run_world import RunFolderError, world_of
from proagent.web.replay_clock import clock_marks
from proagent.web.replay_lanes import episode_lanes
from proagent.world.replay import ReplayDrawing
from proagent.world.types import DomainInputError

TRACE_FILE = "trace.jsonl"
MAX_JSON_BYTES = 16 * 1024 * 1024  # config.json, summary.json, questionnaire.json: a few KiB each
_LOG = logging.getLogger(__name__)
EPISODES_FILE = "episodes.jsonl"


class ReplayError(ValueError):
    """The folder has nothing to replay, with the reason a user can act on."""


def replay_drawing_for(name: str) -> ReplayDrawing:
    """The drawing of the domain ``name`` (proagent.domains.replay_drawing_for); the generic replay
    code never imports a world itself."""
    return domain_replay_drawing(name)


@dataclass
class EpisodeTrace:
    """The trace lines of one episode, in step order."""

    key: str
    episode: int
    records: list[dict] = field(default_factory=list)
    outcome: dict | None = None  # its record in episodes.jsonl, when it has one

    @property
    def group(self) -> str:
        """Who played it, for an eval run (agent|partner|layout|pSeat: its key without the episode);
        empty for play and human runs, which have one pair."""
        tag = self.key.split("#")[0]
        return tag.rsplit("|", 1)[0] if "|" in tag else tag

    @property
    def label(self) -> str:
        """The name people read: ``episode N`` counted from 1 (`episode_label`), after the pair."""
        return f"{self.group} · {episode_label(self.episode)}" if self.group else episode_label(self.episode)


@dataclass
class RunTrace:
    path: Path
    config: dict
    episodes: list[EpisodeTrace]
    extra: dict = field(default_factory=dict)  # summary.json, questionnaire.json when present
    unfinished: int = 0  # traced episodes left out: no record in episodes.jsonl (a killed or running attempt)
    domain: str = DEFAULT_DOMAIN  # the world the run played (`world_of`: the one reader of every run folder's world)


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
    for record in read_jsonl(trace, parse=trace_line).records:
        attempt = str(record.get("attempt", ""))
        key = f"{record.get('key', '')}#{attempt}#{record.get('episode', 0)}"
        groups.setdefault(
            (episode_id(record), attempt), EpisodeTrace(key, int(record.get("episode", 0)))
        ).records.append(record)
    if not groups:
        raise ReplayError(f"{trace} is empty")
    episodes = _in_episode_order(list(groups.values()))
    if (path / EPISODES_FILE).exists():
        finished = _finished(groups, path / EPISODES_FILE)
        for k, outcome in finished.items():
            groups[k].outcome = outcome
        episodes = _in_episode_order([groups[k] for k in finished])
        if not episodes:
            raise ReplayError(f"{trace} has no finished episode: none of its episodes has a record in {EPISODES_FILE}")
    extra = {name: _read_json(path / f"{name}.json") for name in ("summary", "questionnaire")}
    config = _replay_config(path / "config.json")
    try:
        domain = world_of(path)
    except RunFolderError as exc:
        raise ReplayError(str(exc)) from None
    return RunTrace(path, config, episodes, {k: v for k, v in extra.items() if v}, len(groups) - len(episodes), domain)


def _in_episode_order(episodes: list[EpisodeTrace]) -> list[EpisodeTrace]:
    """By pair (in the order the trace first names it), then by episode index: an eval's episodes
    finish in any order, and a replay's list (and ``--episode``) must not depend on it."""
    first = {e.group: i for i, e in reversed(list(enumerate(episodes)))}
    return sorted(episodes, key=lambda e: (first[e.group], e.episode))


def _finished(groups: dict[tuple[str, str], EpisodeTrace], episodes_file: Path) -> dict[tuple[str, str], dict]:
    """The (episode id, attempt) groups that have a record, in trace order, with that record (the
    first record of an episode counts, as in the eval's reading of episodes.jsonl)."""
    records: dict[str, dict] = {}
    for record in read_jsonl(episodes_file, parse=episode_line).records:
        records.setdefault(episode_id(record), record)
    attempts: dict[str, dict[str, list[dict]]] = {}
    for (eid, attempt), group in groups.items():
        attempts.setdefault(eid, {})[attempt] = group.records
    chosen = {(eid, finished_attempt(r, attempts[eid])): r for eid, r in records.items() if eid in attempts}
    return {k: chosen[k] for k in groups if k in chosen}


def _read_json(path: Path) -> dict | None:
    """A JSON object within `check_plain`'s bounds, or None: missing, not UTF-8, not JSON, too big
    or too deep (with a warning then: it is left out of the page)."""
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise ValueError(f"more than {MAX_JSON_BYTES} bytes")
        value = json.loads(path.read_text(encoding="utf-8"))
        check_plain(value)
    except OSError:
        return None
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, out of bounds
        _LOG.warning("%s: not read (%s)", path, str(exc)[:80])
        return None
    if not isinstance(value, dict):
        _LOG.warning("%s: not read (a JSON %s, not an object)", path, type(value).__name__)
        return None
    return value


class _Agent(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    name: str | None = Field(None, max_length=NAME)


class _ReplayConfig(BaseModel):
    """The fields of config.json the page shows or the seats are named from (strict types)."""

    model_config = ConfigDict(strict=True, extra="allow")

    command: str | None = Field(None, max_length=100_000)
    layout: str | None = Field(None, max_length=NAME)
    partner: str | None = Field(None, max_length=NAME)
    llm: str | None = Field(None, max_length=NAME)
    seed: int | None = None
    horizon: int | None = Field(None, ge=0, le=MAX_STEPS)
    created: str | None = Field(None, max_length=NAME)
    seat: int | None = Field(None, ge=0, lt=MAX_SEATS)
    agent: _Agent | None = None


def _replay_config(path: Path) -> dict:
    """config.json as the page reads it: {} when absent or unreadable; ReplayError naming the field
    when a field the page uses has the wrong type or range (a run folder is untrusted)."""
    config = _read_json(path)
    if config is None:
        return {}
    try:
        _ReplayConfig.model_validate(config)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise ReplayError(f"{path}: {where}: {error['msg']}") from None
    return config


def episode_payload(run: RunTrace, index: int = 0, drawing: ReplayDrawing | None = None) -> dict:
    """Everything the replay page needs for the episode at position ``index`` of ``run.episodes``
    (the page's list; people pick one by its number and pair: `replay_index.select_episode`),
    drawn by ``drawing`` (default: the drawing of the run's domain)."""
    if not 0 <= index < len(run.episodes):
        raise ReplayError(f"no episode at position {index} of this run's list (it has {len(run.episodes)})")
    drawing = drawing or drawing_of(run)
    trace = run.episodes[index]
    records = sorted(trace.records, key=lambda r: r.get("step", 0))
    seat = _seat(records[0], trace.key, run.config)
    frames = _frames(records, drawing)
    payload = {
        "title": run.path.name,
        "episode": index,
        "episodes": [e.label for e in run.episodes],
        "domain": drawing.domain,
        "layout": run.config.get("layout") or _layout_from_key(trace.key),
        "seat": seat,
        "names": _player_names(run.config, trace.key, seat, _seat_count(records, seat)),
        **drawing.scene(records[0]),
        "frames": frames,
        "score_span": _score_span(frames),
        "metrics": episode_metrics(trace.outcome, drawing.legacy_metrics),
        "config": {
            k: run.config.get(k)
            for k in ("command", "layout", "partner", "llm", "seed", "horizon", "created")
            if k in run.config
        },
        "extra": run.extra,
    }
    lanes = episode_lanes(records)
    if lanes is not None:
        payload["lanes"] = lanes
    return payload


def drawing_of(run: RunTrace) -> ReplayDrawing:
    """The drawing of the run's domain, or a ReplayError a user can act on."""
    try:
        return replay_drawing_for(run.domain)
    except DomainInputError as exc:
        raise ReplayError(f"{run.path} cannot be replayed: {exc}") from exc


def _score_span(frames: list[dict]) -> list[str]:
    """The lowest and highest score of the episode (0 included: the chart's axis), as people read
    them (`format_score`): the score chart's range in this world, not a fixed maximum."""
    scores = [0.0, *(float(f["score"]) for f in frames)]
    return [format_score(min(scores)), format_score(max(scores))]


def episode_metrics(record: dict | None, legacy: tuple[str, ...] = ()) -> dict[str, float]:
    """The episode's ``domain_metrics`` (name -> number), or for records written before it the
    domain's ``legacy`` top-level fields; empty for an episode without a record."""
    if not record:
        return {}
    metrics = record.get("domain_metrics")
    if not isinstance(metrics, dict):
        metrics = {name: record[name] for name in legacy if name in record}
    return {str(k): v for k, v in metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def _frames(records: list[dict], drawing: ReplayDrawing) -> list[dict]:
    frames: list[dict] = []
    marks = clock_marks(records)
    analysis = intention = None
    team: dict[str, dict] = {}  # seat -> the teammate's last analysis and intention, carried forward
    for record in records:
        decision = record.get("decision") or None
        if decision is not None:
            analysis, intention = decision.get("analysis"), decision.get("intention")
        decided = _team_decisions(record)
        team = {
            **team,
            **{seat: {"analysis": d.get("analysis"), "intention": d.get("intention")} for seat, d in decided.items()},
        }
        frame = _frame(record, drawing.frame(record), decision, analysis, intention)
        frame["team"] = team
        frame["team_decisions"] = {seat: _decision_summary(d) for seat, d in decided.items()}
        frame["clock"] = marks.get(record.get("step", 0), [])
        frames.append(frame)
    end = drawing.end(records[-1])
    if end is not None:
        frames.append({**frames[-1], **end.drawn, "step": end.step, "actions": None, "events": [], "reward": 0.0,
                       "decision": None, "team_decisions": {}, "belief": None, "clock": [], "final": True})  # fmt: skip
    return frames


def _frame(record: dict, drawn: dict, decision: dict | None, analysis: str | None, intention: str | None) -> dict:
    return {
        "step": record.get("step", 0),
        **drawn,
        "actions": record.get("actions"),
        "events": record.get("events", []),
        "reward": record.get("reward", 0.0),
        "score": record.get("score", 0.0),
        "score_text": format_score(float(record.get("score", 0.0))),
        "skill": record.get("skill"),
        "partner_skill": record.get("partner_skill"),
        "thinking": bool(record.get("thinking")),
        "analysis": analysis,
        "intention": intention,
        "decision": _decision_summary(decision) if decision else None,
        "belief": record.get("belief"),
    }


def _team_decisions(record: dict) -> dict[str, dict]:
    """The teammates' decisions of one trace line (seat -> decision), malformed entries left out."""
    found = record.get("team_decisions")
    if not isinstance(found, dict):
        return {}
    return {str(seat): d for seat, d in found.items() if isinstance(d, dict)}


def _decision_summary(decision: dict) -> dict:
    """A decision without its prompts: what was tried, why the Verificator rejected it."""
    attempts = [
        {
            "plan": a.get("plan"),
            "failures": a.get("failures") or [],
            "explanation": a.get("explanation"),
            "parse_error": a.get("parse_error"),
        }
        for a in decision.get("attempts", [])
    ]
    return {
        "step": decision.get("step"),
        "skill": decision.get("skill"),
        "fallback": decision.get("fallback", False),
        "llm_calls": decision.get("llm_calls", 0),
        "llm_latency_s": decision.get("llm_latency_s", 0.0),
        "attempts": attempts,
        "loops": decision_loops(decision),
    }


def decision_loops(decision: dict) -> list[dict]:
    """The undo loops the agent's guard found at this decision (agent/loops.py: the skill that would
    repeat, the step it was chosen before, what undid it, blocked or only counted), each field
    checked (a run folder is untrusted; a malformed entry is left out)."""
    found = []
    for loop in decision.get("loops") or []:
        if not isinstance(loop, dict):
            continue
        skill, since, undone = loop.get("skill"), loop.get("since_step"), loop.get("undone_by")
        if isinstance(skill, str) and isinstance(since, int) and isinstance(undone, list):
            undone_by = [u for u in undone if isinstance(u, str)]
            found.append(
                {"skill": skill, "since_step": since, "undone_by": undone_by, "blocked": loop.get("blocked") is True}
            )
    return found


def _seat(record: dict, key: str, config: dict) -> int:
    if "seat" in record:
        return int(record["seat"])
    match = re.search(r"\|p([0-9]{1,4})\|", key)
    return int(match.group(1)) if match else int(config.get("seat", 0))


def _seat_count(records: list[dict], seat: int) -> int:
    """How many seats played: one action per seat in every step (at least up to the agent's seat)."""
    actions = next((r["actions"] for r in records if isinstance(r.get("actions"), list)), [])
    return max(len(actions), seat + 1)


def _layout_from_key(key: str) -> str:
    parts = key.split("#")[0].split("|")
    return parts[2] if len(parts) > 2 else ""


def _player_names(config: dict, key: str, seat: int, seats: int) -> list[str]:
    """Who played each seat: the agent in ``seat``, its partner in every other ("human" in human runs)."""
    parts = key.split("#")[0].split("|")
    if len(parts) > 2:
        agent, partner = parts[0], parts[1]
    else:
        agent = (config.get("agent") or {}).get("name") or "proagent"
        partner = config.get("partner", "partner")
    names = [partner] * seats
    names[seat] = agent
    return names
