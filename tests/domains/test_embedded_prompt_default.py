"""The embedded model's default prompt set is ``compact``; a world that ships no ``compact`` set (the
lamps world has only ``proagent``) plays its own default set instead of failing on a set the user
never named. An explicitly named set that is missing still fails, naming the sets that exist."""

from __future__ import annotations

import pytest
from lamps_world import DOMAIN as LAMPS

from proagent.agent.prompts import PromptSetError
from proagent.builder import LLMFlags, agent_config, check_llm_agent
from proagent.domains import get_domain
from proagent.eval.config import AgentSpec


def test_a_world_without_a_compact_set_gets_its_default_set_on_the_embedded_model() -> None:
    config = agent_config(LLMFlags(), embedded=True, prompts_root=LAMPS.prompts_root)
    assert config.prompt == "proagent"
    env = LAMPS.make_env("line", 4)
    assert check_llm_agent(LAMPS, env, config, [0, 1], 0)  # renders: the run would start
    assert AgentSpec().agent_config(LAMPS.prompts_root).prompt == "proagent"  # eval settles it the same way


def test_a_world_with_a_compact_set_keeps_it_and_an_explicit_choice_wins() -> None:
    overcooked = get_domain("overcooked").prompts_root
    assert agent_config(LLMFlags(), embedded=True, prompts_root=overcooked).prompt == "compact"
    assert AgentSpec().agent_config(overcooked).prompt == "compact"
    assert agent_config(LLMFlags(), embedded=False, prompts_root=LAMPS.prompts_root).prompt == "proagent"
    named = agent_config(LLMFlags(prompt="compact"), embedded=True, prompts_root=LAMPS.prompts_root)
    with pytest.raises(PromptSetError, match="unknown prompt set 'compact'; available: proagent"):
        check_llm_agent(LAMPS, LAMPS.make_env("line", 4), named, [0], 0)
