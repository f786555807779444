"""The OvercookedV2 paper's environment settings for its coordination layouts (Gessler et al.,
OvercookedV2, App. D.2.2-D.2.4): a view radius of two cells, random starting positions, a penalty for a wrong dish
and a new recipe after each correct delivery; the test-time layouts also signal correct
deliveries. A layout not listed here plays with the classic defaults (`Dynamics()`)."""

from __future__ import annotations

from types import MappingProxyType

from envs.overcooked.env import Dynamics, OvercookedEnv, make
from envs.overcooked.layouts import get_layout

_COORDINATION = MappingProxyType(
    {"agent_view_size": 2, "random_agent_positions": True, "wrong_soup_penalty": True, "new_recipe_on_delivery": True}
)

PAPER_DYNAMICS: MappingProxyType[str, MappingProxyType] = MappingProxyType({
    "grounded_coord_simple": _COORDINATION,
    "grounded_coord_ring": _COORDINATION,
    "test_time_simple": MappingProxyType({**_COORDINATION, "indicate_successful_delivery": True}),
    "test_time_wide": MappingProxyType({**_COORDINATION, "indicate_successful_delivery": True}),
    "demo_cook_simple": _COORDINATION,
    "demo_cook_wide": _COORDINATION,
})  # fmt: skip


COORDINATION_LAYOUTS: tuple[str, ...] = tuple(PAPER_DYNAMICS)  # the paper's six, in its Table 2 order


def layout_dynamics(layout_name: str) -> dict:
    """The paper's settings for ``layout_name`` (empty for a layout it does not configure)."""
    return dict(PAPER_DYNAMICS.get(layout_name, {}))


def make_layout_env(layout_name: str, horizon: int = 400) -> OvercookedEnv:
    """The env of ``layout_name`` under its own settings (the paper's for a V2 coordination layout,
    the classic rules otherwise): what RL partners train, are scored and play in."""
    return make(layout_name, Dynamics(**layout_dynamics(get_layout(layout_name).name), horizon=horizon))
