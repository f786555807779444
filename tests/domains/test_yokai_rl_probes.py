"""Linear colour probes of a recurrent Yōkai policy's memory: the fit reads a linearly encoded colour
and not noise, the split is by episode, and the samples come from real games of a recurrent policy."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from proagent.domains.yokai.rl_probes import ProbeSamples, fit_probe, predict, probe_report, probe_samples
from proagent.domains.yokai.rl_spec import YOKAI_RL
from proagent.training.networks import init_params


def _synthetic(episodes: int, encoded: bool, seed: int) -> ProbeSamples:
    """Memories that hold each of 3 cards' colour one-hot (plus noise), or noise alone."""
    rng = np.random.default_rng(seed)
    colours = np.repeat(rng.integers(0, 3, (episodes, 1, 3)), 10, axis=1)  # (E, T, Y), fixed per episode
    noise = rng.normal(size=(episodes, 10, 16)).astype(np.float32)
    signal = np.eye(3)[colours].reshape(episodes, 10, 9)
    hidden = noise + (4.0 * np.pad(signal, ((0, 0), (0, 0), (0, 7))) if encoded else 0.0)
    live = np.ones((episodes, 10), bool)
    live[:, 8:] = False  # the game ended: those steps are not samples
    return ProbeSamples(hidden.astype(np.float32), colours, live)


def test_the_probe_reads_an_encoded_colour_and_not_noise():
    report = probe_report(_synthetic(100, True, 0), _synthetic(40, False, 1), num_colours=3)
    assert report.fit.accuracy > 0.95 and report.sp_test.accuracy > 0.95 and report.sp_test.episodes == 20
    assert report.xp.accuracy < 0.5 and report.xp.episodes == 40  # a stranger's memory holds no colour: chance
    assert 0.3 < report.chance < 0.4 and report.fit.se >= 0.0


def test_the_split_is_by_episode_and_bad_fractions_are_refused():
    sp = _synthetic(10, True, 0)
    report = probe_report(sp, sp, num_colours=3, test_fraction=0.3)
    assert (report.fit.episodes, report.sp_test.episodes) == (7, 3)
    with pytest.raises(ValueError, match="test_fraction"):
        probe_report(sp, sp, num_colours=3, test_fraction=1.0)
    with pytest.raises(ValueError, match="cannot be split"):
        probe_report(ProbeSamples(*(a[:1] for a in sp)), sp, num_colours=3)


def test_fit_probe_predicts_every_card():
    sp = _synthetic(30, True, 2)
    x, y = sp.hidden[sp.live], sp.colours[sp.live]
    probe = fit_probe(x, y, num_colours=3)
    assert predict(probe, x).shape == y.shape and (predict(probe, x) == y).mean() > 0.95


def test_samples_come_from_games_of_a_recurrent_policy():
    env = YOKAI_RL.make_env("9c_2p")
    network = YOKAI_RL.network("pointwise", "9c_2p", gpu=False)
    obs_shape = env.observe(env.reset(jax.random.PRNGKey(0))).shape[1:]
    params = init_params(network, obs_shape, jax.random.PRNGKey(0), env.num_actions)
    samples = probe_samples(env, network, params, params, jax.random.PRNGKey(1), episodes=4)
    assert samples.hidden.shape == (4, env.horizon, network.memory)
    assert samples.colours.shape == (4, env.horizon, 9) and np.isin(samples.colours, [0, 1, 2]).all()
    assert samples.live[:, 0].all() and np.abs(samples.hidden).sum() > 0
    assert (np.sort(samples.colours[:, 0], axis=1) == np.repeat(np.arange(3), 3)).all()  # 3 cards per colour


def test_the_script_plays_cross_play_on_deals_the_probe_never_saw(monkeypatch, capsys):
    """Self-play and cross-play from one key share their deals; a probe that memorised the fitting
    games' deals would then score cross-play above held-out self-play. The script keeps them apart."""
    import importlib.util

    from proagent.paths import PROJECT_ROOT

    spec = importlib.util.spec_from_file_location("yokai_rl_probes", PROJECT_ROOT / "scripts" / "yokai_rl_probes.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    keys = []

    def fake_samples(env, network, params0, params1, key, episodes):
        keys.append((params0 is params1, np.asarray(key).tolist()))
        return _synthetic(episodes, True, len(keys))

    monkeypatch.setattr(script, "probe_samples", fake_samples)
    assert script.main(["--partners", "sp_gru,sp_gru_s1", "--episodes", "10"]) == 0
    self_play = [key for same, key in keys if same]
    cross_play = [key for same, key in keys if not same]
    assert len(self_play) == 2 and len(cross_play) == 2
    assert not any(key in self_play for key in cross_play)
    assert "| sp_gru | sp_gru_s1 |" in capsys.readouterr().out
