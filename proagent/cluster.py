"""Joining a Ray cluster, for any command that runs on one (an evaluation's episodes, a training
sweep's runs): the flag checks, the unreachable-head check, ``ray.init`` and the per-node check.

Why one module: what makes a cluster usable is the same for every command, whatever it runs there.
The head is tried with one TCP connection first, because ``ray.init`` retries an unreachable head
for minutes. Ray's usage statistics are off (no reporting home from a research run) and the
dashboard is not started. Credentials reach a node's workers only through the environment they
inherit from that node's ``ray start`` (or from this process, for a local cluster it starts): the
node check names, by variable name only, a credential this shell sets and a node lacks.

Ray is imported only inside the functions that need it: a command that runs locally needs no Ray.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Mapping

import proagent

RAY_REQUIREMENT = "ray>=2.9"
# Endings of the names of environment variables that carry credentials or endpoints the LLM
# backends read: each node's workers should see the ones this shell sets (names compared, never values).
CREDENTIAL_SUFFIXES = ("_API_KEY", "_API_BASE", "_API_VERSION", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY")
# A head node's address as `ray start --head` prints it, a Ray client address, or auto.
ADDRESS = re.compile(r"^(auto|local|(ray://)?[A-Za-z0-9.\-]+:[0-9]{1,5})$")


class ClusterError(Exception):
    """The cluster cannot be used: one line that says why and what to do."""


def flags_problem(executor: str, address: str | None, local_means: str) -> str | None:
    """Why ``--executor``/``--ray-address`` cannot run, in one actionable line; None when they can.
    Checked before anything is written, so a typo costs no folder. ``local_means`` completes the
    sentence "the local executor ..." for the command at hand."""
    if address is not None and executor != "ray":
        return f"--ray-address needs --executor ray (the local executor {local_means})"
    if executor != "ray":
        return None
    try:
        import ray  # noqa: F401 - only whether it imports
    except ImportError:
        return f'--executor ray needs Ray here and on every node: pip install "{RAY_REQUIREMENT}" (or run without it)'
    if address is not None and not ADDRESS.match(address):
        return f"--ray-address {address!r}: give a running head's host:port (as `ray start --head` prints), or auto"
    return None


def head_problem(address: str | None, timeout_s: float = 5.0) -> str | None:
    """Why the head at ``host:port`` cannot be reached, or None (also for auto and ray://)."""
    if address is None or "://" in address or ":" not in address:
        return None
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return f"--ray-address {address}: no Ray head answers there ({reason}); run `ray start --head` there or fix it"


def connect(address: str | None) -> bool:
    """Join the cluster at ``address`` (None: start a local one) unless this process already did;
    True when this call started the Ray session, so the caller knows to end it. ClusterError if not."""
    import ray

    unreachable = head_problem(address)
    if unreachable is not None:
        raise ClusterError(unreachable)
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address is None:
        # Ray starts its workers at niceness 15 (its default, to keep a driver responsive); the
        # episodes run in those workers while this driver mostly waits, so on a busy machine they
        # would starve beside any other process. A local cluster's workers run at our priority.
        os.environ.setdefault("RAY_worker_niceness", "0")
    try:
        ray.init(address=address or "local", include_dashboard=False, log_to_driver=True, logging_level="WARNING")
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ClusterError(f"cannot start Ray on {address or 'a local cluster'}: {first_line(exc)}") from None
    return True


def credential_names(environ: Mapping[str, str]) -> list[str]:
    """The names of the credentials and API endpoints set in ``environ``, by their endings."""
    return sorted(name for name in environ if name.upper().endswith(CREDENTIAL_SUFFIXES))


def node_check(names: list[str]) -> tuple[str, list[str]]:
    """Runs on each node (unpickling it there imports this project, which is the check): the
    project's version there, and which of ``names`` its workers' environment lacks."""
    return proagent.__version__, [name for name in names if not os.environ.get(name)]


NodeCheck = Callable[[list[str]], tuple[str, list[str]]]


def check_nodes(probe: NodeCheck = node_check) -> tuple[list[str], list[str]]:
    """Problems (a node that cannot import this project, or runs another version of it) and
    warnings (a node whose workers lack a credential this shell sets), one line per node each."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [node for node in ray.nodes() if node.get("Alive")]
    names = credential_names(os.environ)
    remote = ray.remote(num_cpus=0, max_retries=0)(probe)
    calls = [
        remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote(names)
        for node in nodes
    ]
    problems: list[str] = []
    warnings: list[str] = []
    for node, call in zip(nodes, calls, strict=True):
        name = f"node {node.get('NodeManagerHostname', '?')} ({node.get('NodeManagerAddress', '?')})"
        try:
            version, lacking = ray.get(call)
        except ray.exceptions.RayError as exc:
            problems.append(
                f"{name} cannot import proagent: {first_line(exc)}; install the project there (pip install -e .)"
            )
            continue
        if version != proagent.__version__:
            problems.append(
                f"{name} runs proagent {version}, this machine {proagent.__version__}; install one version everywhere"
            )
        if lacking:
            warnings.append(
                f"{name}: its workers lack {', '.join(lacking)}, set here; export them before `ray start` on that node"
            )
    return problems, warnings


def this_node() -> str:
    """This process's node, named as the node check names nodes: ``node HOST (ADDRESS)``."""
    import ray

    return f"node {socket.gethostname()} ({ray.util.get_node_ip_address()})"


def first_line(exc: BaseException) -> str:
    """The gist of a (Ray) error, whose message may run to a remote traceback: its last non-blank
    line, which names the exception that started it."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__
