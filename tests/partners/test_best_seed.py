"""A world's default trained partner is the seed whose manifest scores best in self-play, not seed 0
on trust: on test_time_wide ``sp`` self-plays at 0 and ``sp_s2`` at about 190."""

from __future__ import annotations

import json
import shutil

import pytest

from proagent.domains import get_domain
from proagent.paths import partner_dir
from proagent.training import checkpoint
from proagent.training.partner import best_seed


@pytest.mark.parametrize(
    ("layout", "best"),
    [("test_time_wide", "sp_s2"), ("grounded_coord_simple", "sp_s2"), ("grounded_coord_ring", "sp_s1"), ("demo_cook_simple", "sp")],
)
def test_the_best_shipped_seed_by_its_manifest(layout, best):
    assert best_seed("overcooked", layout, "sp") == best
    overcooked = get_domain("overcooked")
    assert overcooked.default_partner(overcooked.make_env(layout, 400)) == best


def _ship(root, name: str, mean: float | None) -> None:
    """A copy of a shipped sp manifest under ``root`` as ``name``, with self-play ``mean`` (None: none yet)."""
    folder = partner_dir("overcooked", "test_time_wide", name, root)
    folder.mkdir(parents=True)
    shutil.copy(partner_dir("overcooked", "test_time_wide", "sp") / checkpoint.PARAMS_FILE, folder)
    data = json.loads((partner_dir("overcooked", "test_time_wide", "sp") / checkpoint.MANIFEST_FILE).read_text())
    data["self_play"] = None if mean is None else {**data["self_play"], "mean": mean}
    (folder / checkpoint.MANIFEST_FILE).write_text(json.dumps(data))


def test_a_tie_goes_to_the_first_name_an_unscored_seed_comes_last_and_other_methods_are_not_seeds(tmp_path):
    for name, mean in [("sp", 5.0), ("sp_s1", 5.0), ("sp_s2", None), ("sp_scratch", 99.0), ("spx", 99.0)]:
        _ship(tmp_path, name, mean)
    assert best_seed("overcooked", "test_time_wide", "sp", tmp_path) == "sp"
    assert best_seed("overcooked", "test_time_wide", "op", tmp_path) is None
    assert best_seed("overcooked", "no_such_layout", "sp", tmp_path) is None
