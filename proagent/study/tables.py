"""The numbers of the paper's Tables 2-4 and its questionnaire analysis, from a read study.

Units, chosen so every number has a stated n:

- Table 2 (reward, constructive and non-constructive interdependence): the mean over rounds of
  one partner on one layout, n = rounds.
- Table 3 (the best team per agent): a team is a participant with one partner on one layout; its
  numbers are the means over its rounds; the best team has the highest mean reward (ties: more
  constructive interdependence, then the smaller id).
- Table 4 (%H-sub): the human's share of the triggers initiated, 100 * H / (H + agent), and of the
  triggers accepted, pooled over the rounds (a round where nobody initiated adds nothing, rather
  than an undefined share); (a) over all rounds, (b) over the best team's rounds.
- Questionnaire: a category's rating in a round is the mean of its items. The tests' unit is the
  participant (the mean of their rounds), as the paper's n is participants: one-sample t-tests
  against the neutral point per layout, and a paired t-test between the first two layouts over the
  participants who rated both. The correlations' unit is the answered round.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable

from pydantic import BaseModel

from proagent.study.read import Round, Study
from proagent.study.stats import Correlation, Mean, TTest, correlation, mean_of, one_sample, paired

ALL = "all"  # the scope of a test or correlation over every layout
METRICS: dict[str, Callable[[Round], float]] = {
    "constructive": lambda r: r.constructive,
    "non_constructive": lambda r: r.non_constructive,
    "reward": lambda r: r.score,
}


class OutcomeRow(BaseModel):
    """Table 2, or Table 3 (``participant`` set: the best team's)."""

    partner: str
    layout: str
    participant: str | None = None
    participants: int
    reward: Mean
    constructive: Mean
    non_constructive: Mean


class ShareRow(BaseModel):
    """Table 4: triggers per round on each side and the human's pooled shares (%)."""

    partner: str
    layout: str
    scope: str  # "all rounds" or "best team <id>"
    rounds: int
    human_initiated: Mean
    agent_initiated: Mean
    human_accepted: Mean
    agent_accepted: Mean
    h_sub_initiated: float | None
    h_sub_accepted: float | None


class Scale(BaseModel):
    """A rated quantity: one item, or a category (the mean of its items)."""

    key: str
    kind: str  # "item" or "category"
    label: str
    items: list[str]


class RatingRow(BaseModel):
    scale: str
    partner: str
    layout: str
    rating: Mean  # over rounds


class TestRow(BaseModel):
    scale: str
    test: str  # "one-sample" or "paired"
    layout: str  # one-sample: the layout or "all"; paired: "<second> - <first>"
    result: TTest


class CorrelationRow(BaseModel):
    scale: str
    metric: str
    layout: str
    result: Correlation


def _groups(rounds: Iterable[Round], key: Callable[[Round], tuple]) -> dict[tuple, list[Round]]:
    out: dict[tuple, list[Round]] = defaultdict(list)
    for r in rounds:
        out[key(r)].append(r)
    return out


def _cells(study: Study) -> list[tuple[str, str]]:
    """(partner, layout) in the protocol's order."""
    return [(p.name, lay.name) for p in study.config.partners for lay in study.config.layouts]


def _outcome(partner: str, layout: str, rounds: list[Round], participant: str | None = None) -> OutcomeRow:
    return OutcomeRow(
        partner=partner,
        layout=layout,
        participant=participant,
        participants=len({r.participant for r in rounds}),
        reward=mean_of([r.score for r in rounds]),
        constructive=mean_of([r.constructive for r in rounds]),
        non_constructive=mean_of([r.non_constructive for r in rounds]),
    )


def table2(study: Study) -> list[OutcomeRow]:
    cells = _groups(study.rounds, lambda r: (r.partner, r.layout))
    return [_outcome(p, lay, cells.get((p, lay), [])) for p, lay in _cells(study)]


def best_teams(study: Study) -> dict[tuple[str, str], tuple[str, list[Round]]]:
    """(partner, layout) -> the best team's participant and rounds."""
    teams = _groups(study.rounds, lambda r: (r.partner, r.layout, r.participant))
    best: dict[tuple[str, str], tuple[str, list[Round]]] = {}
    ranked = sorted(
        teams.items(),
        key=lambda kv: (
            -statistics.fmean(r.score for r in kv[1]),
            -statistics.fmean(r.constructive for r in kv[1]),
            kv[0][2],
        ),
    )
    for (partner, layout, participant), rounds in ranked:
        best.setdefault((partner, layout), (participant, rounds))
    return best


def table3(study: Study) -> list[OutcomeRow]:
    best = best_teams(study)
    return [_outcome(p, lay, best[(p, lay)][1], best[(p, lay)][0]) for p, lay in _cells(study) if (p, lay) in best]


def _share(mine: int, theirs: int) -> float | None:
    return 100.0 * mine / (mine + theirs) if mine + theirs else None


def share_row(partner: str, layout: str, scope: str, rounds: list[Round]) -> ShareRow:
    return ShareRow(
        partner=partner,
        layout=layout,
        scope=scope,
        rounds=len(rounds),
        human_initiated=mean_of([r.human_initiated for r in rounds]),
        agent_initiated=mean_of([r.agent_initiated for r in rounds]),
        human_accepted=mean_of([r.human_accepted for r in rounds]),
        agent_accepted=mean_of([r.agent_accepted for r in rounds]),
        h_sub_initiated=_share(sum(r.human_initiated for r in rounds), sum(r.agent_initiated for r in rounds)),
        h_sub_accepted=_share(sum(r.human_accepted for r in rounds), sum(r.agent_accepted for r in rounds)),
    )


def table4(study: Study) -> tuple[list[ShareRow], list[ShareRow]]:
    """(a) every round, (b) the best team's rounds."""
    cells = _groups(study.rounds, lambda r: (r.partner, r.layout))
    best = best_teams(study)
    every = [share_row(p, lay, "all rounds", cells.get((p, lay), [])) for p, lay in _cells(study)]
    top = [
        share_row(p, lay, f"best team {best[(p, lay)][0]}", best[(p, lay)][1])
        for p, lay in _cells(study)
        if (p, lay) in best
    ]
    return every, top


def scales(study: Study) -> list[Scale]:
    """Every item, then every category (its group), in the questionnaire's order."""
    q = study.questionnaire.questions
    out = [Scale(key=x.id, kind="item", label=x.text, items=[x.id]) for x in q]
    for group in dict.fromkeys(x.group for x in q):
        out.append(Scale(key=group, kind="category", label=group, items=[x.id for x in q if x.group == group]))
    return out


def rating(scale: Scale, answers: dict[str, int]) -> float:
    return statistics.fmean(answers[i] for i in scale.items)


def _answered(study: Study) -> list[Round]:
    return [r for r in study.rounds if r.answers is not None]


def ratings_by_partner(study: Study) -> list[RatingRow]:
    cells = _groups(_answered(study), lambda r: (r.partner, r.layout))
    return [
        RatingRow(
            scale=s.key, partner=p, layout=lay, rating=mean_of([rating(s, r.answers) for r in cells.get((p, lay), [])])
        )  # type: ignore[arg-type]
        for s in scales(study)
        for p, lay in _cells(study)
    ]


def participant_means(study: Study, scale: Scale, layout: str) -> dict[str, float]:
    """Participant -> the mean of their ratings of ``scale`` on ``layout`` (ALL: every layout)."""
    by_person = _groups((r for r in _answered(study) if layout in (ALL, r.layout)), lambda r: (r.participant,))
    return {pid: statistics.fmean(rating(scale, r.answers) for r in rs) for (pid,), rs in by_person.items()}  # type: ignore[arg-type]


def tests(study: Study) -> list[TestRow]:
    layouts = [x.name for x in study.config.layouts]
    out = []
    for s in scales(study):
        for layout in [*layouts, ALL]:
            values = list(participant_means(study, s, layout).values())
            out.append(TestRow(scale=s.key, test="one-sample", layout=layout, result=one_sample(values, study.neutral)))
        if len(layouts) >= 2:
            first, second = participant_means(study, s, layouts[0]), participant_means(study, s, layouts[1])
            both = sorted(set(first) & set(second))
            result = paired([first[p] for p in both], [second[p] for p in both])
            out.append(TestRow(scale=s.key, test="paired", layout=f"{layouts[1]} - {layouts[0]}", result=result))
    return out


def correlations(study: Study) -> list[CorrelationRow]:
    answered = _answered(study)
    out = []
    for s in scales(study):
        for metric, value in METRICS.items():
            for layout in [ALL, *(x.name for x in study.config.layouts)]:
                rs = [r for r in answered if layout in (ALL, r.layout)]
                result = correlation([rating(s, r.answers) for r in rs], [value(r) for r in rs])  # type: ignore[arg-type]
                out.append(CorrelationRow(scale=s.key, metric=metric, layout=layout, result=result))
    return out


class StudyTables(BaseModel):
    """Everything the report shows, computed once: the files (Markdown, CSV, plots) render it."""

    table2: list[OutcomeRow]
    table3: list[OutcomeRow]
    table4_all: list[ShareRow]
    table4_best: list[ShareRow]
    scales: list[Scale]
    ratings: list[RatingRow]
    tests: list[TestRow]
    correlations: list[CorrelationRow]


def compute(study: Study) -> StudyTables:
    every, best = table4(study)
    return StudyTables(
        table2=table2(study),
        table3=table3(study),
        table4_all=every,
        table4_best=best,
        scales=scales(study),
        ratings=ratings_by_partner(study),
        tests=tests(study),
        correlations=correlations(study),
    )
