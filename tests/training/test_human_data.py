"""Human trials: the shipped file rebuilds engine states exactly, its actions replay the recorded
trajectories through our engine, and the BC samples follow the documented STAY / split rules."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest

import envs
from envs import Action
from proagent.domains.overcooked import human_data as hd

LAYOUTS = ("cramped_room", "asymmetric_advantages", "counter_circuit")


@cache
def trial(layout: str) -> hd.Trial:
    (t,) = hd.load_trials(layout)
    return t


@cache
def env(layout: str) -> envs.OvercookedEnv:
    return envs.make(layout)


def test_file_holds_one_trial_per_classic_layout():
    trials = hd.load_trials()
    assert sorted(t.layout for t in trials) == sorted(LAYOUTS)
    assert {t.layout: t.source_layout for t in trials}["counter_circuit"] == "random3"
    for t in trials:
        assert 1_000 < len(t.steps) < 1_300 and t.cook_time == 20
        assert [s["t"] for s in t.steps] == list(range(len(t.steps)))
        assert sum(s["reward"] for s in t.steps) == t.score > 0
    assert hd.HUMAN_DATA.stat().st_size < 300_000
    with pytest.raises(ValueError, match="no human trials"):
        hd.load_trials("forced_coordination")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_state_rebuild_round_trips_exactly(layout):
    t, e = trial(layout), env(layout)
    hd.check_layout(e, t)
    picked = [t.steps[i] for i in range(0, len(t.steps), 11)]  # ~110 timesteps, all kinds of objects
    states = hd.build_states(e, picked)
    for i, record in enumerate(picked):
        kitchen = e.symbolic(hd.index_state(states, i))
        assert hd.record_of(kitchen) == {k: record[k] for k in ("players", "counters", "pots")}, record["t"]
    # the sample covers held soups, cooking and ready pots, and counter items where the humans used counters
    assert any(p[3] and p[3].startswith("soup") for r in picked for p in r["players"])
    assert {"cooking", "ready"} <= {p[4] for r in picked for p in r["pots"]}
    assert any(r["counters"] for r in picked) == (layout != "asymmetric_advantages")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_recorded_actions_replay_through_our_engine(layout):
    """step(state_t, actions_t) == state_{t+1} on every transition of a 400-step window (all
    1,100-1,200 transitions of each trial agreed when checked): the action mapping, the alignment
    of actions with states and the dynamics (auto-cook, cook time 20) all agree."""
    assert hd.replay_agreement(env(layout), trial(layout), start=300, stop=700) == 1.0


def test_action_mapping_matches_the_moves():
    t = trial("cramped_room")
    moved = 0
    for before, after in zip(t.steps, t.steps[1:]):
        for seat in range(2):
            (x0, y0, _, _), (x1, y1, d1, _) = before["players"][seat], after["players"][seat]
            a = Action(before["actions"][seat])
            if (x0, y0) != (x1, y1):
                moved += 1
                assert a == Action(d1) and (x1 - x0, y1 - y0) == envs.Direction(d1).vector
            if a in (Action.STAY, Action.INTERACT):
                assert (x0, y0, before["players"][seat][2]) == (x1, y1, d1)
    assert moved > 250


def test_a_different_grid_is_refused():
    t = trial("cramped_room")
    with pytest.raises(ValueError, match="not our"):
        hd.check_layout(env("cramped_room"), replace(t, grid=("XXXXX",) + t.grid[1:]))


def test_stay_mask_keeps_the_first_k_of_each_run():
    s, m = Action.STAY, Action.UP
    actions = np.array([s, s, s, m, s, m, s, s])
    assert hd.stay_mask(actions, None).all()
    assert hd.stay_mask(actions, 0).tolist() == [False, False, False, True, False, True, False, False]
    assert hd.stay_mask(actions, 2).tolist() == [True, True, False, True, True, True, True, True]


def test_bc_dataset_splits_by_time_and_drops_stays():
    e = env("cramped_room")
    train, val = hd.bc_dataset(e, max_stay_run=0, val_fraction=0.2)
    assert Action.STAY not in set(train.actions) | set(val.actions)
    assert train.timesteps.max() < val.timesteps.min()
    assert set(train.seats) == set(val.seats) == {0, 1}
    assert train.obs.shape[1:] == (4, 5, 30) and len(train) == len(train.obs)
    full_train, full_val = hd.bc_dataset(e, max_stay_run=None, val_fraction=0.2)
    assert len(full_train) + len(full_val) == 2 * len(trial("cramped_room").steps)
    # each sample is its seat's own view: seat 0's obs marks player 0's cell in the self layer
    i = int(np.argmax(train.seats == 1))
    x, y = trial("cramped_room").steps[int(train.timesteps[i])]["players"][1][:2]
    assert train.obs[i, y, x, 0] == 1
