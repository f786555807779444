"""The Yōkai RL breakdown script: its per-colour cluster columns agree with the game's end state."""

from __future__ import annotations

import numpy as np
import pytest

from tests.domains.scripts_loader import load_script


@pytest.mark.slow  # ~35 s: two jitted scans of 24 games
@pytest.mark.parametrize("group", [None, "colour_rotation"])
def test_each_colours_cluster_column_adds_up_to_the_games_clusters(group: str | None) -> None:
    """Per game, the "colour k" columns (0 or 1) sum to the completed clusters, and a won game has
    every colour as one cluster; in the plain game and in Other-Play's, where the real game sits
    inside the symmetric state."""
    script = load_script("yokai_rl_breakdown")
    games = script.breakdown(("random", "random"), "9c_2p", 24, 3, group)
    assert script.columns("9c_2p")[-3:] == ("colour 0", "colour 1", "colour 2")
    per_colour = np.stack([games[f"colour {k}"] for k in range(3)], axis=1)
    assert set(np.unique(per_colour)) <= {0.0, 1.0}
    np.testing.assert_array_equal(per_colour.sum(axis=1), games["clusters"])
    assert np.all(per_colour[games["won"] == 1.0] == 1.0)
    assert 0 < games["clusters"].sum() < 3 * 24  # random play completes some clusters, not all
