"""The seats' colours in every picture: player 0 blue, player 1 green, ...

One tuple for the pictures drawn here (the kitchen's JaxMARL frames) and those the world kit draws
for every world's GIF (``proagent.world.kit.pictures`` reads it from here: the environments sit
below the agent framework, so the constant lives at the lower end and nothing imports upward).
Plain data, no JAX: reading it loads nothing else.
"""

from __future__ import annotations

SEAT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (0x2F, 0x6F, 0xD6),
    (0x25, 0xA3, 0x5A),
    (0xD9, 0x82, 0x2B),
    (0x8E, 0x44, 0xAD),
    (0xC0, 0x39, 0x2B),
    (0x16, 0xA0, 0x85),
)
