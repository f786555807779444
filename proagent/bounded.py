"""The one reader of numbers from untrusted text: a model's skill arguments, scenario strings,
``--set``/``--env`` values, fields of files that came from elsewhere.

Python's own readers accept more than a person means and fail in ways nobody catches: ``int()``
reads ``'٣'`` as 3, raises a plain ValueError past 4,300 digits; ``float()`` reads ``'nan'``,
``'inf'`` and ``'1_0'``; a TOML file gives ``nan`` as a float. Here a number is ASCII digits only
(a sign, a point and an exponent for floats), a few dozen characters at most, finite, and inside a
range the caller states; anything else is a `NumberError` whose message is one line naming the
field and what it may be. The module imports nothing of the project, so the worlds (``envs``) can
use it too.
"""

from __future__ import annotations

import math
import re

MAX_CHARS = 64  # longer than any number a range here can hold; the text is never parsed past it
_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?", re.ASCII)


class NumberError(ValueError):
    """A number that is not one, or is out of its range: one line, ``<field>: <problem>``."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem


def shown(text: object, limit: int = 24) -> str:
    """``text`` quoted for an error line: cut to ``limit`` characters, with its length when cut,
    so that a 5,000-digit answer makes a short line (and an int too long for ``str()`` one too)."""
    if isinstance(text, int) and text.bit_length() > 256:
        return f"a number of about {int(text.bit_length() * math.log10(2)):,} digits"
    value = str(text)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value):,} characters)"


def read_int(text: str, field: str, low: int, high: int | None) -> int:
    """The whole number ``text`` writes (ASCII digits, an optional sign, spaces around), if it lies
    in ``[low, high]`` (``high`` None: no upper end but the length of the text); a `NumberError`
    naming ``field`` and the range otherwise."""
    stripped = text.strip()
    if len(stripped) > MAX_CHARS or not _INT.fullmatch(stripped):
        raise NumberError(field, f"must be a whole number {_int_range(low, high)} (digits 0-9), got {shown(text)}")
    value = int(stripped)
    if value < low or (high is not None and value > high):
        raise NumberError(field, f"must be {_int_range(low, high).removeprefix('of ')}, got {shown(text)}")
    return value


def small_whole(text: str, limit: int = 10**9) -> int | None:
    """The whole number ``text`` is (ASCII digits only, no sign, at most ``limit``), else None: for
    names and keys that may hold a number (``episode_3``, a seat ``"1"``, ``ingredient2``), where
    ``str.isdigit()`` also accepts ``'²'`` (which ``int()`` refuses) and thousands of digits."""
    if not text or len(text) > len(str(limit)) or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= limit else None


def read_float(text: str, field: str, low: float, high: float, *, above_low: bool = False) -> float:
    """The finite number ``text`` writes (``3``, ``-0.5``, ``1e-3``: ASCII only, no ``nan``,
    ``inf`` or ``_``), if it lies in ``[low, high]`` (``(low, high]`` with ``above_low``); a
    `NumberError` naming ``field`` and the range otherwise."""
    stripped = text.strip()
    if len(stripped) > MAX_CHARS or not _FLOAT.fullmatch(stripped):
        raise NumberError(field, f"must be a number {_range(low, high, above_low)}, got {shown(text)}")
    if not _in_range(float(stripped), low, high, above_low):  # 1e999 reads as inf: out of every range
        raise NumberError(field, f"must be a finite number {_range(low, high, above_low)}, got {shown(text)}")
    return float(stripped)


def bounded_int(value: object, field: str, low: int, high: int) -> int:
    """``value`` (already a number: a TOML or JSON field) if it is a whole number in ``[low, high]``
    (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise NumberError(field, f"must be a whole number {_int_range(low, high)}, got {shown(value)}")
    if not low <= value <= high:
        raise NumberError(field, f"must be {_int_range(low, high).removeprefix('of ')}, got {shown(value)}")
    return value


def bounded_float(value: object, field: str, low: float, high: float, *, above_low: bool = False) -> float:
    """``value`` (an int or float already read) as a float, if it is finite and in ``[low, high]``
    (``(low, high]`` with ``above_low``); NaN, the infinities and ints past a float never pass."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and _in_range(value, low, high, above_low):  # type: ignore[arg-type]
        return float(value)  # type: ignore[arg-type]
    raise NumberError(field, f"must be a finite number {_range(low, high, above_low)}, got {shown(value)}")


def _in_range(value: float, low: float, high: float, above_low: bool) -> bool:
    """Finite and in range; NaN fails every comparison, and a huge int is compared, not converted."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return (low < value if above_low else low <= value) and value <= high


def _int_range(low: int, high: int | None) -> str:
    return f"of at least {low}" if high is None else f"between {low} and {high}"


def _range(low: float, high: float, above_low: bool) -> str:
    """The allowed values in words: ``from 0 to 1``, ``above 0``, ``above 0 and at most 1``."""
    if above_low:
        return f"above {low:g}" + ("" if math.isinf(high) else f" and at most {high:g}")
    if math.isinf(low):
        return "(any finite value)" if math.isinf(high) else f"at most {high:g}"
    return f"of at least {low:g}" if math.isinf(high) else f"from {low:g} to {high:g}"
