"""redact(): keys, bearer tokens and secret env values never survive."""

from __future__ import annotations

import pytest

from proagent.llm import redact
from proagent.llm.redaction import REDACTED


@pytest.mark.parametrize(
    "secret",
    [
        "sk-abcdefghijklmnopqrstuvwx",
        "sk-proj-abc_DEF-123456789012345",
        "sk-ant-api03-abcdefghijklmnop",
        "gsk_abcdefghijklmnopqrstuv",
        "hf_abcdefghijklmnopqrstuv",
        "AIzaSyA1234567890abcdefghijklmnopq",
        "AKIAABCDEFGHIJKLMNOP",
    ],
)
def test_known_key_shapes(secret: str) -> None:
    out = redact(f"Error: invalid key '{secret}' supplied")
    assert secret not in out and REDACTED in out and out.startswith("Error: invalid key")


def test_bearer_and_key_value_pairs() -> None:
    text = 'headers={"Authorization": "Bearer abc.def-ghi"}, api_key=xyz987654, x-api-key: qwerty12345'
    out = redact(text)
    for secret in ("abc.def-ghi", "xyz987654", "qwerty12345"):
        assert secret not in out


def test_env_values_of_key_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYPROVIDER_API_KEY", "opaque-value-42")
    monkeypatch.setenv("HOME_DIRECTORY", "opaque-value-43")  # not a secret-named variable
    out = redact("got opaque-value-42 and opaque-value-43")
    assert "opaque-value-42" not in out and "opaque-value-43" in out


def test_extra_secrets_and_plain_text_untouched() -> None:
    assert redact("nothing secret here: onion soup, 3 dishes") == "nothing secret here: onion soup, 3 dishes"
    assert "handed-in-key" not in redact("x handed-in-key y", extra_secrets=("handed-in-key",))
    assert redact(ValueError("sk-abcdefghijklmnop")) == REDACTED
