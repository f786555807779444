"""MA-Crafter draws itself: the world as text (agents as digits, a line per agent, a legend), the
records and page facts the pages read, dZ per seat and item on each trace line, and the episode's
GIF (one frame per state, the map over one inventory strip per agent, agents in their seat's
colour with a mark on the faced side)."""

from __future__ import annotations

import json
from itertools import pairwise

import numpy as np
from macrafter_views import HEIGHT, HORIZON, WIDTH, ViewWorld, bag, episode, view
from PIL import Image

from envs.macrafter import make
from envs.macrafter.rules import Item, Material
from proagent.domains import get_domain, replay_drawing_for
from proagent.domains.macrafter.rendering import (
    CELL,
    ITEM_COLOURS,
    MATERIAL_CHARS,
    MATERIAL_COLOURS,
    RENDERING,
    STRIP,
    agent_colour,
    capability_changes,
    frame,
    page_facts,
    record,
    text,
)
from proagent.domains.macrafter.web import SCRIPT
from proagent.world.kit.pictures import save_gif


def test_the_text_is_the_map_with_agents_as_digits_a_line_per_agent_and_a_legend():
    first = view(0, bag(wood=2, wood_pickaxe=1), bag(), bag(), asleep=1, down=2)
    lines = text(first).splitlines()
    assert lines[0] == "step 0/40, score 0"
    rows = lines[1 : 1 + HEIGHT]
    assert len(rows) == HEIGHT and {len(r) for r in rows} == {WIDTH}
    assert rows[5][2] == "0" and rows[5][3] == "1", "agents stand as their seat's digit"
    assert rows[7][8] == MATERIAL_CHARS[Material.GRASS], "a down agent is not drawn on the map"
    assert rows[4][2] == MATERIAL_CHARS[Material.TREE] and rows[0][1] == MATERIAL_CHARS[Material.WATER]
    assert set(MATERIAL_CHARS) == set(Material) and len(set(MATERIAL_CHARS.values())) == len(Material)
    agent0, agent1, agent2 = lines[1 + HEIGHT : 4 + HEIGHT]
    assert agent0 == (
        "agent 0 at (2, 5) facing up at tree; health 9 food 7 drink 5 energy 3; holds wood 2, wood_pickaxe"
    )
    assert agent1.startswith("agent 1 (asleep) at (3, 5) facing left at agent 0;") and agent1.endswith("holds nothing")
    assert agent2.startswith("agent 2 (down)")
    assert lines[-1].startswith("legend: . grass, : sand, ~ water, T tree")


def test_the_record_is_the_views_with_each_agents_faced_cell_and_is_json():
    first = episode()[1]
    data = record(first)
    assert json.loads(json.dumps(data)) == data
    assert data["grid"][4][2] == int(Material.TREE) and data["width"] == WIDTH and data["height"] == HEIGHT
    assert [a["faced"] for a in data["agents"]] == [[2, 4], [2, 5], [9, 7]]
    assert data["agents"][0]["inventory"]["wood"] == 1 and data["attempts"][0]["outcome"] == "ok"


def test_capability_changes_are_the_items_and_tools_each_agent_gained_or_lost():
    views = episode()
    steps = [capability_changes(a, b) for a, b in pairwise(views)]
    assert steps == [
        {"0": {"wood": 1}},
        {"0": {"wood": -1}, "1": {"wood": 1}},
        {"0": {"wood_pickaxe": 1}, "1": {"wood": -1, "wood_pickaxe": 1}},
        {},
    ]


def test_the_world_draws_itself_with_this_rendering_and_its_replay_drawing():
    assert get_domain("macrafter").capabilities.rendering is RENDERING
    assert replay_drawing_for("macrafter").script == SCRIPT


def test_frame_extras_carry_the_state_dz_the_layout_on_step_0_and_the_final_state():
    world, views = make("easy_2a", HORIZON), episode()
    first = RENDERING.frame_extras(world, views[0], views[1], False)
    assert first["macrafter"] == record(views[0]) and first["capability_changes"] == {"0": {"wood": 1}}
    layout = first["layout"]
    assert layout == page_facts(world, views[0]) and layout["materials"][int(Material.TREE)] == "tree"
    assert (layout["scenario"], layout["difficulty"], layout["target"]) == ("easy_2a", "easy", world.scenario.target)
    assert (layout["width"], layout["height"], layout["horizon"], layout["num_agents"]) == (WIDTH, HEIGHT, 40, 3)
    iron = world.settings.resources["iron"]
    assert layout["resources"]["iron"] == {
        "quorum": iron.quorum,
        "tool": iron.tool,
        "value": world.settings.unit_value("iron"),
    }
    assert f"iron {iron.quorum}×{iron.tool.replace('_', ' ')}" in layout["rules"] and "d=1" in layout["rules"]
    assert layout["recipes"]["stone_pickaxe"] == {"needs": {"wood": 1, "stone": 1}, "stations": ["table"], "quorum": 1}
    assert json.loads(json.dumps(layout)) == layout
    middle = RENDERING.frame_extras(world, views[2], views[3], False)
    assert "layout" not in middle and "final" not in middle
    last = RENDERING.frame_extras(world, views[3], views[4], True)
    assert (
        last["final"] == {"state": text(views[4]), "macrafter": record(views[4])} and last["capability_changes"] == {}
    )


def _cell(image: np.ndarray, x: int, y: int, dx: int = CELL // 2, dy: int = CELL // 2) -> tuple[int, ...]:
    return tuple(int(v) for v in image[y * CELL + dy, x * CELL + dx])


def test_a_frame_is_the_tiled_map_over_one_inventory_strip_per_agent():
    state = view(0, bag(wood=3, wood_pickaxe=1), bag(stone=2), bag(), down=2)
    image = frame(state, vital_max=9)
    assert image.shape == (HEIGHT * CELL + 3 * STRIP, max(WIDTH * CELL, 160), 3) and image.dtype == np.uint8
    assert (
        _cell(image, 4, 4) == MATERIAL_COLOURS[Material.GRASS] and _cell(image, 2, 4) == MATERIAL_COLOURS[Material.TREE]
    )
    assert _cell(image, 3, 5, dx=2, dy=CELL - 3) == agent_colour(1), "agent 1 in its seat's colour"
    assert _cell(image, 3, 5, dx=1) == (20, 20, 20), "agent 1 faces left: the mark is on its left side"
    assert _cell(image, 3, 5, dx=CELL - 2) == agent_colour(1), "and not on its right side"
    assert _cell(image, 8, 7) == (90, 90, 90), "a down agent is grey"
    strip = image[HEIGHT * CELL :]
    colours = {tuple(int(v) for v in px) for row in strip for px in row}
    assert {agent_colour(0), agent_colour(1), agent_colour(2)} <= colours, "each strip starts with its seat's colour"
    first, second = strip[:STRIP], strip[STRIP : 2 * STRIP]
    as_set = lambda part: {tuple(int(v) for v in px) for row in part for px in row}
    assert ITEM_COLOURS[Item.WOOD] in as_set(first) and ITEM_COLOURS[Item.STONE] not in as_set(first)
    assert ITEM_COLOURS[Item.STONE] in as_set(second) and ITEM_COLOURS[Item.WOOD] not in as_set(second)


def test_the_gif_has_a_frame_per_state_of_the_frames_size(tmp_path):
    views = episode()
    path = tmp_path / "run" / "episode.gif"
    save_gif(ViewWorld(), RENDERING, views, path)
    with Image.open(path) as gif:
        assert gif.n_frames == len(views) and gif.size == (max(WIDTH * CELL, 160), HEIGHT * CELL + 3 * STRIP)
        gif.seek(len(views) - 1)
        last = np.asarray(gif.convert("RGB"))
    assert last.shape[:2] == frame(views[-1], 9).shape[:2]
