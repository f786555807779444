"""``--env`` values are read like every other number from text: ASCII digits only, in the setting's
range, finite, and a short line naming ``--env KEY`` otherwise (Overcooked's rules, Yōkai's ending)."""

from __future__ import annotations

import pytest

from proagent.domains import get_domain
from proagent.world.types import DomainInputError

NINES = "9" * 5000


@pytest.mark.parametrize(
    ("setting", "value"),
    [("cook_time", "1_0"), ("cook_time", "٣"), ("cook_time", "99999999999"), ("soup_reward", NINES),
     ("soup_reward", "nan"), ("soup_reward", "²"), ("agent_view_size", "1000")],
)  # fmt: skip
def test_overcooked_env_settings_refuse_odd_numbers_in_one_short_line(setting: str, value: str) -> None:
    settings = get_domain("overcooked").capabilities.settings
    with pytest.raises(DomainInputError) as info:
        settings.make_env_with("cramped_room", 10, {setting: value})
    message = str(info.value)
    assert message.startswith(f"--env {setting}") and "\n" not in message and len(message) < 300


def test_overcooked_env_settings_still_read_their_numbers() -> None:
    settings = get_domain("overcooked").capabilities.settings
    env = settings.make_env_with("cramped_room", 10, {"cook_time": "5", "soup_reward": "2.5", "agent_view_size": "none"})
    assert settings.describe(env)["cook_time"] == 5


@pytest.mark.parametrize("value", ["²", NINES, "٣"])
def test_yokai_end_from_turn_refuses_odd_numbers_in_one_short_line(value: str) -> None:
    settings = get_domain("yokai").capabilities.settings
    with pytest.raises(DomainInputError) as info:
        settings.make_env_with("9c_2p", 20, {"end_from_turn": value})
    assert "a whole number of turns" in str(info.value) and len(str(info.value)) < 300
