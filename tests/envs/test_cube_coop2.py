"""The COOP² paper's CUBE task (``coop2:<seed>``): their configuration, drawn as their generator draws.

Their env seeds Python's ``random.Random`` with the run's seed and, per block (weights 1, 2, 3,
three each), draws a row then a column from 1..K-w-2 until the square overlaps no earlier block;
then it shuffles the K rows and starts agent i at column 0 of the i-th. The checks below restate
that draw call by call, so a change to the call order (or to the bounds) fails here.
"""

from __future__ import annotations

import random

import pytest

from envs.cube import BlockSpec, ScenarioError, load_scenario, make
from envs.cube.scenario import COOP2_SEED, SCENARIOS, coop2_scenario


def test_paper_configuration():
    sc = load_scenario("coop2:42")
    assert sc.name == "coop2:42" and sc.grid_size == 15 and sc.horizon == 50 and sc.step_cost == 0.01
    assert [b.weight for b in sc.blocks] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert len(sc.agents) == 3 and all(x == 0 for x, _ in sc.agents) and len(set(sc.agents)) == 3
    assert sc.total_weight == 18


def test_first_block_and_agent_rows_follow_their_draw():
    """Block 0 (weight 1) is the first two draws; with nothing placed yet it is always accepted.
    The rows come from the same generator after the nine blocks."""
    for seed in (0, 7, 42, 2**31 - 1):
        rng = random.Random(seed)
        row, col = rng.randint(1, 12), rng.randint(1, 12)
        sc = coop2_scenario(seed)
        assert sc.blocks[0] == BlockSpec(col, row, 1), seed


def test_whole_draw_restated():
    """Every block's spot and the agents' rows, by an independent restatement of the draw."""
    for seed in (1, 42, 1234):
        rng, taken, blocks = random.Random(seed), set(), []
        for weight in (1, 1, 1, 2, 2, 2, 3, 3, 3):
            while True:
                r, c = rng.randint(1, 15 - weight - 2), rng.randint(1, 15 - weight - 2)
                cells = {(c + i, r + j) for i in range(weight) for j in range(weight)}
                if not cells & taken:
                    break
            taken |= cells
            blocks.append(BlockSpec(c, r, weight))
        rows = list(range(15))
        rng.shuffle(rows)
        sc = coop2_scenario(seed, agents=6)
        assert list(sc.blocks) == blocks and sc.agents == tuple((0, y) for y in rows[:6]), seed


def test_placement_rules_hold_and_blocks_may_touch():
    """Squares inside rows/columns 1..K-w-2, never overlapping; unlike our random scenarios they
    may touch (COOP² keeps no gap), which some seed shows."""
    touching = 0
    for seed in range(40):
        sc = coop2_scenario(seed)
        for b in sc.blocks:
            assert 1 <= b.x <= 15 - b.weight - 2 and 1 <= b.y <= 15 - b.weight - 2
        cells = [c for b in sc.blocks for c in b.cells()]
        assert len(cells) == len(set(cells))
        touching += any(
            a is not b and (a.cells() & {(x + dx, y + dy) for x, y in b.cells() for dx, dy in ((1, 0), (0, 1))})
            for a in sc.blocks
            for b in sc.blocks
        )
    assert touching > 0


def test_team_size_keeps_the_blocks_and_the_first_starts():
    three, six = load_scenario("coop2:42"), load_scenario("coop2:42@6")
    assert six.name == "coop2:42@6" and six.blocks == three.blocks and six.agents[:3] == three.agents
    assert len(six.agents) == len(set(six.agents)) == 6
    assert load_scenario("coop2").blocks == three.blocks and load_scenario("coop2").agents == three.agents
    assert load_scenario("coop2@8").agents[:3] == three.agents
    assert SCENARIOS["coop2"].name == "coop2" and COOP2_SEED == 42
    assert load_scenario("coop2:43").blocks != three.blocks


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("coop2:x", "bad scenario spec 'coop2:x': the coop2 seed"),
        ("coop2:", "bad scenario spec 'coop2:': the coop2 seed"),
        ("coop2:-1", "must be between 0 and 2147483647"),
        ("coop2:2147483648", "must be between 0 and 2147483647"),
        ("coop2:42@2", "2 agents cannot push its weight-3 blocks; give 3 to 8 (coop2:42@3)"),
        ("coop2:42@9", "the agents after @: must be between 2 and 8"),
        ("coop2:4:2", "bad scenario spec 'coop2:4:2'"),
        ("coop2:" + "9" * 5000, "5,006 characters"),
    ],
)
def test_bad_coop2_specs_fail_with_one_line(spec, message):
    with pytest.raises(ScenarioError) as info:
        load_scenario(spec)
    assert message in str(info.value) and "\n" not in str(info.value) and len(str(info.value)) < 300


def test_the_env_plays_it():
    env = make("coop2:42@6")
    assert env.num_agents == 6 and env.num_blocks == 9 and env.scenario.horizon == 50
