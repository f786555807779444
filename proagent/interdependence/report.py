"""Tables of the cooperation metrics: per group (agent|partner|layout|seat), mean over episodes.

Shared by `proagent analyze` (rich on the terminal, also saved as markdown) and the Table-1
script. The constructive share is pooled (all constructive pairs / all pairs of the group), so
episodes without any interdependence do not count as 0 % or 100 %. With two agents the columns
are the paper's (init p0, p1 acc. %, ...); with more, acceptance is per ordered pair (pj acc. pi %).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from pydantic import BaseModel
from rich.table import Table

from proagent.bounded import small_whole
from proagent.interdependence.folder import EpisodeAnalysis
from proagent.interdependence.records import EpisodeInterdependence, pair_key
from proagent.numbers import episode_label

HEAD_COLUMNS = (
    ("episodes", "n"),
    ("score", "score"),
    ("total", "Int"),
    ("constructive", "Int cons"),
    ("non_constructive", "Int non-cons"),
    ("share", "cons %"),
)
TWO_AGENTS = 2  # the paper's setting: "pM acc. %" then says whose triggers without naming them


def _acceptance_key(giver: int, receiver: int, agents: int) -> str:
    return f"accepted_by_{receiver}" if agents == TWO_AGENTS else f"accepted_{giver}_by_{receiver}"


def columns(agents: int = TWO_AGENTS) -> list[tuple[str, str]]:
    """(key, header) of the table for ``agents`` agents: per agent its triggers, then per other
    agent the share of them that agent acted upon (ordered pairs)."""
    out = list(HEAD_COLUMNS)
    for i in range(agents):
        out.append((f"initiated_{i}", f"init p{i}"))
        for j in (j for j in range(agents) if j != i):
            header = f"p{j} acc. %" if agents == TWO_AGENTS else f"p{j} acc. p{i} %"
            out.append((_acceptance_key(i, j, agents), header))
    return [*out, ("intention", "intention")]


COLUMNS = tuple(columns(TWO_AGENTS))


class GroupRow(BaseModel):
    group: str
    values: dict[str, float | None]
    agents: int = TWO_AGENTS


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def _share(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def group_rows(episodes: Sequence[EpisodeAnalysis]) -> list[GroupRow]:
    """One row per group, in first-appearance order."""
    groups: dict[str, list[EpisodeAnalysis]] = {}
    for e in episodes:
        groups.setdefault(e.group, []).append(e)
    rows = []
    for g, eps in groups.items():
        agents = max((len(e.interdependence.agents) for e in eps), default=0) or TWO_AGENTS
        rows.append(GroupRow(group=g, values=_values(eps, agents), agents=agents))
    return rows


def _accepted(result: EpisodeInterdependence, giver: int, receiver: int) -> int:
    """The giver's triggers the receiver acted upon: per ordered pair where the analysis has them;
    for two agents (counts stored in episode records) all the receiver accepted came from the giver."""
    pair = result.pairs.get(pair_key(giver, receiver))
    if pair is not None:
        return pair.accepted
    return result.agents[receiver].accepted if len(result.agents) == TWO_AGENTS else 0


def _values(eps: Sequence[EpisodeAnalysis], n: int) -> dict[str, float | None]:
    results = [e.interdependence for e in eps]
    complete = [r for r in results if len(r.agents) == n]  # episodes with per-agent counts
    total = sum(r.total for r in results)
    hits = sum((e.intention_reported.hits if e.intention_reported else 0) for e in eps)
    asked = sum((e.intention_reported.total if e.intention_reported else 0) for e in eps)
    values = {
        "episodes": float(len(eps)),
        "score": _mean([e.score for e in eps]),
        "total": _mean([r.total for r in results]),
        "constructive": _mean([r.constructive for r in results]),
        "non_constructive": _mean([r.non_constructive for r in results]),
        "share": _share(sum(r.constructive for r in results), total),
    }
    for i in range(n):
        values[f"initiated_{i}"] = _mean([r.agents[i].initiated for r in complete])
        offered = sum(r.agents[i].initiated for r in complete)
        for j in (j for j in range(n) if j != i):
            values[_acceptance_key(i, j, n)] = _share(sum(_accepted(r, i, j) for r in complete), offered)
    values["intention"] = _share(hits, asked)
    return values


def _fmt(value: float | None, key: str) -> str:
    if value is None:
        return "–"
    return f"{value:.0f}" if key == "episodes" else f"{value:.1f}"


def _columns(rows: Sequence[GroupRow]) -> list[tuple[str, str]]:
    return columns(max((row.agents for row in rows), default=TWO_AGENTS))


def rich_table(rows: Sequence[GroupRow], title: str) -> Table:
    table = Table(title=title)
    table.add_column("agent|partner|layout|seat")
    cols = _columns(rows)
    for _, header in cols:
        table.add_column(header, justify="right")
    for row in rows:
        table.add_row(row.group, *(_fmt(row.values.get(k), k) for k, _ in cols))
    return table


def markdown_table(rows: Sequence[GroupRow]) -> str:
    # " / " for "|" in the group column, header included: a bare | would split the cell
    cols = _columns(rows)
    header = "| agent / partner / layout / seat | " + " | ".join(h for _, h in cols) + " |"
    rule = "|" + "---|" * (len(cols) + 1)
    body = [
        "| " + row.group.replace("|", " / ") + " | " + " | ".join(_fmt(row.values.get(k), k) for k, _ in cols) + " |"
        for row in rows
    ]
    return "\n".join([header, rule, *body]) + "\n"


LEGEND = (
    "Int: interdependent action pairs per episode (Def. 4.1); Int cons / non-cons: constructive "
    "(goal-reaching and non-looping, Def. 4.6) and the rest; cons %: constructive share of all pairs "
    "(pooled); init pN: trigger actions of player N per episode (Def. 4.2); pM acc. %: share of the "
    "other player's triggers that player M acted upon; intention: ProAgent's predictions of its "
    "teammate's next completed skill that were right (pooled; the agent's own count, as recorded)."
)

ANALYSIS_FILE = "analysis.md"  # analyze's own table; an evaluation's report writes interdependence.md

# Why a recomputed intention count can differ from the recorded one, said wherever both appear.
INTENTION_NOTE = (
    "Intention accuracy is counted twice. Recorded: the agent's own count, made while it played and "
    "stored in its episode record; the tables use it. Recomputed: `analyze` counts it again from the "
    "trace (predictions from the recorded decisions, completed skills from the recorded events), as a "
    "check. They can differ because the agent scores a prediction only when it next acts and sees the "
    "completed skill: a skill completed on the episode's last step, or one the agent did not witness "
    "(a limited view), is in the recomputed count only."
)


def episode_name(eid: str) -> str:
    """An episode as people name it: ``episode N`` (from 1) after its pair in eval runs (the id is
    the key agent|partner|layout|pSeat|index there, the index in play and human runs)."""
    group, _, index = eid.rpartition("|")
    number = small_whole(index)
    if number is None:
        return eid
    return f"{group} · {episode_label(number)}" if group else episode_label(number)


def intention_lines(episodes: Sequence[EpisodeAnalysis]) -> list[str]:
    """One line per episode whose recomputed intention count differs from the recorded one."""
    lines = []
    for e in episodes:
        recorded, recomputed = e.intention_reported, e.intention_recomputed
        if (
            recorded is None
            or recomputed is None
            or (recorded.hits, recorded.total) == (recomputed.hits, recomputed.total)
        ):
            continue
        lines.append(
            f"{episode_name(e.id)}: intention {recorded.hits}/{recorded.total} recorded (in the tables), "
            f"{recomputed.hits}/{recomputed.total} recomputed from the trace"
        )
    return lines


def analysis_markdown(run: str, rows: Sequence[GroupRow], episodes: Sequence[EpisodeAnalysis]) -> str:
    """analysis.md: the table, its legend, and the intention counts where they differ."""
    differ = intention_lines(episodes)
    details = "\n".join(f"- {line}" for line in differ) if differ else "The two counts agree in every episode."
    return (
        f"# {run}: cooperation metrics (`proagent analyze`)\n\n{markdown_table(rows)}\n{LEGEND}\n\n"
        f"## Intention accuracy: recorded and recomputed\n\n{INTENTION_NOTE}\n\n{details}\n"
    )
