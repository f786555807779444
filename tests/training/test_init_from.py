"""``--init-from``: a self-play run that fine-tunes a checkpoint starts from exactly its params, says
so in its manifest, and refuses a checkpoint of another layout, network or dynamics in one line."""

from __future__ import annotations

import pytest
from training_helpers import tiny_config

from proagent.training.crossplay import training_parent
from proagent.training.networks import NetworkConfig
from proagent.training.trainer import train

quiet = lambda _: None


@pytest.fixture(scope="module")
def parent(tmp_path_factory):
    from proagent import checkout

    out = tmp_path_factory.mktemp("parent")
    heads = iter(["at-start"])
    with pytest.MonkeyPatch.context() as patch:  # HEAD moves on during the run (a commit beside it)
        patch.setattr(checkout, "git_commit", lambda: next(heads, "moved-on"))
        run = train(tiny_config(), out, updates_per_call=1, eval_episodes=2, checkpoint_every_s=0.0, log=quiet)
    return run.manifest, out


def test_a_fine_tune_starts_from_the_parents_params(parent, tmp_path):
    manifest, folder = parent
    frozen = tiny_config(seed=5).model_copy(update={"lr": 0.0})  # no learning: the params stay the parent's
    child = train(frozen, tmp_path / "child", updates_per_call=1, eval_episodes=2, log=quiet, init_from=folder)
    assert child.manifest.params_sha256 == manifest.params_sha256
    lineage = child.manifest.init_from
    assert lineage is not None and lineage.params_sha256 == manifest.params_sha256
    assert lineage.env_steps == manifest.env_steps and lineage.self_play == manifest.self_play
    assert training_parent(child.manifest) == folder.name
    # and without --init-from the same frozen run keeps its own random params
    alone = train(frozen, tmp_path / "alone", updates_per_call=1, eval_episodes=2, log=quiet)
    assert alone.manifest.params_sha256 != manifest.params_sha256 and alone.manifest.init_from is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"layout": "asymmetric_advantages"}, "trained on cramped_room, not asymmetric_advantages"),
        ({"network": NetworkConfig(encoder="fast", fc_dim=32)}, "differs from this run's"),
    ],
)
def test_a_checkpoint_that_does_not_fit_is_refused(parent, tmp_path, change, message):
    _, folder = parent
    with pytest.raises(ValueError, match=message):
        train(tiny_config().model_copy(update=change), tmp_path / "x", log=quiet, init_from=folder)


def test_cli_refuses_a_missing_folder_and_other_algorithms(tmp_path, capsys):
    from proagent.training.cli import main

    missing = tmp_path / "nothing"
    assert main(["--layout", "cramped_room", "--steps", "256", "--init-from", str(missing), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip().endswith("no manifest.json there (a checkpoint folder is needed)")
    assert main(["--algo", "fcp", "--layout", "cramped_room", "--init-from", str(missing)]) == 2
    assert "--init-from is for sp runs" in capsys.readouterr().err


@pytest.mark.slow  # trains a tiny run twice (~15 s): the slow CI step runs it
def test_a_killed_fine_tune_resumes_only_from_the_same_parent(parent, tmp_path):
    _, folder = parent
    out, calls = tmp_path / "ft", []

    def die_in_second_call(line: str) -> None:
        if "sps" in line:
            calls.append(line)
            if len(calls) == 2:
                raise KeyboardInterrupt

    go = lambda **kw: train(tiny_config(), out, updates_per_call=1, eval_episodes=2, checkpoint_every_s=0.0, **kw)
    with pytest.raises(KeyboardInterrupt):
        go(log=die_in_second_call, init_from=folder)
    with pytest.raises(ValueError, match="differs in: init_from"):
        go(log=quiet, resume=True)  # the parent left out: not the same run
    resumed = go(log=quiet, resume=True, init_from=folder)
    assert resumed.manifest.init_from is not None and len(resumed.history) == 2



def test_the_manifest_names_the_commit_the_run_started_from(parent):
    """HEAD can move while a long run trains; the code that trains is the code at its start."""
    from proagent.training import checkpoint

    manifest, folder = parent  # trained while git_commit() answered "at-start" once, then "moved-on"
    assert manifest.git_commit == "at-start" and checkpoint.load_manifest(folder).git_commit == "at-start"
