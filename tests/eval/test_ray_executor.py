"""`proagent eval --executor ray`: the same episodes as a local run, one budget over every worker,
credentials only in the workers' environment, a killed worker's episode played again and written
once, a Ray run resumed locally, and bad flags refused before any run folder.

One real local Ray runtime (2 CPUs: 2 worker processes) serves the module; episodes are 5 steps of
cramped_room with a priced LLM double that workers import by name (tests.support.priced).
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from eval_helpers import lines

from proagent.cli import main
from proagent.cluster import check_nodes
from proagent.eval.config import EvalConfig
from proagent.eval.plan import plan_jobs
from proagent.eval.ray_executor import RayExecutor, open_executor, worker_options
from proagent.eval.records import EvalRecord, read_records
from proagent.eval.request_slots import endpoint_slots
from proagent.eval.runner import EvalOutcome, Evaluator
from proagent.eval.session import play_run, start_run
from proagent.eval.world import World
from tests.support.priced import KEY_VARIABLE

ray = pytest.importorskip("ray")

SECRET = "sk-raytest-0123456789abcdef"
# The only fields two plays of one episode may differ in: how long things took (at the top level
# and in each seat's stats), and ``attempt``, the id of the session that played it.
TIMED = frozenset({"wall_time_s", "llm_latency_s", "overhead_ms_median", "attempt"})
GRID = ["--partners", "greedy", "--layouts", "cramped_room", "--horizon", "5", "--no-cache", "--progress", "off"]
DOUBLE = "python:tests.support.priced:"
# What workers inherit from the test's Ray runtime, as from a node's `ray start`: the credential (the
# suite's XLA settings and compilation cache are in the environment already: the root conftest.py).
WORKER_ENV = {KEY_VARIABLE: SECRET, "RAY_USAGE_STATS_ENABLED": "0"}


@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in WORKER_ENV}
    os.environ.update(WORKER_ENV)  # the runtime's processes inherit this environment
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=True, logging_level="WARNING")
    try:
        yield
    finally:
        ray.shutdown()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def untimed(records: list[EvalRecord]) -> dict[str, object]:
    """Records by key, without ``TIMED`` fields at any depth."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMED}
        return [strip(v) for v in value] if isinstance(value, list) else value

    return {r.key.id: strip(r.model_dump()) for r in records}


def eval_run(root: Path, *args: str) -> tuple[int, Path]:
    code = main(["eval", *GRID, *args, "--runs-dir", str(root)])
    (run,) = root.iterdir()
    return code, run


def test_ray_plays_the_same_episodes_as_a_local_run_with_the_key_only_in_the_environment(
    ray_session, tmp_path, monkeypatch, capfd
):
    monkeypatch.setenv(KEY_VARIABLE, SECRET)  # the double refuses to answer without it, in whichever process
    # (the workers have it from the runtime's environment: eval's conftest removes it here per test)
    args = ["--agents", "proagent,greedy", "--llm", DOUBLE + "keyed_model", "--seats", "0,1", "--episodes", "2"]
    code, local = eval_run(tmp_path / "local", *args)
    assert code == 0
    code, remote = eval_run(tmp_path / "ray", *args, "--executor", "ray")
    assert code == 0
    local_records, ray_records = read_records(local / "episodes.jsonl"), read_records(remote / "episodes.jsonl")
    assert len(ray_records) == 8 and sum(r.team_llm_calls for r in ray_records) > 0
    assert untimed(ray_records) == untimed(local_records)

    config = EvalConfig.model_validate(json.loads((remote / "config.json").read_text())["config"])
    sent = pickle.dumps((config, RayExecutor(None, World()).worker_world, plan_jobs(config, ["cramped_room"])))
    assert SECRET.encode() not in sent  # what the workers are given as arguments
    assert "runtime_env" not in worker_options()  # Ray logs a runtime_env's env_vars in clear
    written = b"".join(path.read_bytes() for path in remote.rglob("*") if path.is_file())  # records, config, report
    out, err = capfd.readouterr()
    assert SECRET.encode() not in written and SECRET not in out + err
    logs = Path(ray._private.worker._global_node.get_logs_dir_path())
    assert not [p.name for p in logs.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def test_one_budget_holds_over_every_worker_and_a_ray_run_resumes_locally(ray_session, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    args = [
        "--agents",
        "proagent",
        "--llm",
        DOUBLE + "keyed_model",
        "--seats",
        "0",
        "--episodes",
        "6",
        "--concurrency",
        "2",
    ]
    code, run = eval_run(tmp_path, *args, "--executor", "ray", "--max-cost", "0.001")
    assert code == 0
    # both workers start an episode before anything is spent; then the shared budget stops the run
    first = read_records(run / "episodes.jsonl")
    assert len(first) == 2 and sum(r.spent_usd for r in first) > 0.001

    assert main(["eval", "--resume", str(run), "--max-cost", "100", "--progress", "off"]) == 0  # locally
    records = read_records(run / "episodes.jsonl")
    assert sorted(r.key.episode for r in records) == list(range(6))
    assert len((run / "episodes.jsonl").read_text().splitlines()) == 6  # nothing played twice


def test_a_worker_killed_mid_episode_is_played_again_and_written_once(ray_session, tmp_path):
    marker = tmp_path / "marker"
    marker.mkdir()
    args = f"--agents proagent --llm {DOUBLE}killing_model --api-base {marker} --seats 0,1 --episodes 2 --trace"
    # one request slot for the cluster, which the killed process held: its restart must free it
    code, run = eval_run(tmp_path / "runs", *args.split(), "--llm-concurrency", "1", "--executor", "ray")
    assert code == 0 and (marker / "killed").exists()  # a worker process died on its first answer
    written = [EvalRecord.model_validate(line).key.id for line in lines(run / "episodes.jsonl")]
    assert len(written) == 4 and len(set(written)) == 4  # every episode, each once
    assert not (run / "failures.jsonl").exists()
    records = read_records(run / "episodes.jsonl")
    trace = lines(run / "trace.jsonl")  # the driver writes each episode's steps once, as its record arrives
    assert len(trace) == sum(r.steps for r in records) and {t["attempt"] for t in trace} == {records[0].attempt}


def test_one_cap_on_requests_in_flight_holds_over_every_worker(ray_session, tmp_path):
    """--llm-concurrency 1 with two workers playing at once: never two requests in flight (a share
    per worker would give each its own slot)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    args = ["--agents", "proagent", "--llm", DOUBLE + "counting_model", "--api-base", str(folder)]
    args += ["--seats", "0,1", "--episodes", "2", "--concurrency", "4", "--llm-concurrency", "1"]
    code, run = eval_run(tmp_path / "runs", *args, "--executor", "ray")
    assert code == 0 and len(read_records(run / "episodes.jsonl")) == 4
    counts = [int(n) for n in (folder / "counts").read_text().split()]
    assert len(counts) >= 8 and max(counts) == 1


def test_two_runs_against_one_endpoint_share_its_cap_on_the_cluster(ray_session, tmp_path):
    """Two runs play at the same time on the cluster, each asking --llm-concurrency 1 of the same
    endpoint. The test holds the endpoint's one slot until both runs wait on that endpoint's actor
    (so they joined the same cap and play at the same time), then lets them go: never two
    requests in flight to the endpoint (a cap per run would allow one each)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    spec = {"llm": DOUBLE + "counting_model", "api_base": str(folder)}
    config = EvalConfig.model_validate({
        "agents": [spec], "partners": ["greedy"], "layouts": ["cramped_room"], "seats": [0], "episodes": 2,
        "horizon": 20, "concurrency": 1, "llm_concurrency": 1, "cache": False,
    })  # fmt: skip
    world = World()
    executors = [open_executor("ray", None, world) for _ in range(2)]
    handles = [start_run(config, world, "test", tmp_path / f"runs{i}", None) for i in range(2)]
    slots = endpoint_slots((spec["llm"], spec["api_base"]))
    seen: list[dict[str, int]] = []

    async def both() -> list[EvalOutcome]:
        await slots.join.remote("test", 1)
        await slots.register.remote("test/0", "g")
        assert await slots.acquire.remote("test", 1, "test/0", "g", "held-by-the-test") == ""
        runs = asyncio.gather(*(play_run(h, world, "off", None, None, e) for h, e in zip(handles, executors, strict=True)))
        # workers import the project on start: on 2 busy cores both runs may take minutes to queue
        holding, deadline = True, time.monotonic() + 300
        while not runs.done():
            if holding:  # the test's own run keeps its lease like a driver (else it is dropped after LEASE_S)
                slots.renew.remote("test")
            seen.append(await slots.state.remote())
            if holding and (seen[-1]["runs"] == 3 and seen[-1]["waiting"] == 2 or time.monotonic() > deadline):
                slots.leave.remote("test")
                holding = False
            await asyncio.sleep(0.02)
        return await runs

    try:
        outcomes = asyncio.run(both())
    finally:
        for executor in executors:
            assert executor is not None
            executor.close()
    assert any(s["runs"] == 3 and s["waiting"] == 2 for s in seen), seen[:5]  # both runs queued on one cap
    assert [len(o.records) for o in outcomes] == [2, 2] and not any(o.failures for o in outcomes)
    counts = [int(n) for n in (folder / "counts").read_text().split()]
    assert len(counts) >= 8 and max(counts) == 1
    deadline = time.monotonic() + 30  # each run leaves without waiting for the actor to hear it
    while ray.get(slots.state.remote())["runs"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray.get(slots.state.remote()) == {"capacity": 0, "held": 0, "waiting": 0, "runs": 0}  # both left


def test_a_run_held_below_its_cap_by_another_run_says_so(ray_session, tmp_path, caplog):
    """Another run on the cluster asked for 2 requests in flight to the endpoint; a run asking 8
    joins at 2 and logs one warning naming the model and both caps."""
    spec = {"llm": DOUBLE + "counting_model", "api_base": str(tmp_path)}
    config = EvalConfig.model_validate({"agents": [spec], "partners": ["greedy"], "layouts": ["cramped_room"], "llm_concurrency": 8})
    slots = endpoint_slots((spec["llm"], spec["api_base"]))
    ray.get(slots.join.remote("stricter", 2))
    executor = RayExecutor(None, World())
    try:
        with caplog.at_level("WARNING", logger="proagent.eval.ray_executor"):
            asyncio.run(executor._join_request_caps(config))
        assert ray.get(slots.state.remote())["capacity"] == 2
    finally:
        executor.end_grid()
        ray.get(slots.leave.remote("stricter"))
    (warning,) = [r.getMessage() for r in caplog.records if "requests in flight" in r.getMessage()]
    assert warning == f"{DOUBLE}counting_model: 2 requests in flight at most, not 8: another run on this cluster asked for 2"


def test_the_workers_start_before_the_first_grid_and_play_every_grid_of_the_command(ray_session, tmp_path):
    """One executor, two grids played one after the other (as a paper table plays its grids): the
    workers started up front play both, and no other process does."""
    folder = tmp_path / "shared"
    folder.mkdir()
    world = World()
    executor = open_executor("ray", None, world)
    assert executor is not None
    base = {"agents": [{"llm": DOUBLE + "pid_model", "api_base": str(folder)}],
            "partners": ["greedy"], "seats": [0, 1], "episodes": 2, "horizon": 5, "cache": False}  # fmt: skip
    grids = [EvalConfig.model_validate(base | {"name": name, "layouts": [layout]})
             for name, layout in (("first", "cramped_room"), ("second", "asymmetric_advantages"))]  # fmt: skip
    try:
        executor.start_workers_for(grids)
        ready = ray.get([actor.ready.remote() for actor in executor._actors], timeout=120)
        assert ready == [True, True]  # up before any grid was played
        pids = []
        for config in grids:
            handle = start_run(config, world, "test", tmp_path / "runs", None)
            outcome = asyncio.run(play_run(handle, world, "off", None, None, executor))
            assert len(outcome.records) == 4 and not outcome.failures
            pids.append(set((folder / "pids").read_text().split()))
            (folder / "pids").unlink()
    finally:
        executor.close()
    assert len(pids[0]) == 2 and pids[1] == pids[0]  # both workers played, the same two for both grids
    assert str(os.getpid()) not in pids[0]


def test_the_progress_view_moves_while_the_episodes_play_on_the_workers(ray_session, tmp_path):
    """The driver counts steps, calls and tokens of the episodes still playing on the workers (as a
    local run counts its own), not only when their records come back; and nothing twice."""
    config = EvalConfig.model_validate({
        "agents": [{"llm": DOUBLE + "slow_model"}], "partners": ["greedy"], "layouts": ["cramped_room"],
        "seats": [0], "episodes": 2, "horizon": 60, "cache": False,
    })  # fmt: skip
    world = World()
    executor = open_executor("ray", None, world)
    assert executor is not None
    handle = start_run(config, world, "test", tmp_path / "runs", None)
    evaluator = Evaluator(config, handle.resolved.domain, handle.resolved.envs, world, handle.folder, executor)
    seen: list[tuple[int, int, int]] = []

    async def run_and_watch() -> EvalOutcome:
        task = asyncio.create_task(evaluator.run(plan_jobs(config, ["cramped_room"])))
        while not task.done():
            now = evaluator.snapshot()
            seen.append((now.episodes_done, now.steps_done, now.llm_calls))
            await asyncio.sleep(0.1)
        return await task

    try:
        outcome = asyncio.run(run_and_watch())
    finally:
        executor.close()
    assert len(outcome.records) == 2
    assert any(done == 0 and steps > 0 and calls > 0 for done, steps, calls in seen), seen[-5:]
    final = evaluator.snapshot()
    assert final.steps_done == sum(r.steps for r in outcome.records) == 120
    assert final.llm_calls == sum(r.team_llm_calls for r in outcome.records)
    assert max(steps for _, steps, _ in seen) <= final.steps_done


def test_a_node_that_cannot_import_the_project_is_named(ray_session):
    def broken(names: list[str]) -> tuple[str, list[str]]:
        raise ModuleNotFoundError("No module named 'proagent'")

    (problem,), _ = check_nodes(broken)
    node = ray.nodes()[0]["NodeManagerAddress"]
    assert node in problem and "cannot import proagent" in problem and "No module named 'proagent'" in problem
    assert check_nodes() == ([], [])  # this machine's node can, and its workers have the key


def test_a_node_that_cannot_load_the_model_is_named_and_the_run_stops(ray_session, tmp_path, capsys):
    args = ["--agents", "proagent", "--llm", DOUBLE + "head_only_model", "--api-base", str(os.getpid())]
    code, run = eval_run(tmp_path, *args, "--seats", "0", "--episodes", "2", "--executor", "ray")
    out, err = capsys.readouterr()
    node = ray.nodes()[0]["NodeManagerAddress"]
    (line,) = [line for line in (out + err).splitlines() if line.startswith("LLM configuration error: ")]
    assert code != 0 and f"({node}) cannot set up the run" in line and "cannot load the model" in line, line
    assert not (run / "episodes.jsonl").exists() or read_records(run / "episodes.jsonl") == []


def test_a_node_without_a_credential_this_shell_sets_is_named_without_its_value(ray_session, monkeypatch):
    monkeypatch.setenv("PROAGENT_RAYTEST_OTHER_API_KEY", "sk-only-here-0123456789")  # set after the runtime started
    problems, (warning,) = check_nodes()
    assert problems == [] and "lack PROAGENT_RAYTEST_OTHER_API_KEY" in warning and "sk-only-here" not in warning


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--ray-address", "127.0.0.1:6379"], "--ray-address needs --executor ray"),
        (["--executor", "ray", "--ray-address", "not an address"], "give a running head's host:port"),
        (["--executor", "ray", "--ray-address", "127.0.0.1:1"], "no Ray head answers there"),
        (["--executor", "ray"], 'pip install "ray>=2.9"'),  # with Ray hidden below
    ],
)
def test_bad_executor_flags_are_one_line_and_no_run_folder(flags, says, tmp_path, monkeypatch, capsys):
    if says.startswith("pip"):
        monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if it were not installed
    code = main(["eval", "--agents", "greedy", *GRID, *flags, "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and says in err and err.count("\n") == 1 and err.startswith("error: ")
    assert list(tmp_path.iterdir()) == []


def test_a_paper_table_plays_its_grid_on_ray_with_the_local_numbers(ray_session, tmp_path):
    """`proagent reproduce` table targets take the executor too: the interdependence table (no LLM:
    greedy with itself) written from a Ray run has the numbers of a local run's page."""
    pages = {}
    for executor in ("local", "ray"):
        out, runs = tmp_path / executor / "page", tmp_path / executor / "runs"
        argv = ["reproduce", "interdependence-table1", "--set", "partners=greedy", "--set", "seats=0"]
        argv += ["--horizon", "10", "--episodes", "2", "--out", str(out), "--runs-dir", str(runs)]
        assert main([*argv, "--executor", executor, "--progress", "off"]) == 0
        (table,) = runs.iterdir()
        (run,) = (p for p in table.iterdir() if p.is_dir())
        pages[executor] = out.with_suffix(".md").read_text().replace(run.name, "RUN").replace(f"--executor {executor}", "")
        pages[executor] = pages[executor].replace(str(tmp_path / executor), "TMP")
    assert pages["ray"] == pages["local"]


def test_a_table_target_refuses_a_bad_executor_flag_before_any_run(tmp_path, capsys):
    argv = ["reproduce", "interdependence-table1", "--ray-address", "127.0.0.1:6379", "--runs-dir", str(tmp_path)]
    code = main([*argv, "--out", str(tmp_path / "page")])
    err = capsys.readouterr().err
    assert code == 2 and "--ray-address needs --executor ray" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_command_starts_and_stops_its_own_local_runtime(tmp_path):
    """The default path, outside this module's runtime: `--executor ray` alone starts Ray here
    (a process of its own), plays the grid and shuts Ray down."""
    command = "import sys; from proagent.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ["eval", "--agents", "greedy,stay", *GRID, "--episodes", "2", "--executor", "ray"]
    args += ["--runs-dir", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **WORKER_ENV}
    run_command = [sys.executable, "-c", command, *args]
    done = subprocess.run(run_command, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = tmp_path.iterdir()
    assert len(read_records(run / "episodes.jsonl")) == 8


def test_the_lease_is_renewed_while_a_restarting_worker_owes_its_report(monkeypatch):
    """A worker whose process is being replaced answers its progress call only when the new process
    is up (a minute or more on a busy machine). The driver keeps renewing its run's lease on the
    request caps meanwhile; waiting for that report stopped the renewals, the lease ran out and the
    run's waiting requests were refused ("its run has left this endpoint")."""
    from proagent.eval import ray_executor

    monkeypatch.setattr(ray_executor, "PROGRESS_EVERY_S", 0.01)
    monkeypatch.setattr(ray_executor, "REPORT_WAIT_S", 0.05)
    renewed: list[str] = []

    class RequestCap:  # an endpoint's request-cap actor: renew.remote(run)
        class renew:  # the shape of a Ray actor method
            @staticmethod
            def remote(run: str) -> None:
                renewed.append(run)

    class RestartingWorker:  # its progress report never comes while the test watches
        class progress:
            @staticmethod
            def remote() -> asyncio.Future:
                return asyncio.get_running_loop().create_future()

    executor = RayExecutor(None, World())
    executor.request_slots = {("model", None): RequestCap}
    executor._run = "the-run"

    async def poll_for_a_second() -> None:
        task = asyncio.create_task(executor._poll([RestartingWorker]))
        await asyncio.sleep(1.0)
        task.cancel()

    asyncio.run(poll_for_a_second())
    assert len(renewed) >= 5 and set(renewed) == {"the-run"}


def test_the_suites_ray_workers_run_at_the_suites_priority(ray_session):
    """Ray's default worker niceness (15) starves its actors beside the suite's other processes (the
    root conftest.py sets it to 0): a worker's niceness is the test process's own."""
    niceness = ray.remote(num_cpus=0)(lambda: os.nice(0))
    assert ray.get(niceness.remote(), timeout=120) == os.nice(0)


def test_a_local_cluster_the_product_starts_runs_its_workers_at_its_own_priority():
    """Outside the suite (no ``RAY_worker_niceness`` in the environment) `connect` starting a local
    cluster sets Ray's worker niceness to 0, so a local `--executor ray` run's episodes do not starve
    at Ray's default 15 beside other processes; a fresh process, since this one already holds Ray."""
    script = (
        "import os, ray\n"
        "from proagent.cluster import connect\n"
        "connect(None)\n"
        "print(ray.get(ray.remote(num_cpus=0)(lambda: os.nice(0)).remote(), timeout=120), os.nice(0))\n"
        "ray.shutdown()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "RAY_worker_niceness"}
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    worker, driver = done.stdout.split()[-2:]
    assert worker == driver
