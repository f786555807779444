"""XLA's compiled programs kept on disk between `proagent` commands (JAX's persistent compilation cache).

Every command compiles its world's step and its partners' policies anew: seconds a command
(a short scripted MA-Crafter `play` took 21 s on 2 cores, half of it compiling; with the cache, a
second such command took 11 s). JAX can keep what it compiled on disk, keyed by the program, the
compile options and the jax/jaxlib versions, so a repeat loads the same executable: results are
bit for bit those of a fresh compile.

The folder is the user's cache (``$XDG_CACHE_HOME/proagent/xla`` or ``~/.cache/proagent/xla``),
one subfolder per CPU (its instruction-set flags): a home folder shared by machines of different
CPUs never hands one a program compiled for another's instructions. ``PROAGENT_COMPILE_CACHE``
names another folder, or ``off``; a ``JAX_COMPILATION_CACHE_DIR`` already set is left as it is (the
user's own choice, or the test suite's). JAX's default threshold stands: only programs that took a
second or more to compile are kept, a few hundred KB for a world.

It is set through the environment before JAX is imported (JAX reads it then), so the command's
child processes (a Ray runtime it starts, for one) share it, and a process that imported JAX
already keeps its own settings.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
from collections.abc import MutableMapping
from pathlib import Path

VARIABLE = "PROAGENT_COMPILE_CACHE"
JAX_VARIABLE = "JAX_COMPILATION_CACHE_DIR"

log = logging.getLogger(__name__)


def cpu_tag() -> str:
    """A short name for this CPU's instruction set: the flags line of /proc/cpuinfo where there is
    one, else the machine and processor names."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    flags = next((line for line in lines if line.startswith(("flags", "Features"))), None)
    described = flags or f"{platform.machine()} {platform.processor()}"
    return f"{platform.machine() or 'cpu'}-{hashlib.sha256(described.encode()).hexdigest()[:12]}"


def default_folder(environ: MutableMapping[str, str]) -> Path:
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "proagent" / "xla" / cpu_tag()


def enable_compile_cache(environ: MutableMapping[str, str] = os.environ) -> Path | None:
    """Point JAX's persistent compilation cache at the user's folder (see the module's text); the
    folder, or None where the cache is off, set by someone else, or the folder cannot be written
    (then nothing changes: JAX would warn at every program)."""
    if environ.get(JAX_VARIABLE):
        return None
    choice = environ.get(VARIABLE, "").strip()
    if choice.lower() == "off":
        return None
    folder = Path(choice).expanduser() if choice else default_folder(environ)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.debug("no compilation cache: %s", exc)
        return None
    if not os.access(folder, os.W_OK | os.X_OK):
        log.debug("no compilation cache: %s is not writable", folder)
        return None
    environ[JAX_VARIABLE] = str(folder)
    return folder
