"""OvercookedV2's recipe buttons cost points: the episode's metrics, the play line and the replay
say how many, so that "score 40" beside three soups is not a mystery."""

from __future__ import annotations

import re

from envs import Event, EventKind
from envs.overcooked.engine import INDICATOR_ACTIVATION_COST
from proagent.domains import get_domain
from proagent.domains.overcooked.web import SCRIPT


def test_each_press_is_counted_as_its_cost() -> None:
    presses = [Event(step=s, agent=s % 2, kind=EventKind.ACTIVATE_INDICATOR, position=(1, 1)) for s in range(4)]
    metrics = get_domain("overcooked").episode_metrics(presses)
    assert metrics == {"soups": 0, "wrong_soups": 0, "button_cost": -4.0 * INDICATOR_ACTIVATION_COST}
    assert get_domain("overcooked").episode_metrics([])["button_cost"] == 0.0


def test_the_replay_states_the_engines_cost_per_press() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    (cost,) = re.findall(r"const BUTTON_COST = (\d+);", script)
    assert int(cost) == INDICATOR_ACTIVATION_COST and "pressed the recipe button" in script
