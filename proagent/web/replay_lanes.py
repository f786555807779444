"""The replay page's three-lane timeline, read from an episode's trace lines: each agent's
cognitive stages and the plans, interrupts and messages of the cognitive phase before each step
(what MAEIL records as ``cognition`` and ``stages``), and the cooperation constraints of the tasks
worked on (``constraints``), with each agent's capability changes where the world records them.
Traces without them have no lanes."""

from __future__ import annotations

from proagent.bounded import small_whole

# The constraint types of EmCoop's cooperation constraints, in the order the lanes list them (a
# trace naming others gets them after these, in the order they first appear).
CONSTRAINT_ORDER = ("spatial", "temporal", "participation", "dependency")
# Cognition records that are messages (from, to, text): ``kind`` "message" with the message's own
# kind under ``type`` (say, directive, request, ack), or, in earlier traces, that kind itself.
MESSAGE_KINDS = frozenset({"message", "say", "directive", "request", "ack"})
# A trace line's capability changes dZ per agent (a world with inventories or tools writes it, its
# drawing's frame extras or its constraint records): seat -> item -> units gained (>0) or lost (<0).
CAPABILITY_CHANGES = "capability_changes"


def episode_lanes(records: list[dict]) -> dict | None:
    """What the three-lane timeline draws for an episode's trace lines (in step order), or None
    when no line has ``cognition`` or ``constraints`` (a trace from before MAEIL).

    ``steps[i]`` belongs to ``records[i]`` (the page's frame i). Each step has ``stages`` (seat ->
    the stages it went through in the cognitive phase before the step, as ``[stage, ms]`` pairs:
    wall time spent in each, merged where repeated), ``after`` (seat -> stage after the phase),
    ``ms`` (the phase's wall time), ``plans``, ``interrupts`` and ``messages`` (each with ``at``,
    when in the phase it happened, 0..1) and ``tasks``, the constraint records of the tasks that
    were attempted or had agents at them (compact: ``task``, ``sat``, ``viol``, ``outcome``,
    ``attributed``, ``dz``, ``counts``), summed up in ``constraints`` (name -> [satisfied,
    violated] over those tasks), ``failures`` (name -> failed attempts attributed to it; where a
    record's ``attributed`` maps constraints to shares, MA-Crafter's EmCoop attempt events, each
    share is added, so the count is fractional there) and ``dz`` (the capability change summed over
    all tasks).

    Where the lines carry ``capability_changes`` (`step_capability_changes`: each agent's items and
    tools gained or lost in the step), the lanes also have ``capability: true`` and each step its
    ``changes`` (seat -> item -> units), which the third lane draws as one ΔZ row per agent."""
    capability = any(step_capability_changes(r) is not None for r in records)
    if not capability and not any(r.get("cognition") or r.get("constraints") for r in records):
        return None
    seats = _lane_seats(records)
    names: list[str] = list(CONSTRAINT_ORDER)
    steps: list[dict] = []
    stage: dict[str, str] = {}  # seat -> stage at the end of the previous phase
    for record in records:
        cognition = [c for c in record.get("cognition") or [] if isinstance(c, dict)]
        step = {"step": record.get("step", 0), **_cognitive_phase(cognition, seats, stage)}
        after = record.get("stages") if isinstance(record.get("stages"), dict) else {}
        step["after"] = {str(k): v for k, v in after.items()}
        stage = {**stage, **{s: path[-1][0] for s, path in step["stages"].items() if path}, **step["after"]}
        step.update(_constraint_summary(record.get("constraints") or [], names))
        if capability:
            step["changes"] = step_capability_changes(record) or {}
        steps.append(step)
    lanes = {"seats": seats, "stage_names": ["R", "X", "W", "I"], "constraints": names, "steps": steps}
    return {**lanes, "capability": True} if capability else lanes


def step_capability_changes(record: dict) -> dict[str, dict[str, int]] | None:
    """One trace line's capability changes: seat -> item -> units gained (>0) or lost (<0), from its
    ``capability_changes`` field, else summed from its constraint records' own
    ``capability_changes`` fields (the same shape); None when neither is there. Entries that are
    not seat -> item -> integer are dropped (a run folder is untrusted), and so are zeros."""
    if isinstance(record.get(CAPABILITY_CHANGES), dict):
        parts = [record[CAPABILITY_CHANGES]]
    else:
        constraints = record.get("constraints") if isinstance(record.get("constraints"), list) else []
        parts = [c.get(CAPABILITY_CHANGES) for c in constraints if isinstance(c, dict)]
        parts = [part for part in parts if isinstance(part, dict)]
        if not parts:
            return None
    changes: dict[str, dict[str, int]] = {}
    for part in parts:
        for seat, items in part.items():
            if not isinstance(items, dict):
                continue
            for item, units in items.items():
                if isinstance(units, int) and not isinstance(units, bool):
                    bag = changes.setdefault(str(seat), {})
                    bag[str(item)] = bag.get(str(item), 0) + units
    return {seat: kept for seat, items in changes.items() if (kept := {k: n for k, n in items.items() if n})}


def _lane_seats(records: list[dict]) -> list[str]:
    """Every seat the lanes draw, as the trace names them (str): those acting, staged or talking."""
    count = max((len(r["actions"]) for r in records if isinstance(r.get("actions"), list)), default=0)
    seats = {str(i) for i in range(count)}
    for record in records:
        seats.update(str(k) for k in (record.get("stages") or {}))
        for c in record.get("cognition") or []:
            if isinstance(c, dict) and c.get("kind") not in MESSAGE_KINDS and "agent" in c:
                seats.add(str(c["agent"]))
    return sorted(seats, key=lambda s: (small_whole(s) is None, small_whole(s) or 0, s))


def _cognitive_phase(cognition: list[dict], seats: list[str], before: dict[str, str]) -> dict:
    """One step's cognitive phase: each seat's stage path with its wall time, its plans, interrupts
    and messages; ``before`` is each seat's stage when the phase began."""
    times = [float(c["wall_ms"]) for c in cognition if isinstance(c.get("wall_ms"), int | float)]
    start, end = (min(times), max(times)) if times else (0.0, 0.0)
    span = end - start

    def at(c: dict, i: int) -> float:  # when in the phase: by wall time, else by position
        if isinstance(c.get("wall_ms"), int | float) and span > 0:
            return round((float(c["wall_ms"]) - start) / span, 4)
        return round(i / max(1, len(cognition) - 1), 4) if len(cognition) > 1 else 0.0

    def ms(c: dict) -> float:
        return float(c["wall_ms"]) if isinstance(c.get("wall_ms"), int | float) else start

    changes: dict[str, list[dict]] = {}
    plans, interrupts, messages = [], [], []
    for i, c in enumerate(cognition):
        kind = c.get("kind")
        if kind == "stage" and "agent" in c:
            changes.setdefault(str(c["agent"]), []).append(c)
            if c.get("to") == "I":
                interrupts.append({"agent": c["agent"], "cause": c.get("cause"), "at": at(c, i)})
        elif kind == "plan":
            plans.append({"agent": c.get("agent"), "plan": c.get("plan"), "outcome": c.get("outcome"), "at": at(c, i)})
        elif kind in MESSAGE_KINDS or ("from" in c and "text" in c):
            to = c.get("to") if isinstance(c.get("to"), list) else [c.get("to")]
            if kind == "message":  # {"kind": "message", "type": "ack"}; earlier traces: {"kind": "ack"}
                kind = c.get("type") or kind
            message = {"from": c.get("from"), "to": to, "kind": kind, "text": c.get("text"), "at": at(c, i)}
            if c.get(
                "feedback"
            ):  # environment feedback the framework attached (``--feedback``), kept apart from the text
                message["feedback"] = c["feedback"]
            messages.append(message)
    stages: dict[str, list[list]] = {}
    for seat in seats:
        moves = changes.get(seat, [])
        current = before.get(seat) or (moves[0].get("from") if moves else None)
        if current is None:
            continue
        path: list[list] = []
        clock = start
        for c in moves:
            path.append([current, ms(c) - clock])
            current, clock = c.get("to"), ms(c)
        path.append([current, end - clock])
        stages[seat] = _merged(path)
    return {"ms": round(span, 2), "stages": stages, "plans": plans, "interrupts": interrupts, "messages": messages}


def _merged(path: list[list]) -> list[list]:
    """[stage, ms] pairs without the stages an agent passed through in no time (the last, where
    the phase left it, stays) and with repeats merged; ms rounded to 0.01."""
    kept = [p for p in path[:-1] if p[1] > 0] + path[-1:]
    out: list[list] = []
    for name, ms in kept:
        if out and out[-1][0] == name:
            out[-1][1] += ms
        else:
            out.append([name, ms])
    return [[name, round(ms, 2)] for name, ms in out]


def _constraint_summary(constraints: list, names: list[str]) -> dict:
    """The constraints of the step's tasks that were attempted or had agents at them (``names``
    grows by any constraint type not seen before)."""
    tasks, summary, failures, dz = [], {}, {}, 0
    for c in constraints:
        if not isinstance(c, dict):
            continue
        dz += int(c.get("delta_z") or 0)
        counts = c.get("counts") if isinstance(c.get("counts"), dict) else {}
        present = counts.get("spatial", 0) > 0 or counts.get("temporal", 0) > 0  # agents at it, or pushing
        if c.get("outcome") is None and not present and not c.get("delta_z"):
            continue
        sat, viol = list(c.get("satisfied") or []), list(c.get("violated") or [])
        for name in sat + viol:
            if name not in names:
                names.append(name)
        for name in sat:
            summary.setdefault(name, [0, 0])[0] += 1
        for name in viol:
            summary.setdefault(name, [0, 0])[1] += 1
        attributed = c.get("attributed")
        if isinstance(attributed, dict):  # a fractional attribution: each constraint's share of one failure
            shares = {str(k): v for k, v in attributed.items() if isinstance(v, int | float) and v > 0}
            for name, share in shares.items():
                failures[name] = round(failures.get(name, 0) + share, 4)
            attributed = ", ".join(f"{name} {share:g}" for name, share in shares.items()) or None
        elif isinstance(attributed, str) and attributed:
            failures[attributed] = failures.get(attributed, 0) + 1
        task = " ".join(str(c[k]) for k in ("task", "block", "direction") if c.get(k) is not None)
        outcome = c.get("outcome")
        compact = {"task": task, "sat": sat, "viol": viol, "outcome": outcome, "attributed": attributed}
        tasks.append({**compact, "dz": c.get("delta_z", 0), "counts": counts})
    return {"tasks": tasks, "constraints": summary, "failures": failures, "dz": dz}
