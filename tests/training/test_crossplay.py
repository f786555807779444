"""Cross-play of a zoo: every partner with every other in both seats, and the script's summaries
(the rest of the zoo vs held-out partners)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

from proagent.paths import PROJECT_ROOT
from proagent.training.crossplay import CrossPlay, pair_key, zoo_crossplay


def load_script():
    spec = importlib.util.spec_from_file_location("zoo_crossplay", PROJECT_ROOT / "scripts" / "zoo_crossplay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_zoo_of_two_plays_every_ordered_pair(tiny_run, tmp_path):
    _, ckpt = tiny_run  # cramped_room/sp of the shared tiny run
    for name in ("sp", "cole"):
        shutil.copytree(ckpt, tmp_path / "overcooked" / "cramped_room" / name)
    (tmp_path / "overcooked" / "cramped_room" / "empty").mkdir()  # no manifest: not a partner
    cp = zoo_crossplay("cramped_room", episodes=2, seed=0, root=tmp_path)
    assert cp.names == ["cole", "sp"] and np.asarray(cp.scores).shape == (2, 2, 2)
    assert np.array_equal(cp.both_seats("sp", "cole"), np.concatenate([cp.scores[1][0], cp.scores[0][1]]))
    with pytest.raises(ValueError, match="no trained partners"):
        zoo_crossplay("cramped_room", episodes=1, root=_empty_root(tmp_path))


def test_a_zoo_of_two_network_families_plays_every_pair_with_each_ones_network(tiny_run, tmp_path):
    """A partner whose network differs from the others' joins the table (its own group, its own
    program per pair of groups) instead of being skipped; cells among the first family stay put."""
    import jax

    from proagent.training import checkpoint
    from proagent.training.evaluate import make_grid_scores
    from proagent.training.networks import NetworkConfig, init_params
    from proagent.training.worlds import rl_spec

    _, ckpt = tiny_run
    zoo = tmp_path / "overcooked" / "cramped_room"
    shutil.copytree(ckpt, zoo / "sp")
    alone = zoo_crossplay("cramped_room", episodes=2, seed=0, root=tmp_path)
    params, manifest = checkpoint.load(ckpt)
    wide = NetworkConfig(encoder="fast", fc_dim=32, memory=8)  # other shapes, and a memory: cannot share a stack
    env = rl_spec("overcooked").make_env("cramped_room")
    obs_shape = env.observe(env.reset(jax.random.PRNGKey(0))).shape[1:]
    wide_params = init_params(wide, obs_shape, jax.random.PRNGKey(1))
    checkpoint.save(zoo / "wide", wide_params, manifest.model_copy(update={"network": wide}))
    mixed = zoo_crossplay("cramped_room", episodes=2, seed=0, root=tmp_path)
    assert mixed.names == ["sp", "wide"] and mixed.skipped == []
    assert np.array_equal(mixed.both_seats("sp", "sp"), alone.both_seats("sp", "sp"))
    stack = lambda p: jax.tree.map(lambda x: np.asarray(x)[None], p)
    key = np.asarray(pair_key(0, "sp", "wide"))[None, None]
    direct = make_grid_scores(env, manifest.network, wide, 1, 1, 2)(stack(params), stack(wide_params), key)
    assert np.array_equal(np.asarray(mixed.scores[0][1]), np.asarray(direct)[0, 0])  # sp in seat 0, wide in seat 1


@pytest.mark.slow  # compiles four Yōkai programs (~30 s)
def test_pointer_and_dense_partners_of_yokai_play_each_other_in_the_right_seats(tmp_path):
    """Yōkai's scores vary from game to game, so a cell placed in the wrong seat order or re-drawn
    when a second family joins would show."""
    import jax

    from proagent.training import checkpoint
    from proagent.training.evaluate import make_grid_scores
    from proagent.training.worlds import rl_spec

    shipped = PROJECT_ROOT / "partners" / "yokai" / "9c_2p"
    zoo = tmp_path / "yokai" / "9c_2p"
    shutil.copytree(shipped / "sp", zoo / "sp")
    alone = zoo_crossplay("9c_2p", episodes=8, seed=0, root=tmp_path, world="yokai")
    shutil.copytree(shipped / "sp_pointer", zoo / "sp_pointer")
    mixed = zoo_crossplay("9c_2p", episodes=8, seed=0, root=tmp_path, world="yokai")
    assert mixed.names == ["sp", "sp_pointer"] and mixed.skipped == []
    assert len(set(alone.both_seats("sp", "sp").tolist())) > 1
    assert np.array_equal(mixed.both_seats("sp", "sp"), alone.both_seats("sp", "sp"))
    loaded = [checkpoint.load(zoo / name) for name in mixed.names]  # (params, manifest), in the table's order
    stack = lambda p: jax.tree.map(lambda x: np.asarray(x)[None], p)
    env = rl_spec("yokai").make_env("9c_2p")
    for seat0, seat1 in ((0, 1), (1, 0)):
        (params0, manifest0), (params1, manifest1) = loaded[seat0], loaded[seat1]
        key = np.asarray(pair_key(0, mixed.names[seat0], mixed.names[seat1]))[None, None]
        direct = make_grid_scores(env, manifest0.network, manifest1.network, 1, 1, 8)(stack(params0), stack(params1), key)
        assert np.array_equal(np.asarray(mixed.scores[seat0][seat1]), np.asarray(direct)[0, 0])
    assert not np.array_equal(mixed.scores[0][1], mixed.scores[1][0])


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_a_cell_stays_put_when_the_zoo_grows(tmp_path):
    """Each pair's key comes from its names: adding a partner must not re-draw the others' episodes
    (counter_circuit's sp with pbt_scratch varies from episode to episode, so a re-draw shows)."""
    shipped = PROJECT_ROOT / "partners" / "overcooked" / "counter_circuit"
    zoo = tmp_path / "overcooked" / "counter_circuit"
    for name in ("sp", "pbt_scratch"):
        shutil.copytree(shipped / name, zoo / name)
    small = zoo_crossplay("counter_circuit", episodes=4, seed=3, root=tmp_path)
    shutil.copytree(shipped / "cole_scratch", zoo / "cole_scratch")
    grown = zoo_crossplay("counter_circuit", episodes=4, seed=3, root=tmp_path)
    assert grown.names == ["cole_scratch", "pbt_scratch", "sp"]
    pair = small.both_seats("sp", "pbt_scratch")
    assert len(set(pair.tolist())) > 1  # the episodes differ: the check below can fail
    assert np.array_equal(grown.both_seats("sp", "pbt_scratch"), pair)
    assert np.array_equal(grown.both_seats("sp", "sp"), small.both_seats("sp", "sp"))
    other_seed = zoo_crossplay("counter_circuit", episodes=4, seed=4, root=tmp_path)
    assert not np.array_equal(other_seed.both_seats("sp", "pbt_scratch"), pair)


def test_a_proxy_trained_beside_a_partner_counts_as_its_relative():
    from proagent.paths import partner_dir
    from proagent.training import checkpoint
    from proagent.training.crossplay import training_parent

    manifest = checkpoint.load_manifest(partner_dir("overcooked", "counter_circuit", "pbt_scratch"))
    assert training_parent(manifest) is None
    beside = manifest.model_copy(update={"details": {"trained_with_partner": {"name": "pbt_scratch"}}})
    assert training_parent(beside) == "pbt_scratch"
    warm = manifest.model_copy(update={"train_config": {**manifest.train_config, "warm_start": "sp"}})
    assert training_parent(warm) == "sp"


def _empty_root(tmp_path):
    (tmp_path / "bare" / "overcooked" / "cramped_room").mkdir(parents=True)
    return tmp_path / "bare"


def test_held_out_partners_are_summarised_apart_from_the_zoo():
    script = load_script()
    names = ["sp", "fcp", "proxy"]
    # scores[i][j]: names[i] in seat 0 with names[j] in seat 1, one episode each
    scores = [[[100.0], [80.0], [10.0]], [[60.0], [90.0], [50.0]], [[30.0], [70.0], [0.0]]]
    cp = CrossPlay(layout="cramped_room", names=names, episodes=1, seed=0, scores=scores)
    rest = script.summary([cp], {"proxy"}, "rest", list(script.FOCUS))
    heldout = script.summary([cp], {"proxy"}, "heldout", list(script.FOCUS))
    assert "| sp | 70.0 | 70.0 |" in rest  # with fcp only: (80 + 60) / 2
    assert "| fcp | 70.0 | 70.0 |" in rest
    assert "| sp | 20.0 | 20.0 |" in heldout  # with proxy only: (10 + 30) / 2
    assert "| fcp | 60.0 | 60.0 |" in heldout  # (50 + 70) / 2
    assert "| mep | – | – |" in rest  # not in the zoo


def test_the_zero_shot_summary_drops_partners_that_share_ancestry():
    script = load_script()
    names = ["sp", "fcp", "proxy", "pbt"]  # proxy and pbt were warm-started from sp
    scores = [[[100.0], [80.0], [170.0], [160.0]],
              [[60.0], [90.0], [50.0], [40.0]],
              [[170.0], [30.0], [150.0], [120.0]],
              [[160.0], [20.0], [110.0], [150.0]]]  # fmt: skip
    cp = CrossPlay(layout="cramped_room", names=names, episodes=1, seed=0, scores=scores, parents={"proxy": "sp", "pbt": "sp"})
    assert cp.related("sp", "proxy") and cp.related("proxy", "pbt") and not cp.related("sp", "fcp")
    independent = script.summary([cp], set(), "independent", list(script.FOCUS))
    assert "| sp | 70.0 | 70.0 |" in independent  # fcp only: (80 + 60) / 2
    assert "| fcp | 46.7 | 46.7 |" in independent  # sp 70, proxy 40, pbt 30 (seat means)
    assert "| pbt | 30.0 | 30.0 |" in independent  # fcp only: (40 + 20) / 2
    rest = script.summary([cp], set(), "rest", list(script.FOCUS))
    assert "| sp | 133.3 | 133.3 |" in rest  # fcp 70, proxy 170, pbt 160 (seat means)


def test_the_held_out_detail_shows_each_partner_and_the_pooled_episodes():
    script = load_script()
    names = ["sp", "proxy_a", "proxy_b"]
    scores = [[[100.0, 100.0], [10.0, 30.0], [0.0, 40.0]],
              [[30.0, 10.0], [0.0, 0.0], [0.0, 0.0]],
              [[20.0, 20.0], [0.0, 0.0], [0.0, 0.0]]]  # fmt: skip
    cp = CrossPlay(layout="cramped_room", names=names, episodes=2, seed=0, scores=scores)
    lines = script.heldout_detail(cp, {"proxy_a", "proxy_b"})
    assert lines[2] == "| agent | proxy_a | proxy_b | pooled |"
    # with proxy_a: 10, 30, 30, 10 -> 20; with proxy_b: 0, 40, 20, 20 -> 20; pooled se = std(ddof=1) / sqrt(8)
    pooled = np.array([10.0, 30.0, 30.0, 10.0, 0.0, 40.0, 20.0, 20.0])
    assert lines[4] == f"| sp | 20.0 | 20.0 | 20.0 ± {pooled.std(ddof=1) / np.sqrt(8):.1f} (n=8) |"
    assert len(lines) == 6  # the held-out partners get no row of their own
    assert script.heldout_detail(cp, set()) == []


def test_another_worlds_summary_lists_every_partner_of_its_zoo():
    """Overcooked's summary lists the papers' methods (``FOCUS``); another world's has no such list
    and names every partner its zoo holds, so none of them is left out."""
    script = load_script()
    names = ["sp_pointer", "op_pointer", "sp_pointer_s1"]
    scores = [[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]
    cp = CrossPlay(layout="9c_2p", names=names, episodes=1, seed=0, scores=scores)
    assert script.summary_rows([cp], "overcooked") == list(script.FOCUS)
    rows = script.summary_rows([cp], "yokai")
    assert rows == ["op_pointer", "sp_pointer", "sp_pointer_s1"]
    rest = script.summary([cp], set(), "rest", rows)
    assert "| op_pointer | 5.0 | 5.0 |" in rest  # with sp_pointer (2 + 4) / 2 and sp_pointer_s1 (6 + 8) / 2


def test_the_script_asks_for_layouts_outside_overcooked(monkeypatch, capsys):
    script = load_script()
    monkeypatch.setattr("sys.argv", ["zoo_crossplay.py", "--world", "yokai"])
    with pytest.raises(SystemExit) as exit_:
        script.main()
    assert exit_.value.code == 2 and "--layouts is required for --world yokai" in capsys.readouterr().err


def test_each_worlds_table_goes_to_its_own_shipped_page_by_default():
    script = load_script()
    assert script.default_out("overcooked") == Path("docs/results/zoo_crossplay_trained")
    assert script.default_out("yokai") == Path("docs/results/zoo_crossplay_yokai")
    assert all((PROJECT_ROOT / script.default_out(w)).with_suffix(".md").is_file() for w in ("overcooked", "yokai"))
