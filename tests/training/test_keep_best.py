"""``--keep-best``: the best window's params are kept, survive a kill, and ship only if they evaluate
higher than the final ones (the manifest says which, with both scores)."""

from __future__ import annotations

import numpy as np
import pytest
from flax import serialization
from training_helpers import tiny_config

from proagent.training import resume
from proagent.training.best import BestSoFar, choose
from proagent.training.checkpoint import SelfPlayScore


def record(steps: int, score: float, episodes: int = 10) -> dict:
    return {"env_steps": steps, "score": score, "episodes": episodes}


def params(value: float):
    """The params getter ``observe`` takes."""
    return lambda: {"params": {"w": np.full(3, value, np.float32)}}


def test_the_best_window_not_the_best_call_is_kept():
    best = BestSoFar(window=2)
    assert not best.observe(record(100, 50.0), params(1))  # the window is not full yet
    assert best.observe(record(200, 0.0), params(2))  # (50 + 0) / 2 = 25: the first full window
    assert best.env_steps == 200 and best.score == pytest.approx(25.0)
    # a good call after a bad one does not beat a steadier window: (0 + 40) / 2 = 20 < 25
    assert not best.observe(record(300, 40.0), params(3))
    assert best.env_steps == 200 and best.params["params"]["w"][0] == 2
    assert best.observe(record(400, 60.0), params(4))  # (40 + 60) / 2 = 50
    assert best.env_steps == 400 and best.params["params"]["w"][0] == 4


def test_windows_weigh_calls_by_their_episodes():
    best = BestSoFar(window=2)
    best.observe(record(100, 100.0, episodes=1), params(1))
    best.observe(record(200, 0.0, episodes=99), params(2))
    assert best.score == pytest.approx(1.0)  # 100 points over 100 episodes, not (100 + 0) / 2


def test_a_call_with_no_finished_episode_does_not_score():
    best = BestSoFar(window=1)
    assert not best.observe(record(100, float("nan"), episodes=0), params(1))
    assert best.params is None


def test_the_kept_params_travel_with_the_resume_state(tmp_path):
    best = BestSoFar(window=1)
    assert best.to_bytes() is None  # nothing kept yet: nothing to save
    best.observe(record(300, 7.0), params(5))
    config = tiny_config()
    progress = resume.Progress(config=config.model_dump(mode="json"), calls_done=3, wall_s=1.0, history=[])
    runner = {"w": np.zeros(2, np.float32)}
    resume.save(tmp_path, runner, progress, {"best": best.to_bytes()})
    assert [f.name for f in (tmp_path / resume.RESUME_DIR).iterdir()] == [resume.STATE_FILE]  # one atomic file
    restored = resume.load(tmp_path, runner, progress.config)
    assert restored is not None and set(restored.extras) == {"best"}
    again = BestSoFar(window=1)
    again.restore(restored.extras["best"])
    assert again.env_steps == 300 and again.score == pytest.approx(7.0)
    assert np.array_equal(again.params["params"]["w"], np.full(3, 5, np.float32))
    resume.save(tmp_path, runner, progress)  # a save without extras reads back none
    assert resume.load(tmp_path, runner, progress.config).extras == {}


def test_params_are_copied_only_for_a_new_best():
    copies: list[int] = []
    getter = lambda: copies.append(1) or {"w": np.zeros(1, np.float32)}
    best = BestSoFar(window=1)
    for steps, score in [(100, 5.0), (200, 3.0), (300, 4.0), (400, 9.0)]:
        best.observe(record(steps, score), getter)
    assert len(copies) == 2  # at 100 and at 400


def test_replay_refills_the_window_from_the_history():
    history = [record(100 * i, float(i)) for i in range(1, 6)]
    replayed, fed = BestSoFar(window=3), BestSoFar(window=3)
    replayed.replay(history)
    for rec in history:
        fed.observe(rec, params(0))
    # both now judge the next call against the same three recent calls
    assert replayed.observe(record(600, 100.0), params(1)) and fed.observe(record(600, 100.0), params(1))
    assert replayed.score == pytest.approx(fed.score)


def test_choose_needs_a_gain_to_switch():
    score = lambda mean: SelfPlayScore(mean=mean, se=1.0, std=10.0, episodes=100, horizon=400)
    assert choose(score(10.0), score(10.0)) == "final"
    assert choose(score(10.0), score(10.5)) == "best"
    assert choose(score(10.0), score(9.0)) == "final"


def test_a_bad_window_is_refused():
    with pytest.raises(ValueError, match="window must be >= 1"):
        BestSoFar(window=0)


def test_cli_keeps_best_for_sp_only(capsys):
    from proagent.training.cli import main

    assert main(["--algo", "fcp", "--layout", "cramped_room", "--keep-best", "5"]) == 2
    assert "--keep-best is for sp runs" in capsys.readouterr().err
    assert main(["--algo", "sp", "--layout", "cramped_room", "--keep-best", "-1"]) == 2
    assert "--keep-best must be 0 (off)" in capsys.readouterr().err


@pytest.mark.slow  # trains three tiny runs (~20 s): the slow CI step runs it
def test_keep_best_ships_what_it_says_and_resumes_to_the_same_choice(tmp_path):
    from proagent.training.trainer import train

    # 14 calls of one update (4 envs x 32 steps): the first episodes (400 steps) end in call 13
    config = tiny_config().model_copy(update={"total_steps": 14 * 4 * 32})
    go = lambda out, **kw: train(config, out, updates_per_call=1, eval_episodes=4, checkpoint_every_s=0.0, **kw)
    plain = go(tmp_path / "plain", log=lambda _: None)
    kept = go(tmp_path / "kept", log=lambda _: None, keep_best=1)
    selection = kept.manifest.selection
    assert selection is not None and selection.trained_env_steps == plain.manifest.env_steps
    assert selection.final == plain.manifest.self_play  # keeping the best does not change training
    assert kept.manifest.self_play == getattr(selection, selection.chosen)
    if selection.chosen == "final":
        assert kept.manifest.params_sha256 == plain.manifest.params_sha256
    else:
        assert kept.manifest.env_steps == selection.best_env_steps < plain.manifest.env_steps

    # a best window that ends with the run is the final params: recorded, not scored twice
    short = config.model_copy(update={"total_steps": 13 * 4 * 32})
    ended = train(short, tmp_path / "short", updates_per_call=1, eval_episodes=4, log=lambda _: None, keep_best=1)
    last = ended.manifest.selection
    assert last is not None and last.chosen == "final" and last.best == last.final
    assert last.best_env_steps == last.trained_env_steps == ended.manifest.env_steps

    calls: list[str] = []

    def die_in_last_call(line: str) -> None:
        if "sps" in line:
            calls.append(line)
            if len(calls) > 13:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        go(tmp_path / "killed", log=die_in_last_call, keep_best=1)
    state = serialization.msgpack_restore((tmp_path / "killed" / resume.RESUME_DIR / resume.STATE_FILE).read_bytes())
    assert "extra/best" in state  # the first episodes ended in call 13
    resumed = go(tmp_path / "killed", log=lambda _: None, keep_best=1, resume=True)
    assert resumed.manifest.selection == selection
    assert resumed.manifest.params_sha256 == kept.manifest.params_sha256
