"""The one reading point for TOML and JSON files that may come from anyone: a study folder from
another lab, a questionnaire, an evaluation config, a sweep file, a kitchen, a scenario.

A file is read whole only below a size bound, must be UTF-8, and may nest its brackets only so
deep (Python's parsers recurse once per level: ten kilobytes of ``[`` end in a RecursionError);
every failure (missing, too large, not UTF-8, too deep, not TOML or JSON) is an
`UntrustedFileError` whose message is one line naming the file. The module imports nothing of the
project, so the worlds (``envs``) read their files through it too.
"""

from __future__ import annotations

import json
import re
import tomllib
from itertools import accumulate
from pathlib import Path
from typing import Any

MAX_BYTES = 4 * 2**20  # far above any config, kitchen or study file the project writes
MAX_DEPTH = 32  # brackets and braces inside each other; the project's files nest 4 deep at most
# What may hold a bracket without nesting anything: TOML's and JSON's strings, TOML's comments.
_NOT_NESTING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')
_BRACKET = re.compile(r"[\[\]{}]")


class UntrustedFileError(ValueError):
    """A file that cannot be read as what it should be: one line naming the file and why."""


def nesting_depth(text: str) -> int:
    """How deep ``text``'s brackets and braces nest, strings and comments left out."""
    steps = (1 if b in "[{" else -1 for b in _BRACKET.findall(_NOT_NESTING.sub("", text)))
    return max(accumulate(steps, initial=0))


def read_text(path: Path, what: str = "file", max_bytes: int = MAX_BYTES) -> str:
    """``path``'s text, if it exists, is at most ``max_bytes`` long and is UTF-8."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise UntrustedFileError(f"{what} {path}: not found") from None
    except IsADirectoryError:
        raise UntrustedFileError(f"{what} {path}: is a folder, not a file") from None
    except OSError as exc:
        raise UntrustedFileError(f"{what} {path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > max_bytes:
        raise UntrustedFileError(f"{what} {path}: larger than {max_bytes:,} bytes; is it the right file?")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UntrustedFileError(f"{what} {path}: not UTF-8 text (byte {exc.start:,}); save it as UTF-8") from None


def loads_toml(text: str, where: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``text`` as TOML; ``where`` names it in the error line (``sweep file runs.toml``)."""
    _check_depth(text, where, max_depth)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UntrustedFileError(f"{where}: not valid TOML: {_one_line(exc)}") from None
    except RecursionError:
        raise UntrustedFileError(f"{where}: nested too deep to read") from None


def loads_json(text: str, where: str, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` as JSON; ``where`` names it in the error line."""
    _check_depth(text, where, max_depth)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UntrustedFileError(f"{where}: not valid JSON: {_one_line(exc)}") from None
    except RecursionError:
        raise UntrustedFileError(f"{where}: nested too deep to read") from None


def read_toml(path: Path, what: str = "file", max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """The TOML file at ``path``, read within the bounds; ``what`` is its kind (``study file``)."""
    return loads_toml(read_text(path, what, max_bytes), f"{what} {path}", max_depth)


def read_json(path: Path, what: str = "file", max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON file at ``path``, read within the bounds; ``what`` is its kind."""
    return loads_json(read_text(path, what, max_bytes), f"{what} {path}", max_depth)


def _check_depth(text: str, where: str, max_depth: int) -> None:
    depth = nesting_depth(text)
    if depth > max_depth:
        raise UntrustedFileError(f"{where}: brackets nested {depth:,} deep, more than the {max_depth} allowed")


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())
