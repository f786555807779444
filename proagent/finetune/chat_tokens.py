"""The tokens a (prompt, answer) pair becomes, taken from llama.cpp itself.

Why llama.cpp and not a Python tokenizer: the student is trained on token ids, and at inference
llama.cpp builds the ids from the GGUF's own vocabulary and chat template
(``create_chat_completion``: the template rendered, then ``tokenize(..., special=True)``). Doing
exactly that here means training sees the very tokens inference will see.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proagent.finetune.llama_cpp_runtime import load_llama
from proagent.llm.types import Message

__all__ = ["ChatTokenizer"]

GGUF_TEMPLATE_FORMAT = "chat_template.default"  # llama-cpp-python's name for "the GGUF's own template"


class ChatTokenizer:
    """Prompt and answer token ids for one GGUF, from its vocabulary and chat template."""

    def __init__(self, model_path: Path) -> None:
        from llama_cpp import llama_chat_format

        self._llm: Any = load_llama(model_path, n_ctx=64, logits_all=False, vocab_only=True)
        if self._llm.chat_format != GGUF_TEMPLATE_FORMAT:
            raise ValueError(
                f"llama.cpp formats this model's chats as {self._llm.chat_format!r}, not with the GGUF's template; "
                "training would not see the tokens inference sees"
            )
        self.eos_token_id = int(self._llm.token_eos())
        bos = int(self._llm.token_bos())
        self._formatter = llama_chat_format.Jinja2ChatFormatter(
            template=self._llm.metadata["tokenizer.chat_template"],
            eos_token=self._text(self.eos_token_id),
            bos_token=self._text(bos) if bos >= 0 else "",
            stop_token_ids=[self.eos_token_id],
        )

    def _text(self, token: int) -> str:
        return self._llm.detokenize([token], special=True).decode("utf-8", errors="replace")

    def prompt(self, messages: Sequence[Message]) -> list[int]:
        """The ids llama.cpp evaluates before generating a reply to ``messages`` (generation prompt included)."""
        result = self._formatter(messages=[m.model_dump() for m in messages])
        return list(self._llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True))

    def answer(self, text: str) -> list[int]:
        """The ids of a reply, then the end-of-turn token the model must learn to stop with."""
        return [*self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False), self.eos_token_id]

    def text(self, tokens: Sequence[int]) -> str:
        return self._llm.detokenize(list(tokens), special=True).decode("utf-8", errors="replace")

    def byte_ends(self, tokens: Sequence[int]) -> list[int]:
        """For each token, the byte length of the text up to and including it (what the ids spell
        without special tokens): where each token ends in the answer's bytes."""
        ends, total = [], 0
        for token in tokens:
            total += len(self._llm.detokenize([token], special=False))
            ends.append(total)
        return ends
