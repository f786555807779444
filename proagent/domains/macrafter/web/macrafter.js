"use strict";
// Draws one MA-Crafter state on a <canvas>: the whole map as simple tiles (a colour and a small
// glyph per material: no texture assets ship), the agents (numbered squares in their seat's colour
// with a notch on the side they face; asleep: "z", down: greyed with a cross), each agent's faced
// cell (dashed in its colour), the view window of the page's seat (dashed white: what its prompts may
// hold of the map), the last step's cooperative attempts (the cell ringed green when the
// collection worked, red when it failed) and, beside the map, one card per agent: its vitals as
// bars, its inventory (tools framed) and this step's capability changes ΔZ (+ gained, − lost).
// Every text is drawn on the canvas, none is HTML. No dependencies, so an exported replay is one
// HTML file. The MA-Crafter domain's asset (proagent/domains/macrafter/web); the records are
// proagent/domains/macrafter/rendering.py's record() and CrafterEvent.to_record().
const Crafter = (() => {
  // The seat colours of the GIF (rendering.AGENT_COLOURS), so a seat looks the same in both.
  const AGENT = ["#2f6fd6", "#25a35a", "#d9822b", "#8e44ad", "#c0392b", "#16a085", "#785028", "#e650a0"];
  const MATERIALS = ["grass", "sand", "water", "tree", "stone", "coal", "iron", "diamond", "lava", "path", "table",
    "furnace", "plant", "ripe_plant", "cow"];
  const TILE = {
    grass: "#78be5a", sand: "#e1d296", water: "#4682d2", tree: "#78be5a", stone: "#828282", coal: "#828282",
    iron: "#828282", diamond: "#828282", lava: "#e65a14", path: "#beb4a0", table: "#beb4a0", furnace: "#beb4a0",
    plant: "#78be5a", ripe_plant: "#78be5a", cow: "#78be5a",
  };
  const VITALS = [["health", "#dc3232"], ["food", "#e68c1e"], ["drink", "#3c78dc"], ["energy", "#dcc828"]];
  const TOOLS = new Set(["wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"]);
  const FACING = { "-1,0": "left", "1,0": "right", "0,-1": "up", "0,1": "down" };
  const C = { text: "#222", muted: "#777", ok: "#2e9e44", fail: "#d64541", caption: "#f1efe8", panel: "#fbfaf6", line: "#e4e0d6" };
  const CAPTION = 22, PANEL = 270, CARD_PAD = 6, LINE = 14;

  function agentColor(i) {
    return AGENT[i % AGENT.length];
  }
  function words(name) {
    return String(name ?? "").replaceAll("_", " ");
  }
  function cellSize(w, h) {
    return Math.max(8, Math.min(32, Math.floor(560 / Math.max(1, w, h))));
  }
  function write(ctx, s, x, y, size, color, align, bold) {
    ctx.fillStyle = color || C.text;
    ctx.font = `${bold ? "bold " : ""}${size}px sans-serif`;
    ctx.textAlign = align || "left";
    ctx.textBaseline = "middle";
    ctx.fillText(s, x, y);
  }
  // A caption's text broken into lines that fit ``width`` (at its font), at " · " and then at spaces:
  // the caption grows a line at a time instead of cutting its end off.
  function wrapLines(ctx, s, width, size, bold) {
    ctx.font = `${bold ? "bold " : ""}${size}px sans-serif`;
    const lines = [];
    let line = "";
    for (const word of String(s).split(" ")) {
      const next = line ? `${line} ${word}` : word;
      if (line && ctx.measureText(next).width > width) { lines.push(line); line = word; } else line = next;
    }
    return line ? [...lines, line] : lines;
  }
  function dot(ctx, x, y, r, color) {
    ctx.fillStyle = color;
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
  }

  // Hostile creatures (a record holds them only when the world has them): a ringed square, z or k.
  function creatures(ctx, state, S) {
    for (const c of state.creatures || []) {
      const px = c.position[0] * S, py = c.position[1] * S, zombie = c.kind === "zombie";
      ctx.fillStyle = "#111"; ctx.fillRect(px + 1, py + 1, S - 2, S - 2);
      ctx.fillStyle = zombie ? "#3c8c3c" : "#e1e1d2"; ctx.fillRect(px + 3, py + 3, S - 6, S - 6);
      write(ctx, zombie ? "z" : "k", px + S / 2, py + S / 2, Math.max(8, S * 0.6), zombie ? "#fff" : "#111", "center", true);
    }
  }

  // One cell: its ground colour, then a glyph for what stands on it.
  function tile(ctx, name, px, py, S) {
    ctx.fillStyle = TILE[name] || "#ff00ff";
    ctx.fillRect(px, py, S, S);
    const cx = px + S / 2, cy = py + S / 2, r = S / 2;
    if (name === "tree") { dot(ctx, cx, cy - r * 0.15, r * 0.75, "#1e6e28"); ctx.fillStyle = "#6b4423"; ctx.fillRect(cx - r * 0.12, cy + r * 0.4, r * 0.24, r * 0.5); }
    else if (name === "stone") { ctx.fillStyle = "#9a9a9a"; ctx.fillRect(px + S * 0.15, py + S * 0.2, S * 0.4, S * 0.3); }
    else if (name === "coal" || name === "iron") {
      const ink = name === "coal" ? "#1a1a1a" : "#c8875f";
      for (const [dx, dy] of [[-0.35, -0.3], [0.3, -0.2], [-0.1, 0.3], [0.35, 0.35]]) dot(ctx, cx + dx * r * 1.2, cy + dy * r * 1.2, Math.max(1, r * 0.22), ink);
    } else if (name === "diamond") {
      ctx.fillStyle = "#e8fcff"; ctx.beginPath();
      ctx.moveTo(cx, cy - r * 0.7); ctx.lineTo(cx + r * 0.55, cy); ctx.lineTo(cx, cy + r * 0.7); ctx.lineTo(cx - r * 0.55, cy); ctx.closePath(); ctx.fill();
    } else if (name === "water") { ctx.strokeStyle = "#a8c8f0"; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(px + S * 0.15, cy); ctx.quadraticCurveTo(cx, cy - r * 0.5, px + S * 0.85, cy); ctx.stroke(); }
    else if (name === "lava") dot(ctx, cx, cy, r * 0.35, "#f5c518");
    else if (name === "table") {
      ctx.fillStyle = "#8c5a28"; ctx.fillRect(px + S * 0.1, py + S * 0.25, S * 0.8, S * 0.2);
      ctx.fillRect(px + S * 0.15, py + S * 0.45, S * 0.12, S * 0.4); ctx.fillRect(px + S * 0.73, py + S * 0.45, S * 0.12, S * 0.4);
    } else if (name === "furnace") { ctx.fillStyle = "#5a4646"; ctx.fillRect(px + S * 0.1, py + S * 0.1, S * 0.8, S * 0.8); dot(ctx, cx, cy + r * 0.2, r * 0.3, "#f08c28"); }
    else if (name === "plant" || name === "ripe_plant") {
      ctx.strokeStyle = "#2d7a2d"; ctx.lineWidth = Math.max(1, S / 10); ctx.beginPath(); ctx.moveTo(cx, py + S * 0.85); ctx.lineTo(cx, py + S * 0.35); ctx.stroke();
      dot(ctx, cx - r * 0.3, cy - r * 0.1, r * 0.22, "#2d7a2d");
      if (name === "ripe_plant") dot(ctx, cx + r * 0.25, cy - r * 0.4, r * 0.3, "#c83c5a");
    } else if (name === "cow") { dot(ctx, cx, cy, r * 0.6, "#f5f5f0"); dot(ctx, cx + r * 0.2, cy - r * 0.15, r * 0.22, "#6b4423"); }
  }

  function map(ctx, world, state, S) {
    const names = (world && world.materials) || MATERIALS;
    (state.grid || []).forEach((row, y) => row.forEach((m, x) => tile(ctx, names[m], x * S, y * S, S)));
  }

  // The last step's attempts that name a cell: ringed green (worked) or red (the first unmet rule).
  function attempts(ctx, state, S) {
    for (const a of state.attempts || []) {
      if (!a.cell) continue;
      ctx.strokeStyle = a.outcome === "ok" ? C.ok : C.fail; ctx.lineWidth = Math.max(2, S / 8);
      ctx.strokeRect(a.cell[0] * S + 1, a.cell[1] * S + 1, S - 2, S - 2);
    }
  }

  // The seat's own view (world.view: width x height cells centred on it, clipped to the map): what
  // its prompts may hold of the map.
  function window_(ctx, world, state, seat, S) {
    const a = (state.agents || [])[seat], view = world.view;
    if (!a || !a.alive || !Array.isArray(view)) return;
    const hw = Math.floor(view[0] / 2), hh = Math.floor(view[1] / 2), [x, y] = a.position;
    const x0 = Math.max(0, x - hw), y0 = Math.max(0, y - hh), x1 = Math.min(state.width - 1, x + hw), y1 = Math.min(state.height - 1, y + hh);
    ctx.save();
    ctx.strokeStyle = "#fff"; ctx.lineWidth = 2; ctx.setLineDash([6, 4]);
    ctx.strokeRect(x0 * S + 1, y0 * S + 1, (x1 - x0 + 1) * S - 2, (y1 - y0 + 1) * S - 2);
    ctx.restore();
  }

  function faced(ctx, a, S) {
    if (!a.alive || !a.faced) return;
    ctx.save();
    ctx.setLineDash([3, 2]); ctx.strokeStyle = agentColor(a.seat); ctx.lineWidth = 2;
    ctx.strokeRect(a.faced[0] * S + 2, a.faced[1] * S + 2, S - 4, S - 4);
    ctx.restore();
  }

  function agent(ctx, a, S, isSeat) {
    const [x, y] = a.position, px = x * S, py = y * S, inset = Math.max(1, S * 0.1);
    ctx.save();
    if (!a.alive) ctx.globalAlpha = 0.5;
    ctx.fillStyle = a.alive ? agentColor(a.seat) : "#5a5a5a";
    ctx.fillRect(px + inset, py + inset, S - 2 * inset, S - 2 * inset);
    ctx.strokeStyle = isSeat ? "#000" : "#0008"; ctx.lineWidth = isSeat ? 3 : 1;
    ctx.strokeRect(px + inset, py + inset, S - 2 * inset, S - 2 * inset);
    const [dx, dy] = a.facing || [0, 0], cx = px + S / 2, cy = py + S / 2, t = S * 0.38;
    if (a.alive && (dx || dy)) { // a notch on the faced side
      ctx.fillStyle = "#111"; ctx.beginPath();
      ctx.moveTo(cx + dx * (S / 2 - 1), cy + dy * (S / 2 - 1));
      ctx.lineTo(cx + dx * t * 0.5 - dy * t * 0.45, cy + dy * t * 0.5 + dx * t * 0.45);
      ctx.lineTo(cx + dx * t * 0.5 + dy * t * 0.45, cy + dy * t * 0.5 - dx * t * 0.45);
      ctx.closePath(); ctx.fill();
    }
    write(ctx, String(a.seat), cx - dx * S * 0.12, cy - dy * S * 0.12, Math.max(7, S * 0.45), "#fff", "center", true);
    if (a.sleeping) write(ctx, "z", px + S - 2, py + 4, Math.max(7, S * 0.4), "#fff", "right", true);
    if (!a.alive) write(ctx, "✗", cx, cy, Math.max(8, S * 0.7), C.fail, "center", true);
    ctx.restore();
  }

  function changeText(delta) {
    return Object.entries(delta || {}).map(([item, n]) => `${n > 0 ? "+" : "−"}${Math.abs(n)} ${words(item)}`);
  }
  function held(a) {
    return Object.entries(a.inventory || {}).filter(([, n]) => n > 0).map(([item, n]) => [item, n]);
  }

  // Text lines wrapped to width (canvas text: no HTML).
  function wrap(ctx, parts, width, font) {
    ctx.font = font;
    const lines = [];
    let line = "";
    for (const p of parts) {
      const next = line ? `${line}, ${p}` : p;
      if (line && ctx.measureText(next).width > width) { lines.push(line + ","); line = p; } else line = next;
    }
    if (line) lines.push(line);
    return lines;
  }

  function cardLines(ctx, a, delta) {
    const items = held(a).map(([item, n]) => (TOOLS.has(item) ? `[${words(item)}]` : `${words(item)} ${n}`));
    return {
      items: items.length ? wrap(ctx, items, PANEL - 2 * CARD_PAD, "11px sans-serif") : ["holds nothing"],
      dz: changeText(delta).length ? wrap(ctx, changeText(delta), PANEL - 2 * CARD_PAD - 24, "bold 11px sans-serif") : [],
    };
  }
  function cardHeight(lines) {
    return CARD_PAD * 2 + LINE * (2 + lines.items.length + lines.dz.length);
  }

  // One agent's card: chip, name and state, vitals, bag, ΔZ of this step.
  function card(ctx, a, x, y, lines, world, opts) {
    const name = opts.names && opts.names[a.seat] ? ` ${opts.names[a.seat]}` : "";
    const state = !a.alive ? " · down" : a.sleeping ? " · asleep" : "";
    const facing = FACING[String(a.facing)] || "";
    ctx.fillStyle = agentColor(a.seat); ctx.fillRect(x + CARD_PAD, y + CARD_PAD + 2, 10, 10);
    write(ctx, `player ${a.seat}${name}${state}`, x + CARD_PAD + 14, y + CARD_PAD + LINE / 2, 12, C.text, "left", a.seat === opts.seat);
    write(ctx, `(${a.position[0]}, ${a.position[1]}) ${facing}`, x + PANEL - CARD_PAD, y + CARD_PAD + LINE / 2, 10, C.muted, "right");
    let cy = y + CARD_PAD + LINE;
    const max = (world && world.vital_max) || 9, bar = (PANEL - 2 * CARD_PAD) / VITALS.length;
    VITALS.forEach(([v, color], k) => {
      const value = (a.vitals || {})[v] ?? 0, bx = x + CARD_PAD + k * bar;
      ctx.fillStyle = "#e6e6e6"; ctx.fillRect(bx, cy + 3, bar - 22, LINE - 6);
      ctx.fillStyle = color; ctx.fillRect(bx, cy + 3, (bar - 22) * Math.max(0, Math.min(1, value / max)), LINE - 6);
      write(ctx, `${v[0].toUpperCase()}${value}`, bx + bar - 20, cy + LINE / 2, 10, C.text);
    });
    cy += LINE;
    for (const line of lines.items) { write(ctx, line, x + CARD_PAD, cy + LINE / 2, 11, C.text); cy += LINE; }
    lines.dz.forEach((line, k) => {
      if (k === 0) write(ctx, "ΔZ", x + CARD_PAD, cy + LINE / 2, 11, C.muted, "left", true);
      write(ctx, line, x + CARD_PAD + 24, cy + LINE / 2, 11, line.startsWith("+") ? C.ok : C.fail, "left", true);
      cy += LINE;
    });
  }

  function captionText(state, world, score) {
    const head = state ? `score ${score ?? state.score}` : "no MA-Crafter record in this trace line";
    const target = world && world.target ? ` · target ${world.target}` : "";
    return head + (world && world.rules ? `${target} · ${world.rules}` : target);
  }

  function captionHeight(lines) { return Math.max(CAPTION, lines.length * LINE + 8); }

  function caption(ctx, lines, width, y) {
    ctx.fillStyle = C.caption; ctx.fillRect(0, y, width, captionHeight(lines));
    lines.forEach((line, i) => write(ctx, line, 6, y + 4 + LINE * i + LINE / 2, 11, C.text));
  }

  // world: the layout's facts (width, height, materials, vital_max, rules); state: a record or null;
  // changes: seat -> item -> units gained (>0) or lost (<0) this step; opts.seat: ringed agent;
  // opts.names: a short name per seat; opts.score: the caption's score text.
  function draw(canvas, world, state, changes, opts) {
    opts = opts || {}; world = world || {}; changes = changes || {};
    const w = (state && state.width) || world.width || 1, h = (state && state.height) || world.height || 1, S = cellSize(w, h);
    const ctx = canvas.getContext("2d");
    const agents = (state && state.agents) || [];
    const lines = agents.map((a) => cardLines(ctx, a, changes[String(a.seat)]));
    const cards = lines.reduce((sum, l) => sum + cardHeight(l), 0);
    const width = w * S + PANEL, captionLines = wrapLines(ctx, captionText(state, world, opts.score), width - 12, 11);
    const height = Math.max(h * S, cards) + captionHeight(captionLines);
    if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = C.panel; ctx.fillRect(w * S, 0, PANEL, height - captionHeight(captionLines));
    if (state) {
      map(ctx, world, state, S);
      attempts(ctx, state, S);
      if (opts.seat !== undefined && opts.seat !== null) window_(ctx, world, state, opts.seat, S);
      creatures(ctx, state, S);
      agents.forEach((a) => faced(ctx, a, S));
      agents.filter((a) => !a.alive).forEach((a) => agent(ctx, a, S, a.seat === opts.seat));
      agents.filter((a) => a.alive).forEach((a) => agent(ctx, a, S, a.seat === opts.seat));
      let y = 0;
      agents.forEach((a, k) => {
        card(ctx, a, w * S, y, lines[k], world, opts);
        y += cardHeight(lines[k]);
        ctx.strokeStyle = C.line; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(w * S, y - 0.5); ctx.lineTo(width, y - 0.5); ctx.stroke();
      });
    }
    caption(ctx, captionLines, width, height - captionHeight(captionLines));
  }

  function seatStatus(state, changes, i) {
    const a = state && (state.agents || [])[i];
    if (!a) return null;
    const facing = FACING[String(a.facing)] || "nowhere";
    const names = (state.materials) || MATERIALS;
    const m = a.faced && state.grid && state.grid[a.faced[1]] ? names[state.grid[a.faced[1]][a.faced[0]]] : undefined;
    const bag = held(a).map(([item, n]) => (TOOLS.has(item) ? words(item) : `${words(item)} ${n}`)).join(", ") || "nothing";
    const body = VITALS.map(([v]) => `${v} ${(a.vitals || {})[v] ?? "?"}`).join(", ");
    const dz = changeText((changes || {})[String(i)]);
    const down = !a.alive ? "down, " : a.sleeping ? "asleep, " : "";
    return `${down}at (${a.position[0]}, ${a.position[1]}) facing ${facing}${m ? " at " + words(m) : ""}; ${body}; holds ${bag}` +
      (dz.length ? `; ΔZ ${dz.join(", ")}` : "");
  }

  function eventNote(e) {
    const item = words(e.item), why = e.reason ? `: ${words(e.reason)}` : "";
    const others = (e.participants || []).filter((p) => p !== e.agent);
    const along = others.length ? ` with player${others.length > 1 ? "s" : ""} ${others.join(", ")}` : "";
    switch (e.kind) {
      case "collect": return `collected ${item}${along}`;
      case "collect_failed": return `failed to collect ${item}${why}`;
      case "craft": return `crafted ${item}${along}`;
      case "craft_failed": return `failed to craft ${item}${why}`;
      case "place": return `placed ${item}`;
      case "share": return `gave ${e.qty || 1} ${item} to player ${e.other}`;
      case "share_failed": return `failed to give ${item} to player ${e.other}${why}`;
      case "down": return "is down";
      default: return null;
    }
  }

  return { draw, agentColor, seatStatus, eventNote, wrapLines, captionText };
})();

// The generic replay page's hooks (replay.js of proagent.web; the contract is ReplayDrawing in
// proagent/world/replay.py): the payload's `world` and each frame's `macrafter` and `changes` come
// from proagent/domains/macrafter/web/__init__.py.
const ReplayDomain = {
  notable: "collections, crafts, shares and failed cooperative acts",
  draw(canvas, data, frame, opts) {
    Crafter.draw(canvas, data.world, frame.macrafter, frame.changes, { seat: data.seat, names: opts && opts.names, score: frame.score_text });
  },
  seatColor(i) {
    return Crafter.agentColor(i);
  },
  seatStatus(frame, i) {
    if (!frame.macrafter) return frame.actions && i < frame.actions.length ? "" : null;
    return Crafter.seatStatus(frame.macrafter, frame.changes, i);
  },
  horizon(frame) {
    return frame.macrafter ? frame.macrafter.horizon : null;
  },
  eventNote(e) {
    return Crafter.eventNote(e);
  },
};

// The human page's view of the world (human.js knows no world): info holds the page facts. The
// arrow keys move (the page's own); the other keys follow Crafter's human play: space acts on the
// faced cell, Tab sleeps, T/R/F/P place a table, stone, furnace or sapling, 1-6 craft.
const HumanDomain = {
  keys: {
    " ": "do", Tab: "sleep", q: "noop", t: "place_table", r: "place_stone", f: "place_furnace", p: "place_plant",
    1: "make_wood_pickaxe", 2: "make_stone_pickaxe", 3: "make_iron_pickaxe", 4: "make_wood_sword", 5: "make_stone_sword",
    6: "make_iron_sword",
  },
  draw(canvas, info, state, names) {
    Crafter.draw(canvas, info, state, {}, { names });
  },
  seatColor(i) {
    return Crafter.agentColor(i);
  },
};
