"""MA-Crafter's EmCoop process metrics on the real JAX env: designed collections stepped by the env
(a stone mined alone, a coal by its quorum, a coal tried alone, an iron tried without its tool),
their records and the episode's rates worked out by hand; and a scripted team's episode through the
runner (every metric in the record, the trace's records consistent with the metrics and with the
trace line's ΔZ). One env (one compiled step) serves every test."""

from __future__ import annotations

import asyncio

import jax
import jax.numpy as jnp
import pytest

from envs.macrafter import CrafterEnv, from_text, make
from envs.macrafter.rules import Action, Item, Material
from proagent.domains import get_domain
from proagent.domains.macrafter.constraints import ATTEMPT_CONSTRAINTS, METRIC_NAMES, CrafterConstraintCollector
from proagent.domains.macrafter.partners import make_partner
from proagent.runner.episode import SingleEnv, run_episode

DO, NOOP = int(Action.DO), int(Action.NOOP)
MAP = [
    "T.0......",
    "T........",
    "...1..c..",  # coal (6, 2)
    ".........",
    "...c.....",  # coal (3, 4)
    ".........",
    ".#.....i.",  # stone (1, 6), iron (7, 6)
    ".........",
    "~...2....",
]
STONE, COAL, IRON = (1, 6), (3, 4), (7, 6)


@pytest.fixture(scope="module")
def env() -> CrafterEnv:
    return make(from_text("process", MAP), horizon=8)


def test_designed_collections_are_judged_as_emcoop_judges_them(env: CrafterEnv) -> None:
    state = env.jit_reset(jax.random.PRNGKey(0))
    state = state._replace(inventory=state.inventory.at[:3, int(Item.WOOD_PICKAXE)].set(1))
    collector = CrafterConstraintCollector(env.symbolic(state))
    plan = [  # where the three agents stand (moved there), and what they do
        ([(2, 6), (5, 0), (5, 8)], [DO, NOOP, NOOP]),  # the stone, alone: collected
        ([(2, 4), (4, 4), (5, 8)], [DO, DO, NOOP]),  # the coal, two wood pickaxes: collected
        ([(5, 2), (7, 2), (5, 8)], [DO, NOOP, NOOP]),  # the other coal: one of the two near tries
        ([(6, 6), (8, 6), (7, 7)], [DO, DO, DO]),  # the iron, with wood pickaxes only
    ]
    steps = []
    for t, (places, actions) in enumerate(plan):
        state = state._replace(pos=state.pos.at[:3].set(jnp.asarray(places, jnp.int32)))
        before = env.symbolic(state)
        state = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(actions, jnp.int32)).state
        after = env.symbolic(state)
        steps.append((before, after, collector.add(before, actions, after)))

    def attempt(t: int) -> dict:
        (record,) = [r for r in steps[t][2] if r["kind"] == "attempt"]
        (env_attempt,) = steps[t][1].attempts
        assert record["participants"] == list(env_attempt.participants) and record["outcome"] == env_attempt.outcome
        return record

    stone = attempt(0)
    assert stone["success"] and stone["delta_z"] == 1 and stone["violations"] == dict.fromkeys(ATTEMPT_CONSTRAINTS, 0)
    assert steps[0][1].material(STONE) == Material.PATH and steps[0][2][0]["task_set"]["removed"] == 1
    (dz,) = [r for r in steps[0][2] if r["kind"] == "capability"]
    assert dz["agents"] == {"0": {"stone": 1}}
    assert attempt(1)["success"] and attempt(1)["successful"] == [0, 1]
    lone = attempt(2)  # spatial 2/2, temporal 1/2, dependency 3/2 (every wood pickaxe counts, wherever it is)
    assert lone["outcome"] == "too_few" and lone["violations"] == {"spatial": 0, "temporal": 0.5, "dependency": 0}
    assert lone["scores"] == {"spatial": 1.0, "temporal": 0.5, "dependency": 1.5}
    iron = attempt(3)
    assert iron["outcome"] == "no_tool" and iron["violations"] == {"spatial": 0, "temporal": 0, "dependency": 1}
    (task,) = [r for r in steps[3][2] if r["kind"] == "task" and r["resource"] == "iron"]
    assert task["counts"] == {"spatial": 3, "temporal": 3, "participation": 3, "dependency": 0}
    assert task["violated"] == ["dependency"] and task["status"] == "in_progress"

    totals = collector.result()
    assert set(totals) == set(METRIC_NAMES)
    assert (totals["attempt_constraint_events"], totals["successful_attempt_events"]) == (4, 2)
    assert totals["attempt_success_rate"] == 0.5 and totals["spatial_violation_rate"] == 0.0
    assert totals["temporal_violation_rate"] == 0.5 / 4 and totals["dependency_violation_rate"] == 1 / 4
    assert (totals["failed_attempts"], totals["failures_temporal"], totals["failures_dependency"]) == (2, 0.5, 1)
    assert (totals["total_gains"], totals["capability_increased"], totals["delta_Z"]) == (3, 3, 3)  # stone, coal x2
    assert totals["Z_gain_rate"] == 3 / 4


class SeatRewards(SingleEnv):
    """The runner reads one shaped reward per seat; the env in progress returns the team's (a
    scalar): hand each seat the team's until it does."""

    async def step(self, t: int, state, actions: tuple[int, ...]):
        tr = await super().step(t, state, actions)
        shaped = jnp.asarray(tr.shaped_reward)
        return tr._replace(shaped_reward=jnp.full(len(actions), shaped)) if shaped.ndim == 0 else tr


def test_a_scripted_episode_records_every_metric_and_a_consistent_trace(env: CrafterEnv) -> None:
    team = [make_partner("tech", env) for _ in range(env.num_agents)]
    lines: list[dict] = []
    episode = run_episode(
        env, get_domain("macrafter"), team, 0, 0, 0, trace=lines.append, episode_env=SeatRewards(env, 0)
    )
    record = asyncio.run(episode)
    process = record.process_metrics
    assert set(METRIC_NAMES) <= set(process) and process["task_steps"] > 0
    assert process["total_gains"] > 0, "the team cuts trees"
    records = [r for line in lines for r in line["constraints"]]
    attempts = [r for r in records if r["kind"] == "attempt"]
    assert len(attempts) == process["attempt_constraint_events"]
    assert sum(r["success"] for r in attempts) == process["successful_attempt_events"]
    for c in ATTEMPT_CONSTRAINTS:
        assert sum(r["violations"][c] for r in attempts) == pytest.approx(process[f"failures_{c}"])
    assert sum(r["task_set"]["size"] for r in records if r["kind"] == "step") == process["task_steps"]
    for line in lines:  # the drawing's ΔZ is the process's
        (dz,) = [r for r in line["constraints"] if r["kind"] == "capability"] or [{"agents": {}}]
        assert dz["agents"] == line["capability_changes"]
    gains = sum(r["gains"] for r in records if r["kind"] == "capability")
    assert gains == process["total_gains"]
