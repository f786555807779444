"""MA-Crafter on ``hard_4a``'s compiled step: different seeded worlds of one difficulty batch into
it, each batch member evolves exactly as it does alone, everything is deterministic in the keys,
and a plain scripted team climbs the whole tech tree to a diamond through it (so the generated
world holds what the target needs where a team can use it, and the cooperative rules work in
sequence). Also runs the speed benchmark at a tiny size (no timing assertions)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from macrafter_climb import climb

from envs.macrafter import (
    NUM_ACTIONS,
    CrafterEnv,
    CrafterEventKind,
    CrafterState,
    Material,
    decode,
    load_scenario,
    make,
)

SEEDS = (0, 1, 2)
STEPS = 8
BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "macrafter_speed.py"


@pytest.fixture(scope="module")
def env() -> CrafterEnv:
    return make("hard_4a")


def _stack(states: list[CrafterState]) -> CrafterState:
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


def _actions() -> np.ndarray:
    rng = np.random.default_rng(7)
    biased = rng.choice([1, 2, 3, 4, 5, 5, 5, 6, 8, 11, 20, 30], size=(STEPS, len(SEEDS), 4))
    return np.where(rng.uniform(size=biased.shape) < 0.1, rng.integers(0, NUM_ACTIONS, biased.shape), biased)


def test_batched_worlds_step_exactly_as_alone(env):
    scenarios = [load_scenario(f"random:hard:{s}") for s in SEEDS]
    states = [env.state_for(sc) for sc in scenarios]
    batch = _stack(states)
    actions = _actions()
    for t in range(STEPS):
        keys = jax.random.split(jax.random.PRNGKey(t), len(SEEDS))
        tr = env.step_batch(keys, batch, jnp.asarray(actions[t]))
        alone = [env.jit_step(keys[i], states[i], jnp.asarray(actions[t, i])) for i in range(len(SEEDS))]
        for i, one in enumerate(alone):
            for field, got in zip(CrafterState._fields, tr.state, strict=True):
                assert np.array_equal(np.asarray(got)[i], np.asarray(getattr(one.state, field))), (t, i, field)
            assert float(tr.reward[i]) == float(one.reward)
        batch, states = tr.state, [one.state for one in alone]
    views = [decode(sc.settings, s) for sc, s in zip(scenarios, states, strict=True)]
    assert len({v.grid for v in views}) == len(SEEDS) and all(v.step == STEPS for v in views)


def test_steps_are_deterministic_in_the_key_and_only_saplings_use_it(env):
    start = env.jit_reset(jax.random.PRNGKey(0))
    acts = jnp.asarray([5, 5, 5, 5], jnp.int32)
    a = env.jit_step(jax.random.PRNGKey(3), start, acts)
    b = env.jit_step(jax.random.PRNGKey(3), start, acts)
    assert all(np.array_equal(x, y) for x, y in zip(a.state, b.state, strict=True))
    assert np.array_equal(env.reset_batch(jax.random.split(jax.random.PRNGKey(0), 2)).grid[1], start.grid)


def test_random_play_keeps_the_world_sound(env):
    """Invariants over a random rollout: bags never negative, live agents on distinct walkable
    cells, the score never falls, every event's seat is a real agent."""
    state = env.jit_reset(jax.random.PRNGKey(0))
    view = env.symbolic(state)
    rng = np.random.default_rng(1)
    walkable = {Material.GRASS, Material.SAND, Material.PATH}
    for t in range(40):
        acts = rng.choice([1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 17, 18], size=env.num_agents)
        tr = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(acts, jnp.int32))
        after = env.symbolic(tr.state)
        events = env.events(view, acts.tolist(), after)
        assert all(0 <= e.agent < env.num_agents for e in events)
        cells = [a.position for a in after.agents if a.alive]
        assert len(set(cells)) == len(cells) and all(after.material(c) in walkable for c in cells)
        assert all(q >= 0 for a in after.agents for q in a.inventory.values())
        assert after.score >= view.score and after.step == view.step + 1
        state, view = tr.state, after


def test_scripted_team_climbs_to_a_diamond(env):
    views, events = climb(env, until="diamond")
    last = views[-1]
    assert last.agents[0].count("diamond") == 1 and not last.done
    done = [(e.kind, e.item, len(e.participants)) for step in events for e in step if e.agent == 0]
    for kind, item, size in (
        (CrafterEventKind.CRAFT, "stone_pickaxe", 1),
        (CrafterEventKind.COLLECT, "iron", 3),
        (CrafterEventKind.COLLECT, "coal", 3),
        (CrafterEventKind.PLACE, "furnace", 0),
        (CrafterEventKind.CRAFT, "iron_pickaxe", 1),
        (CrafterEventKind.COLLECT, "diamond", 3),
    ):
        assert (kind, item, size) in done, (kind, item)
    ok = [(a.target, len(a.capable)) for v in views[1:] for a in v.attempts if a.outcome == "ok"]
    assert last.score == pytest.approx(sum(env.settings.unit_value(r) * k for r, k in ok))
    assert ("diamond", 3) in ok and last.score_units["diamond"] == 3


@pytest.fixture(scope="module")
def speed():
    spec = importlib.util.spec_from_file_location("macrafter_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["macrafter_speed"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("macrafter_speed", None)


def test_benchmark_runs_tiny(speed, env):
    # Reuses the env's compiled steps and skips the scans' compiles (the slow part of a tiny run).
    rows = speed.run([env], batch=len(SEEDS), steps=3, repeats=1, scan=False)
    assert [r.batch for r in rows] == [len(SEEDS), 1, 1, 1] and all(r.steps_per_s > 0 for r in rows)
    assert rows[-1].impl == speed.REFERENCE and len(speed.ratios(rows)) == 3
    lines = speed.format_table(rows, header="tiny").split("\n")
    assert lines[0] == "tiny" and "env-steps/s" in lines[1] and len(lines) == 2 + len(rows)


@pytest.mark.parametrize(
    ("env_args", "said"),
    [(["--env", "horizon"], "expected KEY=VALUE"), (["--env", "cow_food=-1"], "cow_food")],
)
def test_benchmark_refuses_a_bad_rule_in_one_line(speed, capsys, env_args, said):
    assert speed.main(["--quick", *env_args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and said in err and len(err.splitlines()) == 1


def test_fence_passes_its_bits_through_alone_and_in_a_batch():
    """The draws' fusion boundary changes no bit: one array, a batch of them, a zero first word."""
    from envs.macrafter.batched import fence

    bits = jnp.asarray([[0, 1, 2**32 - 1], [7, 0, 5]], jnp.uint32)
    assert np.array_equal(np.asarray(jax.jit(fence)(bits)), np.asarray(bits))
    assert np.array_equal(np.asarray(jax.jit(jax.vmap(fence))(bits)), np.asarray(bits))
    assert np.array_equal(np.asarray(jax.vmap(jax.vmap(fence))(bits)), np.asarray(bits))


def test_the_paired_figure_is_the_median_of_its_pairs_times_emcoops_factor(speed):
    line = speed.paired_line("emcoop", [40.0, 80.0, 50.0])
    base, coop = speed.EMCOOP_ENV_SLOWER, speed.EMCOOP_COOP_ENV_SLOWER
    assert "3 pairs: median 50.0x (pairs 40.0x to 80.0x)" in line
    assert line.endswith(f"= {50.0 * base:,.0f}x EmCoop's Env.step = {50.0 * coop:,.0f}x its CooperativeEnv.step")
