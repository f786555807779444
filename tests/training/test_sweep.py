"""`proagent train --sweep`: a bad sweep file is one line and no folder; a tiny sweep (sp on
cramped_room, seeds 0 and 1) trains locally, resumes after a kill to the uninterrupted manifests,
and trains on a local Ray runtime to the same manifests. Every run uses the one tiny config
(training_helpers.TINY), so its programs compile once into the persistent cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from training_helpers import TINY

from proagent.cli import main as proagent_main
from proagent.training import resume
from proagent.training.checkpoint import load_manifest
from proagent.training.cli import main

PPO = {key: TINY[key] for key in ("num_steps", "update_epochs", "num_minibatches")}
SWEEP = f"""
domain = "overcooked"
methods = ["sp"]
layouts = ["cramped_room"]
seeds = [0, 1]
[train]
total_steps = {2 * TINY["num_envs"] * TINY["num_steps"]}
num_envs = {TINY["num_envs"]}
shaping_horizon = {TINY["shaping_horizon"]}
encoder = "fast"
updates_per_call = 1
eval_episodes = 1
checkpoint_every = 0
ppo = {{ {", ".join(f"{k} = {v}" for k, v in PPO.items())} }}
[resources]
num_cpus = 1
"""
RUNS = ("overcooked-cramped_room-sp-s0", "overcooked-cramped_room-sp-s1")
TIMED = ("created", "train_wall_time_s")


class Killed(Exception):
    pass


def sweep_file(folder: Path, text: str = SWEEP, root: Path | None = None) -> Path:
    path = folder / "sweep.toml"
    path.write_text(f'output_root = "{root or folder / "out"}"\n{text}')
    return path


def manifests(root: Path) -> dict[str, dict]:
    """Each run's manifest without its timings."""
    return {run: load_manifest(root / run).model_dump(mode="json", exclude=set(TIMED)) for run in RUNS}


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory) -> tuple[Path, list[str]]:
    """The uninterrupted sweep, trained locally: (its output root, its lines)."""
    folder = tmp_path_factory.mktemp("local")
    lines: list[str] = []
    from proagent.training.cli import run_argv

    assert run_argv(["--sweep", str(sweep_file(folder))], lines.append) == 0
    return folder / "out", lines


BAD = [
    ("", "seeds = [0, 1]", "seeds = [0, 0]", "seeds: Value error, lists each value once"),
    ("", "num_cpus = 1", "num_cpu = 1", "resources.num_cpu: Extra inputs are not permitted"),
    ("", 'methods = ["sp"]', "methods = []", "methods: List should have at least 1 item"),
    ("", 'methods = ["sp"]', 'methods = ["no_such_algo"]', "argument --algo: invalid choice: 'no_such_algo'"),
    ("", "update_epochs = 1", "no_such_field = 1", "no_such_field"),
    ("", "total_steps = 256", "total_steps = -5", "train.total_steps: Input should be greater than or equal to 1"),
    ("", 'layouts = ["cramped_room"]', 'layouts = ["no_such_kitchen"]', "no_such_kitchen"),
    ("", "[resources]", "[resources\n", "not valid TOML"),
]


@pytest.mark.parametrize(("_", "old", "new", "says"), BAD, ids=[case[2][:24] for case in BAD])
def test_a_bad_sweep_file_is_one_line_exit_2_and_no_folder(_, old, new, says, tmp_path, capsys):
    assert old in SWEEP
    path = sweep_file(tmp_path, SWEEP.replace(old, new))
    assert main(["--sweep", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err, err
    assert not (tmp_path / "out").exists()


def test_sweep_flags_that_cannot_run_are_one_line(tmp_path, capsys):
    path = sweep_file(tmp_path)
    assert main(["--sweep", str(path), "--layout", "cramped_room"]) == 2
    assert main(["--sweep", str(path), "--ray-address", "127.0.0.1:1"]) == 2  # needs --executor ray
    assert main(["--sweep", str(path), "--resume"]) == 2  # nothing to resume
    assert main(["--layout", "cramped_room", "--executor", "ray"]) == 2  # a single run has no executor
    assert main(["--sweep", str(path), "--keep-best", "4", "--algo", "cole"]) == 2  # run settings: the file's
    assert proagent_main(["train", "--sweep", str(path), "--out", str(tmp_path)]) == 2  # the `proagent` command
    err = capsys.readouterr().err.splitlines()
    assert (
        len(err) == 6
        and "drop --out" in err[5]
        and err[4].endswith("drop --algo, --keep-best")
        and "--ray-address needs --executor ray" in err[1]
        and "holds no sweep" in err[2]
    ), err
    assert not (tmp_path / "out").exists()


def test_a_tiny_sweep_trains_each_cell_into_its_folder_with_a_summary(local_sweep, capsys):
    root, lines = local_sweep
    assert sorted(p.name for p in root.iterdir()) == sorted(
        [*RUNS, "sweep.toml", "sweep_summary.json", "sweep_summary.md"]
    )
    summary = json.loads((root / "sweep_summary.json").read_text())
    assert [(r["method"], r["layout"], r["seed"], r["status"], r["env_steps"]) for r in summary] == [
        ("sp", "cramped_room", 0, "done", 256), ("sp", "cramped_room", 1, "done", 256)]  # fmt: skip
    found = manifests(root)
    assert [m["seed"] for m in found.values()] == [0, 1]
    assert [r["params_sha256"] for r in summary] == [m["params_sha256"][:12] for m in found.values()]
    assert all(m["train_config"]["num_envs"] == TINY["num_envs"] for m in found.values())
    assert "| overcooked-cramped_room-sp-s1 | sp | cramped_room | 1 | done | 256 |" in "\n".join(lines)
    assert (root / "sweep_summary.md").read_text().splitlines()[2].startswith("| overcooked-cramped_room-sp-s0 |")
    assert main(["--sweep", str(root.parent / "sweep.toml")]) == 2  # its root holds a sweep: --resume continues it
    assert "add --resume" in capsys.readouterr().err


@pytest.mark.slow  # trains the sweep twice more (~10 s)
def test_a_killed_sweep_resumes_to_the_uninterrupted_manifests(local_sweep, tmp_path, capsys):
    path = sweep_file(tmp_path)
    seen: list[str] = []

    def kill_in_the_second_run(line: str) -> None:
        if line.startswith(f"[{RUNS[1]}]") and "sps" in line:
            seen.append(line)
            if len(seen) == 2:  # its first call is checkpointed, its second is not
                raise Killed

    from proagent.training.cli import run_argv

    with pytest.raises(Killed):
        run_argv(["--sweep", str(path)], kill_in_the_second_run)
    root = tmp_path / "out"
    assert (root / RUNS[1] / resume.RESUME_DIR).is_dir() and not (root / "sweep_summary.json").exists()
    (tmp_path / "other").mkdir()
    other = sweep_file(tmp_path / "other", SWEEP.replace("seeds = [0, 1]", "seeds = [0, 1, 2]"), root)
    assert main(["--sweep", str(other), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "differs from the sweep" in err and "(in seeds)" in err and err.count("\n") == 1
    lines: list[str] = []
    assert run_argv(["--sweep", str(path), "--resume"], lines.append) == 0
    assert "2 runs, 1 finished already" in lines[0]
    assert not any(line.startswith(f"[{RUNS[0]}]") for line in lines)  # the finished run is skipped
    assert any(line.startswith(f"[{RUNS[1]}] resuming") and "1 calls done" in line for line in lines)
    assert manifests(root) == manifests(local_sweep[0])


WORKER_ENV = {
    "JAX_DISABLE_MOST_OPTIMIZATIONS": "true",  # the suite's compile setting (conftest), in every worker
    "JAX_COMPILATION_CACHE_DIR": str(Path(__file__).resolve().parents[2] / ".cache" / "jax-tests"),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
}


@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    """A local Ray runtime of 2 CPUs whose processes inherit ``WORKER_ENV``; shut down after."""
    ray = pytest.importorskip("ray")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in WORKER_ENV.items():
            patch.setenv(name, value)
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=True, logging_level="WARNING")
        try:
            yield
        finally:
            ray.shutdown()


@pytest.mark.slow  # starts a Ray runtime (~20 s on 2 cores)
def test_a_sweep_on_ray_trains_the_same_manifests_as_locally(ray_session, local_sweep, tmp_path):
    from proagent.training.cli import run_argv

    lines: list[str] = []
    assert run_argv(["--sweep", str(sweep_file(tmp_path)), "--executor", "ray"], lines.append) == 0
    assert "ray executor" in lines[0]
    assert manifests(tmp_path / "out") == manifests(local_sweep[0])
    assert [line for line in lines if "saved sp" in line and line.startswith("[")] != []


def test_override_sets_are_one_more_axis_merged_over_the_shared_settings(tmp_path):
    from proagent.training.sweep import load_sweep

    text = (
        SWEEP + "[overrides.low_ent]\nppo = { ent_coef = 0.001 }\n[overrides.big]\nnum_envs = 8\nalgo = { x = [1] }\n"
    )
    sweep = load_sweep(sweep_file(tmp_path, text))
    names = [cell.folder_name(sweep.domain) for cell in sweep.cells()]
    assert names == [f"overcooked-cramped_room-sp-s{s}-{o}" for o in ("low_ent", "big") for s in (0, 1)]
    low, big = sweep.cells()[0].argv(sweep.domain, tmp_path), sweep.cells()[2].argv(sweep.domain, tmp_path)
    assert "ent_coef=0.001" in low and "num_steps=32" in low and low[low.index("--num-envs") + 1] == "4"
    assert big[big.index("--num-envs") + 1] == "8" and "x=[1]" in big and "ent_coef=0.001" not in big
