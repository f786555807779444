"""The embedded model's state cache: one saved llama.cpp state per conversation in flight.

Why: one ``Llama`` object keeps one KV cache, the previous call's. When an evaluation has several
episodes in flight, or a ProAgent pair's two seats (different system prompts) take turns, the
calls of different conversations alternate and each re-evaluates its whole prompt
(``benchmarks/embedded_interleave.py``: 3.5x the time of the same calls made one conversation
after another). llama-cpp-python's ``LlamaRAMCache`` already saves a state after each call and
restores the longest cached prefix before the next; this module only changes two things:

* **one entry per conversation**: a new state supersedes the cached states it continues (those
  sharing more than half of their tokens with it: the same system prompt and most of the history),
  so the cache holds the latest state of each conversation rather than every call's;
* **honest size**: an entry holds the KV state *and* a copy of the logits buffer
  (``n_batch x n_vocab`` floats, 96 MB for SmolLM2 at n_batch 512), which ``LlamaRAMCache``
  leaves out of its capacity; here the capacity counts both.

Imported lazily (it imports ``llama_cpp``), like the rest of the embedded backend.
"""

from __future__ import annotations

from collections.abc import Sequence

from llama_cpp import Llama, LlamaRAMCache, LlamaState

SUPERSEDE_SHARE = 0.5  # a cached state whose tokens the new one continues beyond this share is the same conversation


def entry_bytes(state: LlamaState) -> int:
    """What a saved state really occupies: the KV state and the logits copy."""
    return int(state.llama_state_size) + int(state.scores.nbytes)


class ConversationStateCache(LlamaRAMCache):
    """``LlamaRAMCache`` keeping the latest state of each conversation, sized by what it holds."""

    @property
    def cache_size(self) -> int:
        return sum(entry_bytes(state) for state in self.cache_state.values())

    def __setitem__(self, key: Sequence[int], value: LlamaState) -> None:
        new = tuple(key)
        for old in list(self.cache_state):
            if Llama.longest_token_prefix(old, new) > SUPERSEDE_SHARE * len(old):
                del self.cache_state[old]
        super().__setitem__(new, value)
