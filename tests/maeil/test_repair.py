"""COOP²-Repair: the ledger's scoring, each world's estimator on designed plans (a plan that will
miss a quorum is flagged, one that meets it is not), the controller's targeted messages and
revisions, and the matched pairs of an evaluation."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

import jax
import pytest

from proagent.domains import get_domain
from proagent.eval.config import AgentSpec, EvalConfig
from proagent.eval.plan import plan_jobs
from proagent.maeil import TopologyConfig
from proagent.maeil.loop import Maeil
from proagent.maeil.repair import RepairLedger
from proagent.world.plan_effects import PlanEffects, Requirement
from tests.maeil.test_topologies import Talker, _kinds, _seated, _step


def _view(world: str, layout: str):
    domain = get_domain(world)
    env = domain.make_env(layout, 50)
    return domain, env.symbolic(env.reset(jax.random.PRNGKey(0)))


def _outcomes(requirements: Sequence[Requirement]) -> dict[tuple[str, str], bool]:
    return {(r.task, r.constraint): r.satisfied for r in requirements}


def test_the_ledger_scores_predictions_against_the_attempts_within_the_window() -> None:
    ledger = RepairLedger(window=5)
    ledger.predicted(0, [Requirement("a", "temporal", False, (0,)), Requirement("b", "temporal", True, (1,))])
    ledger.predicted(1, [Requirement("a", "temporal", False, (0,))])  # repeating a prediction does not restart it
    ledger.realised(2, [Requirement("a", "temporal", False, (0,)), Requirement("c", "temporal", False, (2,))])
    ledger.realised(3, [Requirement("b", "temporal", False, (1,))])  # a lone early press at b: not settled yet
    ledger.realised(4, [Requirement("b", "temporal", True, (1,))])  # b met within the window: a true negative
    assert ledger.counts["estimator_tn"] == 1 and ledger.counts["estimator_tp"] == 0
    ledger.realised(5, [])  # a: attempted, never met, window over: a true positive
    assert ledger.counts["estimator_tp"] == 1
    ledger.predicted(6, [Requirement("d", "dependency", True, (0,)), Requirement("e", "spatial", True, (0,))])
    ledger.realised(7, [Requirement("d", "dependency", False, (0,))])
    ledger.predicted(8, [Requirement("e", "spatial", False, (0,))])  # a revision replaces the standing prediction
    ledger.realised(9, [Requirement("e", "spatial", True, (0,))])  # a false positive
    ledger.close()  # d: attempted and missed by the end: a false negative
    ledger.predicted(9, [Requirement("f", "spatial", True, (0,))])
    ledger.close()  # f: never attempted: unresolved
    m = ledger.metrics()
    assert (m["estimator_tp"], m["estimator_fn"], m["estimator_tn"], m["estimator_fp"], m["estimator_unresolved"]) == (
        1,
        1,
        1,
        1,
        1,
    )
    assert m["estimator_precision"] == 0.5 and m["estimator_recall"] == 0.5


def test_cube_flags_a_push_short_of_the_blocks_weight_and_not_one_that_meets_it() -> None:
    domain, view = _view("cube", "medium_3a")
    effects = domain.capabilities.plan_effects
    heavy = next(b for b in view.blocks if b.weight == 3)
    short = _outcomes(effects.predict(view, {0: f"push({heavy.index})", 1: f"push({heavy.index})", 2: "wait(1)"}))
    assert short[(f"block {heavy.index} right", "participation")] is False
    full = _outcomes(effects.predict(view, {s: f"push({heavy.index})" for s in range(3)}))
    assert full[(f"block {heavy.index} right", "participation")] is True
    assert effects.predict(view, {0: "wait(1)", 1: "move_up(1)"}) == []  # no push planned: nothing to predict


def test_macrafter_flags_a_short_quorum_and_a_missing_tool_and_passes_a_tree() -> None:
    domain, view = _view("macrafter", "medium_3a")
    effects = domain.capabilities.plan_effects
    predicted = effects.predict(view, {0: "collect(iron)", 1: "collect(iron)", 2: "collect(tree)"})
    iron = [r for r in predicted if r.task.startswith("iron")]
    tree = [r for r in predicted if r.task.startswith("tree")]
    assert {r.constraint: r.satisfied for r in iron}["participation"] is False  # quorum 3, two plan it
    assert {r.constraint: r.satisfied for r in iron}["dependency"] is False  # nobody holds a stone pickaxe
    assert all(r.satisfied for r in tree) and {r.seats for r in tree} == {(2,)}


class _QuorumOfTwo:
    """A designed estimator: a plan named ``lift`` needs two seats planning it."""

    def predict(self, state: object, plans: Mapping[int, str]) -> list[Requirement]:
        lifters = tuple(s for s, p in sorted(plans.items()) if p.startswith("lift"))
        return [Requirement("lift", "participation", len(lifters) >= 2, lifters, "needs two")] if lifters else []

    def realised(self, before: object, actions: Sequence[int], after: object) -> list[Requirement]:
        return []


class _Lifter(Talker):
    """Plans ``lift``; after a repair message it switches to ``help``."""

    async def deliberate(self, obs, talk):  # type: ignore[no-untyped-def]
        result = await super().deliberate(obs, talk)
        repaired = any(m.kind == "repair" for m in talk.inbox)
        self.plan = "help" if repaired else ("lift" if self.seat == 0 else "rest")
        return type(result)(self.plan, result.message, resumed=False)


def _maeil(mode: str) -> tuple[Maeil, list]:
    effects = _QuorumOfTwo()
    team = _seated([_Lifter(say=None), _Lifter(say=None)])
    config = TopologyConfig(name="individual", repair=mode)
    return Maeil(config, team, effects=PlanEffects(effects.predict, effects.realised)), team


def test_repair_on_messages_only_the_agents_a_predicted_failure_involves_and_they_revise() -> None:
    maeil, team = _maeil("on")
    _step(maeil)
    records = maeil.log.drain()
    repairs = [m for m in _kinds(records, "message") if m["type"] == "repair"]
    assert [(m["from"], m["to"]) for m in repairs] == [(-1, [0])]
    assert "participation of lift: needs two" in repairs[0]["text"]
    assert [m.kind for m in team[0].talks[-1].inbox] == ["repair"] and not team[0].talks[-1].may_send
    check = _kinds(records, "repair_check")[0]
    assert [r["satisfied"] for r in check["predicted"]] == [False] and check["revised"] == []  # 0 now helps
    m = maeil.metrics()
    assert (m["repairs_triggered"], m["repair_messages"], m["repair_calls"], m["repair_revisions"]) == (1, 1, 1, 1)


def test_repair_observe_predicts_and_never_intervenes() -> None:
    maeil, team = _maeil("observe")
    _step(maeil)
    records = maeil.log.drain()
    assert not [m for m in _kinds(records, "message") if m["type"] == "repair"]
    assert len(team[0].talks) == 1 and maeil.plans[0] == "lift"
    assert maeil.metrics()["predicted_failures"] == 1 and maeil.metrics()["repairs_triggered"] == 0


def test_repair_needs_a_world_estimate() -> None:
    with pytest.raises(ValueError, match="plan-effect"):
        Maeil(TopologyConfig(name="individual", repair="on"), _seated([Talker()]))


def test_both_plays_matched_pairs_on_the_same_seeds() -> None:
    config = EvalConfig(
        domain="cube", agents=[AgentSpec(kind="proagent")], partners=["proagent"], layouts=["easy_2a"],
        seats=[0], repair="both", episodes=2,
    )  # fmt: skip
    jobs = plan_jobs(config, ["easy_2a"])
    assert config.grid_episodes() == len(jobs) == 4
    by_arm = {(j.key.agent, j.repair, j.seed) for j in jobs}
    assert by_arm == {
        (a, r, s) for s in (0, 1) for a, r in (("proagent@individual", "observe"), ("proagent@individual+repair", "on"))
    }


def _cube_episode(mode: str, horizon: int = 60) -> tuple:
    from proagent.agent.config import AgentConfig
    from proagent.agent.proagent import ProAgent
    from proagent.runner.episode import run_episode
    from tests.support.responders.cube import cube_answer
    from tests.support.scripted import ScriptedModel, answering

    domain = get_domain("cube")
    env = domain.make_env("medium_3a", horizon)
    team = [ProAgent(AgentConfig(), ScriptedModel(respond=answering(cube_answer)), domain, env) for _ in range(3)]
    lines: list[dict] = []
    config = TopologyConfig(name="individual", repair=mode)
    record = asyncio.run(run_episode(env, domain, team, 0, 0, 0, trace=lines.append, topology=config))
    return record, lines


def test_a_cube_team_plays_with_repair_and_the_observing_arm_plays_as_without() -> None:
    observe, lines = _cube_episode("observe")
    plain, _ = _cube_episode("off")
    assert (observe.score, observe.llm_calls) == (plain.score, plain.llm_calls)  # observing never intervenes
    checks = [r for line in lines for r in line["cognition"] if r["kind"] == "repair_check"]
    assert 0 < len(checks) == observe.process_metrics["repair_checks"] < len(lines)  # when plans were committed
    scored = observe.process_metrics["estimator_tp"] + observe.process_metrics["estimator_tn"]
    scored += observe.process_metrics["estimator_fp"] + observe.process_metrics["estimator_fn"]
    assert scored > 0  # pushes happened and resolved predictions
    repaired, lines = _cube_episode("on")
    p = repaired.process_metrics
    sent = [r for line in lines for r in line["cognition"] if r["kind"] == "message" and r["type"] == "repair"]
    assert p["repair_messages"] == len(sent) and p["repairs_triggered"] <= p["repair_checks"]
    assert repaired.llm_calls >= plain.llm_calls + (p["repair_calls"] > 0)
