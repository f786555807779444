"""The post-game questionnaire asks about the world's own task: the paper's statements (about
soups) in Overcooked, and never about soups in a world without them."""

from __future__ import annotations

import pytest

from proagent.domains import builtin_domain_names
from proagent.web.questionnaire import load_questionnaire


def test_overcooked_keeps_the_papers_statements_word_for_word() -> None:
    texts = [q.text for q in load_questionnaire(world="overcooked").questions]
    assert texts[0] == "My partner and I worked together to deliver the soups."
    assert texts == [q.text for q in load_questionnaire().questions]


@pytest.mark.parametrize("world", [w for w in builtin_domain_names() if w != "overcooked"])
def test_other_worlds_are_asked_about_their_own_task(world: str) -> None:
    texts = " ".join(q.text for q in load_questionnaire(world=world).questions)
    assert "soup" not in texts and "{task}" not in texts


def test_ma_crafter_players_are_asked_about_crafting() -> None:
    first = load_questionnaire(world="macrafter").questions[0].text
    assert first == "My partner and I worked together to gather the resources and craft the tools."
