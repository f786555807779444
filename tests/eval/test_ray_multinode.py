"""`--executor ray` on a cluster of several nodes: Ray's own multi-node test cluster on this machine
(a head with no CPU, so that nothing plays there, and two worker nodes of one CPU each, each its
own raylet and object store), joined with `--ray-address` as a real cluster is. The episodes play
on both worker nodes and their records equal a local run's. Slow: three raylets start (about 20 s
on 2 cores)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.eval.records import read_records

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

DOUBLE = "python:tests.support.priced:pid_model"
GRID = ["--agents", "proagent", "--partners", "greedy", "--layouts", "cramped_room", "--seats", "0,1"]
GRID += ["--episodes", "2", "--horizon", "5", "--no-cache", "--progress", "off"]
TIMED = frozenset({"wall_time_s", "llm_latency_s", "overhead_ms_median", "attempt"})


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    nodes = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        for _ in range(2):
            nodes.add_node(num_cpus=1)
        nodes.wait_for_nodes()
        yield nodes.address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        nodes.shutdown()


def untimed(path: Path) -> dict[str, object]:
    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMED}
        return [strip(v) for v in value] if isinstance(value, list) else value

    return {r.key.id: strip(r.model_dump()) for r in read_records(path / "episodes.jsonl")}


@pytest.mark.slow
def test_a_run_on_two_worker_nodes_plays_on_both_and_equals_a_local_run(cluster, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    args = [*GRID, "--llm", DOUBLE, "--api-base", str(shared), "--concurrency", "4"]
    assert main(["eval", *args, "--runs-dir", str(tmp_path / "local")]) == 0
    (local,) = (tmp_path / "local").iterdir()
    (shared / "pids").unlink()
    remote_args = [*args, "--executor", "ray", "--ray-address", cluster, "--runs-dir", str(tmp_path / "ray")]
    assert main(["eval", *remote_args]) == 0
    (remote,) = (tmp_path / "ray").iterdir()
    assert untimed(remote) == untimed(local) and len(untimed(remote)) == 4
    pids = set((shared / "pids").read_text().split())
    assert len(pids) == 2 and str(os.getpid()) not in pids  # one worker on each node, none in this process
