"""`proagent analyze`: the cooperation metrics of a finished run folder (play or eval).

Where the folder has a trace (play always; eval with ``trace = true``) every episode is regrounded
from its recorded actions and events (episodes start from the layout's empty scene; a first line
carrying a ``scene`` would say otherwise, and objects nobody saw appear are created and noted as
repairs) and analyzed in full: pairs, influence trajectories, a PDDL-like trace per episode,
intention accuracy recomputed from decisions and events. Without a trace (eval's default) the
counts that every episode record carries (computed while it was played) are reported as they are.

The world is the caller's: ``model_for`` gives the domain's ``InterdependenceModel`` of a layout,
its ``skill_of_event`` the layout's event -> completed-skill inverse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from proagent.bounded import small_whole
from proagent.interdependence.episode import analyze_steps
from proagent.interdependence.intention import IntentionAccuracy, from_beliefs, recompute
from proagent.interdependence.model import InterdependenceModel, StepInput
from proagent.interdependence.records import AgentCounts, EpisodeInterdependence
from proagent.interdependence.strips import to_pddl_text
from proagent.jsonl import episode_id, finished_attempt, read_jsonl
from proagent.run_lines import episode_line, trace_line
from proagent.untrusted import UntrustedFileError, read_json

RESULT_FILE = "interdependence.json"
LEGACY_AGENTS = 2  # traces whose lines carry no joint action were all two-player

ModelFor = Callable[[str], InterdependenceModel]  # a layout (name or file, as the run names it) -> its model


class NotARunFolder(ValueError):
    """The path is not a run folder (no config.json with episodes or a trace)."""


class EpisodeAnalysis(BaseModel):
    id: str
    group: str = Field(description="agent|partner|layout|seat")
    layout: str
    seat: int
    score: float | None = None
    source: str = Field(description="'trace' (full analysis) or 'record' (counts stored at play time)")
    interdependence: EpisodeInterdependence
    intention_reported: IntentionAccuracy | None = None
    intention_recomputed: IntentionAccuracy | None = None
    pddl_file: str | None = None


class FolderAnalysis(BaseModel):
    run: str
    episodes: list[EpisodeAnalysis]


def _load_config(path: Path) -> dict:
    config = path / "config.json"
    if not path.is_dir() or not config.exists():
        raise NotARunFolder(f"{path} is not a run folder: no config.json (expected runs/<timestamp>-<name>/)")
    if not (path / "episodes.jsonl").exists() and not (path / "trace.jsonl").exists():
        raise NotARunFolder(f"{path} is not a run folder with episodes: no episodes.jsonl or trace.jsonl")
    try:
        return read_json(config, "run config")
    except UntrustedFileError as exc:  # too large, not UTF-8, not JSON, nested too deep
        raise NotARunFolder(str(exc)) from None


def _layout_specs(config: dict) -> dict[str, str]:
    """Layout name in the records -> the spec the run was made with (a name or a layout file)."""
    if "config" in config:  # eval manifest
        return dict(zip(config.get("layout_names", []), config["config"].get("layouts", [])))
    return {}


def _steps(lines: Sequence[dict], model: InterdependenceModel) -> list[StepInput]:
    return [
        StepInput(
            int(r["step"]), tuple(r.get("actions", ())), tuple(model.event_from_record(e) for e in r.get("events", []))
        )
        for r in lines
    ]


def _agents(lines: Sequence[dict]) -> int:
    """The number of agents: the joint action's width on the trace lines."""
    return max((len(r.get("actions") or ()) for r in lines), default=0) or LEGACY_AGENTS


def _from_trace(
    lines: list[dict], record: dict, model: InterdependenceModel, agent_kind: str, recompute_intentions: bool
) -> tuple[EpisodeInterdependence, str, IntentionAccuracy | None]:
    lines = sorted(lines, key=lambda r: int(r["step"]))
    steps = _steps(lines, model)
    scene = model.scene_from_trace(lines[0]) if lines else None
    trace, result = analyze_steps(model, steps, scene, _agents(lines))
    recomputed = None
    if recompute_intentions and agent_kind == "proagent" and any("decision" in r for r in lines):
        recomputed = recompute(lines, [s.events for s in steps], int(record.get("seat", 0)), model.skill_of_event)
        believed = from_beliefs(lines)
        if believed.total != recomputed.total or believed.hits != recomputed.hits:
            trace.notes.append(
                f"intention: agent scored {believed.hits}/{believed.total}, recomputed "
                f"{recomputed.hits}/{recomputed.total}"
            )
    return result, to_pddl_text(trace, title=episode_id(record)), recomputed


def _from_record(record: dict) -> EpisodeInterdependence:
    total, cons = record.get("int_total"), record.get("int_constructive")
    if total is None:
        return EpisodeInterdependence()
    agents = [
        AgentCounts(agent=i, initiated=n, accepted=a)
        for i, (n, a) in enumerate(zip(record.get("int_initiated", []), record.get("int_accepted", [])))
    ]
    share = cons / total if total else None
    return EpisodeInterdependence(
        total=total, constructive=cons, non_constructive=total - cons, constructive_share=share, agents=agents
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def analyze_folder(
    path: Path, model_for: ModelFor, recompute_intentions: bool = True, write: bool = True
) -> FolderAnalysis:
    """Analyze every finished episode of a run folder; with ``write``, save interdependence.json
    and one ``episode_<id>.pddl.txt`` per traced episode into it. ``model_for`` maps a layout spec
    to the domain's model; without ``recompute_intentions`` intention accuracy is not recomputed."""
    path = Path(path)
    config = _load_config(path)
    specs = _layout_specs(config)
    records = {episode_id(r): r for r in read_jsonl(path / "episodes.jsonl", parse=episode_line).records}
    traces: dict[str, dict[str, list[dict]]] = {}
    for line in read_jsonl(path / "trace.jsonl", parse=trace_line).records:
        traces.setdefault(episode_id(line), {}).setdefault(str(line.get("attempt", "")), []).append(line)
    episodes = []
    for eid, record in records.items():
        attempts = traces.get(eid, {})
        chosen = finished_attempt(record, attempts)
        lines = attempts[chosen] if chosen is not None else []
        spec = specs.get(record.get("layout", ""), config.get("layout") or record.get("layout"))
        episodes.append(_episode(path, eid, record, lines, model_for, recompute_intentions, spec, write))
    result = FolderAnalysis(run=path.name, episodes=episodes)
    if write:
        (path / RESULT_FILE).write_text(result.model_dump_json(indent=1), encoding="utf-8")
    return result


def _episode(
    path: Path,
    eid: str,
    record: dict,
    lines: list[dict],
    model_for: ModelFor,
    recompute_intentions: bool,
    layout_spec: str,
    write: bool,
) -> EpisodeAnalysis:
    agent_kind = record.get("agent_kind", "proagent")
    agent = record.get("agent", "proagent")
    reported = (
        IntentionAccuracy(hits=record.get("intention_hits", 0), total=record.get("intention_total", 0))
        if agent_kind == "proagent"
        else None
    )
    analysis = EpisodeAnalysis(
        id=eid,
        group=f"{agent}|{record.get('partner')}|{record.get('layout')}|p{record.get('seat', 0)}",
        layout=str(record.get("layout")),
        seat=int(record.get("seat", 0)),
        score=record.get("score"),
        source="record",
        interdependence=_from_record(record),
        intention_reported=reported,
    )
    if not lines:
        return analysis
    result, pddl, recomputed = _from_trace(lines, record, model_for(layout_spec), agent_kind, recompute_intentions)
    update = {"source": "trace", "interdependence": result, "intention_recomputed": recomputed}
    if write:
        number = small_whole(eid)
        name = f"episode_{number:03d}.pddl.txt" if number is not None else f"episode_{_safe(eid)}.pddl.txt"
        (path / name).write_text(pddl, encoding="utf-8")
        update["pddl_file"] = name
    return analysis.model_copy(update=update)
