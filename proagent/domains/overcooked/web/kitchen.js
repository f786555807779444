"use strict";
// Draws one Overcooked kitchen on a <canvas> from the terrain rows (legacy characters) and a
// kitchen record (KitchenState.to_record(): players, pots, counter items). Shared by the replay
// page (through ReplayDomain, below) and the human-play page; no dependencies, so an exported
// replay is one HTML file. The Overcooked domain's asset (proagent/domains/overcooked/web).
const BUTTON_COST = 5; // points a press of a V2 recipe button takes off the score (the engine's INDICATOR_ACTIVATION_COST)
const Kitchen = (() => {
  const TILE = 64;
  const C = {
    floor: "#efe4cc", floorLine: "#e2d4b5", counter: "#a57c52", counterTop: "#c8a273",
    pot: "#3c3c3c", serve: "#8fc98f", serveDark: "#4d8f4d", dish: "#fafafa", dishEdge: "#9a9a9a",
    text: "#222", ready: "#36b336", cooking: "#e07b22",
  };
  const INGREDIENT = { onion: "#e8c547", tomato: "#d9412b" };
  const PLAYER = ["#2f6fd6", "#25a35a"];
  const FACING = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };

  function ingredientColor(name) {
    return INGREDIENT[name] || "#9b59b6";
  }

  function circle(ctx, x, y, r, fill, stroke) {
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
    if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 2; ctx.stroke(); }
  }

  function counter(ctx, px, py) {
    ctx.fillStyle = C.counter;
    ctx.fillRect(px, py, TILE, TILE);
    ctx.fillStyle = C.counterTop;
    ctx.fillRect(px + 3, py + 3, TILE - 6, TILE - 6);
  }

  function label(ctx, text, x, y, size, color) {
    ctx.fillStyle = color || C.text;
    ctx.font = `bold ${size}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(text, x, y);
  }

  // An item centred at (x, y) with scale s (1 = full tile).
  function item(ctx, it, x, y, s) {
    if (!it) return;
    if (it.kind === "ingredient") {
      circle(ctx, x, y, 11 * s, ingredientColor(it.ingredients[0] || it.name), "#0005");
    } else {
      circle(ctx, x, y, 15 * s, C.dish, C.dishEdge);
      if (it.kind === "soup") circle(ctx, x, y, 10 * s, ingredientColor(it.ingredients[0]), "#0004");
    }
  }

  function tile(ctx, ch, px, py) {
    const cx = px + TILE / 2, cy = py + TILE / 2;
    if (ch === " ") {
      ctx.fillStyle = C.floor;
      ctx.fillRect(px, py, TILE, TILE);
      ctx.strokeStyle = C.floorLine;
      ctx.lineWidth = 1;
      ctx.strokeRect(px + 0.5, py + 0.5, TILE - 1, TILE - 1);
      return;
    }
    counter(ctx, px, py);
    if (ch === "P") {
      circle(ctx, cx, cy, 24, C.pot, "#111");
    } else if (ch === "S") {
      ctx.fillStyle = C.serve;
      ctx.fillRect(px + 6, py + 6, TILE - 12, TILE - 12);
      label(ctx, "SERVE", cx, cy, 11, C.serveDark);
    } else if (ch === "D") {
      for (let i = 0; i < 3; i++) circle(ctx, cx - 6 + 6 * i, cy + 6 - 6 * i, 13, C.dish, C.dishEdge);
    } else if (ch === "R" || ch === "L") {
      label(ctx, "?", cx, cy, 22);
    } else if (ch !== "X") {
      const name = { O: "onion", T: "tomato" }[ch] || ch;
      ctx.fillStyle = "#6b4a2b";
      ctx.fillRect(px + 8, py + 8, TILE - 16, TILE - 16);
      for (const [dx, dy] of [[-8, -6], [8, -6], [0, 8]]) circle(ctx, cx + dx, cy + dy, 9, ingredientColor(name), "#0005");
    }
  }

  function pot(ctx, p, cookTime) {
    const [x, y] = p.position;
    const cx = x * TILE + TILE / 2, cy = y * TILE + TILE / 2;
    const n = p.ingredients.length;
    p.ingredients.forEach((name, i) => {
      const a = (2 * Math.PI * i) / Math.max(n, 1) - Math.PI / 2;
      circle(ctx, cx + 10 * Math.cos(a) * (n > 1), cy + 10 * Math.sin(a) * (n > 1), 8, ingredientColor(name), "#0006");
    });
    if (p.ready) {
      ctx.strokeStyle = C.ready; ctx.lineWidth = 5;
      ctx.beginPath(); ctx.arc(cx, cy, 27, 0, 2 * Math.PI); ctx.stroke();
      label(ctx, "✓", cx, cy + 22, 14, C.ready);
    } else if (p.cooking) {
      ctx.strokeStyle = C.cooking; ctx.lineWidth = 4;
      ctx.beginPath(); ctx.arc(cx, cy, 27, -Math.PI / 2, -Math.PI / 2 + 2 * Math.PI * Math.min(1, 1 - p.ticks_left / cookTime)); ctx.stroke();
      label(ctx, String(p.ticks_left), cx, cy + 20, 12, "#fff");
    }
  }

  function player(ctx, pl, name) {
    const [x, y] = pl.position;
    const cx = x * TILE + TILE / 2, cy = y * TILE + TILE / 2;
    const [fx, fy] = FACING[pl.facing] || [0, 1];
    const color = PLAYER[pl.index % PLAYER.length];
    circle(ctx, cx, cy, 20, color, "#0008");
    // the facing: a white "nose" towards the faced cell
    ctx.beginPath();
    ctx.moveTo(cx + fx * 26, cy + fy * 26);
    ctx.lineTo(cx + fx * 14 - fy * 9, cy + fy * 14 + fx * 9);
    ctx.lineTo(cx + fx * 14 + fy * 9, cy + fy * 14 - fx * 9);
    ctx.closePath();
    ctx.fillStyle = "#fff";
    ctx.fill();
    label(ctx, name || String(pl.index), cx, cy, name && name.length > 2 ? 10 : 13, "#fff");
    if (pl.held) item(ctx, pl.held, cx + fx * 20 + fy * 14, cy + fy * 20 + fx * 14, 0.7);
  }

  // terrain: list of strings; kitchen: record; opts.names: label per player index,
  // opts.cookTime: steps a pot cooks (for the progress ring; default the classic 20)
  function draw(canvas, terrain, kitchen, opts) {
    opts = opts || {};
    const rows = terrain.length, cols = Math.max(...terrain.map((r) => r.length));
    if (canvas.width !== cols * TILE || canvas.height !== rows * TILE) {
      canvas.width = cols * TILE;
      canvas.height = rows * TILE;
    }
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    terrain.forEach((row, y) => {
      for (let x = 0; x < cols; x++) tile(ctx, row[x] || " ", x * TILE, y * TILE);
    });
    if (!kitchen) return;
    for (const p of kitchen.pots || []) pot(ctx, p, opts.cookTime || 20);
    for (const c of kitchen.counters || []) item(ctx, c.item, c.position[0] * TILE + TILE / 2, c.position[1] * TILE + TILE / 2, 1);
    for (const pl of kitchen.players || []) player(ctx, pl, (opts.names || [])[pl.index]);
  }

  function describeItem(it) {
    if (!it) return "nothing";
    if (it.kind === "soup") return "soup of " + it.ingredients.join(", ");
    return it.name;
  }

  return { draw, describeItem, TILE, PLAYER_COLORS: PLAYER };
})();

// V2's partial view: a dashed square of (2r+1) cells around each player, in its colour.
function viewWindows(canvas, radius, players) {
  const ctx = canvas.getContext("2d"), T = Kitchen.TILE;
  ctx.save();
  ctx.setLineDash([8, 6]); ctx.lineWidth = 3;
  for (const pl of players) {
    const [x, y] = pl.position;
    ctx.strokeStyle = Kitchen.PLAYER_COLORS[pl.index % Kitchen.PLAYER_COLORS.length];
    ctx.strokeRect((x - radius) * T + 2, (y - radius) * T + 2, (2 * radius + 1) * T - 4, (2 * radius + 1) * T - 4);
  }
  ctx.restore();
}

// The generic replay page's hooks (replay.js of proagent.web; the contract is ReplayDrawing in
// proagent/web/replay_data.py): the payload's `terrain` and each frame's `kitchen` come from
// proagent/domains/overcooked/web/__init__.py.
const ReplayDomain = {
  notable: "deliveries",
  draw(canvas, data, frame, opts) {
    Kitchen.draw(canvas, data.terrain, frame.kitchen, opts);
    if (data.view_radius && frame.kitchen) viewWindows(canvas, data.view_radius, frame.kitchen.players || []);
  },
  // What the page does not show by itself: each player's view window (V2's partial observation)
  // and what the recipe button costs.
  legend(data) {
    const notes = [];
    if (data.view_radius) {
      const side = 2 * data.view_radius + 1;
      notes.push(`Each player sees only the ${side}x${side} cells around it (the dashed square in its colour); the agent plans on that view.`);
    }
    if ((data.terrain || []).some((row) => row.includes("L"))) {
      notes.push(`L is the recipe button: pressing it shows the recipe for a while and takes ${BUTTON_COST} points off the score (the episode's button cost).`);
    }
    return notes.join(" ");
  },
  seatColor(i) {
    return Kitchen.PLAYER_COLORS[i];
  },
  seatStatus(frame, i) {
    const pl = frame.kitchen.players[i];
    return pl ? "holding " + Kitchen.describeItem(pl.held) : null;
  },
  horizon(frame) {
    return frame.kitchen.horizon;
  },
  eventNote(e) {
    if (e.kind === "activate_indicator") return `pressed the recipe button (−${BUTTON_COST} points)`;
    return e.kind === "deliver" ? "delivered a soup" : null;
  },
};

// The human-play page's view of the domain (the page script, human.js, knows no world).
const HumanDomain = {
  draw(canvas, info, state, names) {
    Kitchen.draw(canvas, info.terrain, state, { names, cookTime: info.cook_time });
  },
  seatColor(i) {
    return Kitchen.PLAYER_COLORS[i];
  },
};
