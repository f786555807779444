"""A training config built in code picks its layout as `proagent train` does: the world's default,
never an Overcooked kitchen for another world."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from proagent.domains import get_domain
from proagent.training.algorithms import AlgoConfig
from proagent.training.bc import BCConfig
from proagent.training.cli import TRAINABLE


@pytest.mark.parametrize("world", TRAINABLE)
def test_a_config_without_a_layout_takes_its_worlds_default(world: str) -> None:
    default = get_domain(world).default_layout()  # what `proagent train --domain WORLD` records
    assert AlgoConfig(world=world).layout == default
    assert AlgoConfig(world=world, layout=None).layout == default
    assert BCConfig(world=world).layout == default


def test_no_world_but_overcooked_defaults_to_a_kitchen() -> None:
    kitchens = set(get_domain("overcooked").layout_names())
    assert [w for w in TRAINABLE if w != "overcooked" and AlgoConfig(world=w).layout in kitchens] == []


def test_a_named_layout_is_kept_and_an_unknown_world_is_one_clear_error() -> None:
    assert AlgoConfig(world="yokai", layout="9c_2p").layout == "9c_2p"
    assert BCConfig(layout="cramped_room").layout == "cramped_room"
    with pytest.raises(ValidationError, match="unknown domain 'nowhere'"):
        AlgoConfig(world="nowhere")
