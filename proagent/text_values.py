"""Settings given as ``KEY=VALUE`` text (``--set``, ``--algo-set``, ``--network-set``, ``--env``, a
sweep's overrides) read field by field against the pydantic model they set, before anything runs.

Each key must name a field of the model; a number is read by the one bounded reader
(`proagent.bounded`) within the field's own range (``lr`` from 0 to 1, ``gamma`` in (0, 1]): ASCII
digits, finite, one line naming ``--set lr`` and the range otherwise. A list or table is JSON
(within the untrusted-file bounds); ``none`` is None where the field allows it; anything else is
left to the model's own validation.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any

import annotated_types as at
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from proagent.bounded import read_float, read_int
from proagent.untrusted import loads_json

INT_LIMIT = 2**63 - 1  # a field without a bound of its own: still a number that fits an int64


def typed_values(model: type[BaseModel], pairs: dict[str, str], flag: str) -> dict[str, Any]:
    """``pairs`` as ``model``'s field values; a ValueError of one line naming ``flag KEY`` for a key
    the model lacks or a value its field cannot take."""
    fields = model.model_fields
    out: dict[str, Any] = {}
    for key, text in pairs.items():
        info = fields.get(key)
        if info is None:
            raise ValueError(f"{flag} {key}: no such setting (settings: {', '.join(fields)})")
        out[key] = _value(text, info, f"{flag} {key}")
    return out


def field_value(model: type[BaseModel], key: str, text: str, field: str) -> Any:
    """``text`` as the value of ``model``'s field ``key`` (read as `typed_values` reads it), with
    ``field`` naming it in the error line: for a setting its caller addresses by a path of its own
    (``--env resources.iron.quorum``, a field of a nested model)."""
    return _value(text, model.model_fields[key], field)


def _value(text: str, info: FieldInfo, field: str) -> Any:
    kinds = _kinds(info.annotation)
    if type(None) in kinds and text.strip().lower() == "none":
        return None
    if text.lstrip()[:1] in ("[", "{"):
        return loads_json(text, field)
    if bool in kinds or not ({int, float} & kinds):
        return text  # a name, a switch: the model's validation reads it
    low, high, above_low = _bounds(info)
    if int in kinds:
        whole_low = -INT_LIMIT if math.isinf(low) else math.floor(low) + (1 if above_low else 0)
        return read_int(text, field, whole_low, INT_LIMIT if math.isinf(high) else math.floor(high))
    return read_float(text, field, low, high, above_low=above_low)


def _kinds(annotation: Any) -> set[Any]:
    """The types a field's annotation admits (``int | None`` -> {int, NoneType})."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return set(typing.get_args(annotation))
    return {annotation}


def _bounds(info: FieldInfo) -> tuple[float, float, bool]:
    """(low, high, low excluded) from a field's ``ge``/``gt``/``le``/``lt``."""
    low, high, above_low = -math.inf, math.inf, False
    for rule in info.metadata:
        if isinstance(rule, at.Ge):
            low = float(rule.ge)  # type: ignore[arg-type]
        elif isinstance(rule, at.Gt):
            low, above_low = float(rule.gt), True  # type: ignore[arg-type]
        elif isinstance(rule, at.Le):
            high = float(rule.le)  # type: ignore[arg-type]
        elif isinstance(rule, at.Lt):
            high = math.nextafter(float(rule.lt), -math.inf)  # type: ignore[arg-type]
    return low, high, above_low


def validation_line(flag: str, exc: ValidationError) -> str:
    """A config's first validation error as one line naming ``flag`` and the field."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or exc.title
    return f"{flag} {where}: {first['msg']}"
