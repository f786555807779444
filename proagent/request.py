"""What every front end's typed request shares: frozen, no unknown field, and a bad value refused in
one line that names the flag.

A front end (`play`, `human`, `eval`, `train`) reads its flags once into its request and passes that
down, never argparse's namespace: every field the code below reads is declared with its type and
range, and a caller that is not the command line (a study, a notebook, a sweep) builds the same
request and gets the same checks. The command line has checked each value already (argparse
types); a request built in Python is checked here, with the same one-line answer.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationError


class RequestError(ValueError):
    """A request that cannot be made, as the one line a user needs (``--episodes: ...``)."""


class FrontEndRequest(BaseModel):
    """The base of the front ends' requests. ``FLAGS`` names a field's flag where it is not
    ``--`` and the field's name with dashes (``wall_clock_s`` is ``--wall-clock``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    FLAGS: ClassVar[dict[str, str]] = {}

    @classmethod
    def checked(cls, **fields: Any) -> Self:
        """The request of ``fields``; a RequestError of one line for an unknown field or a bad value."""
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            raise RequestError(cls.problem(exc)) from None

    @classmethod
    def problem(cls, exc: ValidationError) -> str:
        """``exc``'s first error as one line naming the flag, the value and what it must be."""
        first = exc.errors()[0]
        # a list item's index is no flag: the field is the last name in the location
        field = next((str(part) for part in reversed(first["loc"]) if not isinstance(part, int)), "")
        flag = cls.FLAGS.get(field, "--" + field.replace("_", "-"))
        if first["type"] == "extra_forbidden":
            return f"{cls.__name__} has no {field!r}; it takes {', '.join(cls.model_fields)}"
        message = first["msg"][:1].lower() + first["msg"][1:]
        return f"{flag} {_shown(first.get('input'))}: {message}"


def _shown(value: object) -> str:
    """A value as one short line (a request may carry text from anywhere)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
