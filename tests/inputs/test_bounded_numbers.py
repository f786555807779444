"""The one reader of numbers from untrusted text: ASCII digits only, a stated range, finite floats,
and one short line naming the field and the range for anything else (never int()'s own error)."""

from __future__ import annotations

import math

import pytest

from proagent.bounded import NumberError, bounded_float, bounded_int, read_float, read_int

NINES = "9" * 5000


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("7", 7), (" 12 ", 12), ("+3", 3), ("-2", -2), ("007", 7)])
def test_read_int_takes_ascii_whole_numbers_in_range(text: str, value: int) -> None:
    assert read_int(text, "seed", -5, 100) == value


@pytest.mark.parametrize("text", ["³", "٣", "²1", "1_000", "1.0", "1e3", "", " ", "0x10", "nan", "٣٣", "1 2"])
def test_read_int_refuses_other_scripts_and_forms_in_one_line(text: str) -> None:
    with pytest.raises(NumberError) as info:
        read_int(text, "--seed", 0, 10)
    message = str(info.value)
    assert "\n" not in message and message.startswith("--seed: ") and "between 0 and 10" in message


def test_five_thousand_digits_are_a_short_range_error_not_pythons_digit_limit() -> None:
    with pytest.raises(NumberError) as info:
        read_int(NINES, "observe(c): the argument", 0, 8)
    message = str(info.value)
    assert "between 0 and 8" in message and "5,000 characters" in message and len(message) < 200


def test_read_int_refuses_values_out_of_range_naming_the_range() -> None:
    with pytest.raises(NumberError, match=r"^--leader: must be between 0 and 3, got '99'$"):
        read_int("99", "--leader", 0, 3)


@pytest.mark.parametrize(("text", "value"), [("3", 3.0), ("-0.5", -0.5), ("1e-3", 1e-3), (".5", 0.5), ("2.", 2.0)])
def test_read_float_takes_finite_ascii_numbers(text: str, value: float) -> None:
    assert read_float(text, "lr", -1, 10) == value


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e999", "1_0", "١.٥", "0x1p3", NINES, "1e12"])
def test_read_float_refuses_nan_infinities_other_scripts_and_out_of_range(text: str) -> None:
    with pytest.raises(NumberError) as info:
        read_float(text, "lr", 0, 1e6)
    assert "\n" not in str(info.value) and str(info.value).startswith("lr: ")


def test_above_low_excludes_the_low_end() -> None:
    assert read_float("1e-9", "lr", 0, math.inf, above_low=True) == 1e-9
    with pytest.raises(NumberError, match="above 0"):
        read_float("0", "lr", 0, math.inf, above_low=True)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, True, "1", None, 2e9])
def test_bounded_float_refuses_non_finite_booleans_text_and_out_of_range(value: object) -> None:
    with pytest.raises(NumberError, match="^step_cost: "):
        bounded_float(value, "step_cost", -1e6, 1e6)


def test_bounded_int_refuses_booleans_floats_and_huge_ints() -> None:
    assert bounded_int(5, "horizon", 1, 10) == 5
    for value in (True, 5.0, 10**5000):
        with pytest.raises(NumberError, match="^horizon: "):
            bounded_int(value, "horizon", 1, 10)
