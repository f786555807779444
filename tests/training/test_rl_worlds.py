"""`proagent train` for any world with an RL spec: CUBE trains with the one RL program into the
common manifest and resumes; the worlds' partners load through one function; a world or
algorithm that cannot train is refused (exit 2) before any folder is made; the default run folder
is never in partners/."""

from __future__ import annotations

import jax
import pytest

from proagent.domains import get_domain
from proagent.domains.cube.rl_spec import CUBE_RL, partner_env
from proagent.paths import PARTNERS_DIR, RUNS_DIR, checkpoint_dir, partner_dir
from proagent.training import checkpoint, cli, partner, run_folder, train_run
from proagent.training.partner import RLPartner

# 4 calls of one update of 4 envs x 16 steps: 256 env steps
TINY_CUBE = ["--domain", "cube", "--layout", "easy_2a", "--steps", "256", "--num-envs", "4", "--set", "num_steps=16",
             "--set", "update_epochs=1", "--set", "num_minibatches=2", "--updates-per-call", "1",
             "--eval-episodes", "2", "--checkpoint-every", "0"]  # fmt: skip


class Killed(Exception):
    pass


def _killed_after(calls: int):
    seen: list[str] = []

    def say(line: str) -> None:
        if "steps" in line and "sps" in line:
            seen.append(line)
            if len(seen) > calls:
                raise Killed

    return say


@pytest.mark.parametrize("algo", ["sp", pytest.param("ippo", marks=pytest.mark.slow)])
def test_cube_trains_into_the_common_manifest_and_resumes(algo, tmp_path, monkeypatch):
    """A tiny CUBE run (sp: one network in every seat; ippo: one per seat) writes the manifest every
    world writes, into a fresh run folder; killed, ``--resume`` finds it and ends bit for bit where
    an uninterrupted run ends."""
    monkeypatch.setattr(run_folder, "TRAIN_RUNS", tmp_path / "runs")
    whole = tmp_path / "whole"
    assert cli.main([*TINY_CUBE, "--algo", algo, "--out", str(whole)]) == 0
    manifest = checkpoint.load_manifest(whole)
    assert (manifest.world, manifest.layout, manifest.algorithm, manifest.encoder) == ("cube", "easy_2a", algo, "mlp")
    assert manifest.seat_groups == (2 if algo == "ippo" else 0) and manifest.obs_shape == (25,)
    assert manifest.dynamics == CUBE_RL.make_env("easy_2a").record() and manifest.self_play.horizon == 100
    assert manifest.history.records == 4 and (whole / checkpoint.HISTORY_FILE).is_file()
    monkeypatch.setattr(train_run, "_say", _killed_after(2))
    with pytest.raises(Killed):
        cli.main([*TINY_CUBE, "--algo", algo])  # the default out: a run folder under runs/train
    (killed,) = (tmp_path / "runs").iterdir()
    assert killed.name.endswith(f"-cube-easy_2a-{algo}") and (killed / "resume").is_dir()
    monkeypatch.setattr(train_run, "_say", lambda line: None)
    assert cli.main([*TINY_CUBE, "--algo", algo, "--resume"]) == 0  # finds the interrupted run
    assert checkpoint.load_manifest(killed).params_sha256 == manifest.params_sha256
    assert not (killed / "resume").exists()


def test_both_worlds_partners_load_through_one_function(monkeypatch):
    """The Overcooked registry and CUBE's partners both call ``training.partner.load_rl_partner``."""
    calls = []
    original = partner.load_rl_partner

    def spy(world, layout, name, observer, root=PARTNERS_DIR, stochastic=True):
        calls.append((world, layout, name))
        return original(world, layout, name, observer, root, stochastic)

    monkeypatch.setattr(partner, "load_rl_partner", spy)
    overcooked, cube = get_domain("overcooked"), get_domain("cube")
    kitchen = overcooked.make_env("cramped_room", 400)
    scenario = cube.make_env("easy_2a", 100)
    assert isinstance(overcooked.make_partner("sp", kitchen), RLPartner)
    assert isinstance(cube.make_partner("ippo_shared", scenario), RLPartner)
    assert calls == [("overcooked", "cramped_room", "sp"), ("cube", "easy_2a", "ippo_shared")]


def test_a_shipped_cube_checkpoint_plays_through_the_loader_like_any_other():
    env = get_domain("cube").make_env("easy_2a", 100)
    loaded = partner.load_rl_partner("cube", "easy_2a", "ippo_independent", lambda m: partner_env(env))
    assert loaded.manifest.seat_groups == 2 and loaded.env.num_actions == 5
    state = env.reset(jax.random.PRNGKey(0))
    for seat in (0, 1):
        loaded.reset(seat, seed=4)
        first = [loaded.policy(env.symbolic(state), state) for _ in range(3)]
        loaded.reset(seat, seed=4)
        assert [loaded.policy(env.symbolic(state), state) for _ in range(3)] == first


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--domain", "no_such_world", "--layout", "x"], "unknown domain"),
        (["--domain", "training_helpers:NO_RL_WORLD", "--layout", "x"], "provides no RL spec"),
        (["--domain", "cube", "--layout", "easy_2a", "--algo", "op"], "needs a symmetry transform"),
        (["--domain", "cube", "--layout", "easy_2a", "--algo", "state_aug"], "needs start states"),
        (["--domain", "cube", "--layout", "easy_2a", "--algo", "human_proxy"], "needs style events"),
        (["--domain", "cube", "--layout", "easy_2a", "--algo", "bc"], "needs recorded play"),
        (["--domain", "cube", "--layout", "no_such_scenario"], "no_such_scenario"),
        (["--domain", "cube", "--layout", "easy_2a", "--encoder", "cnn"], "no encoder 'cnn'"),
        (["--layout", "cramped_room", "--encoder", "mlp"], "no encoder 'mlp'"),
    ],
)
def test_what_cannot_train_exits_2_in_one_line_before_any_folder(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run_folder, "TRAIN_RUNS", tmp_path / "runs")
    assert cli.main([*argv, "--out", str(tmp_path / "out")]) == 2
    assert cli.main(argv) == 2  # the default out
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and message in err[0]
    assert list(tmp_path.iterdir()) == []


def test_the_default_out_is_a_run_folder_and_a_checkpoint_needs_overwrite(capsys):
    out = run_folder.default_out("overcooked", "cramped_room", "sp")
    assert out.is_relative_to((RUNS_DIR / "train").absolute()) and not out.is_relative_to(PARTNERS_DIR)
    assert out.name.endswith("-overcooked-cramped_room-sp") and not out.exists()
    shipped = partner_dir("overcooked", "cramped_room", "sp")
    before = (shipped / checkpoint.MANIFEST_FILE).read_bytes()
    assert cli.main(["--layout", "cramped_room", "--steps", "256", "--out", str(shipped)]) == 2
    assert "holds a checkpoint: add --overwrite" in capsys.readouterr().err
    assert (shipped / checkpoint.MANIFEST_FILE).read_bytes() == before


def test_an_overcooked_partners_old_place_resolves_to_its_new_home():
    assert checkpoint_dir(PARTNERS_DIR / "cramped_room" / "sp") == partner_dir("overcooked", "cramped_room", "sp")
    assert checkpoint_dir(PARTNERS_DIR / "cramped_room" / "no_such") == PARTNERS_DIR / "cramped_room" / "no_such"
