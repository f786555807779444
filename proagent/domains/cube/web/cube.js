"use strict";
// Draws one CUBE state on a <canvas>: the K×K grid with its goal column, the blocks (w×w squares
// labelled with index and weight; delivered ones faded where they were delivered), the agents
// (coloured numbered circles), the pushes of this step (an arrow per pusher: green when the push
// moved the block, red with a cross when it failed) and, on the pushed block's face, the pushes of
// the step that led here. No dependencies, so an exported replay is one HTML file. The CUBE
// domain's asset (proagent/domains/cube/web); the records are CubeView.to_record() and CubeEvent.
const Cube = (() => {
  const AGENT = ["#2f6fd6", "#25a35a", "#d9822b", "#8e44ad", "#c0392b", "#16a085", "#b8860b", "#e84393"];
  const C = {
    floor: "#fbfaf6", line: "#e4e0d6", goal: "#d3eed3", goalEdge: "#4d8f4d", block: "#8f8f8f",
    blockEdge: "#4a4a4a", text: "#222", ok: "#2e9e44", fail: "#d64541", seat: "#111", caption: "#f1efe8",
  };
  const VECTOR = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
  const CAPTION = 22; // the text strip under the grid
  const PUSHES = new Set(["push_ok", "push_failed", "deliver"]);

  function agentColor(i) {
    return AGENT[i % AGENT.length];
  }

  function cellSize(k) {
    return Math.max(14, Math.min(48, Math.floor(600 / Math.max(1, k))));
  }

  function text(ctx, s, x, y, size, color, align) {
    ctx.fillStyle = color || C.text;
    ctx.font = `bold ${size}px sans-serif`;
    ctx.textAlign = align || "center";
    ctx.textBaseline = "middle";
    ctx.fillText(s, x, y);
  }

  function grid(ctx, k, goal, S) {
    ctx.fillStyle = C.floor;
    ctx.fillRect(0, 0, k * S, k * S);
    if (goal !== null && goal !== undefined && goal >= 0 && goal < k) {
      ctx.fillStyle = C.goal;
      ctx.fillRect(goal * S, 0, (k - goal) * S, k * S);
      ctx.strokeStyle = C.goalEdge; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(goal * S + 1, 0); ctx.lineTo(goal * S + 1, k * S); ctx.stroke();
    }
    ctx.strokeStyle = C.line; ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i <= k; i++) {
      ctx.moveTo(i * S + 0.5, 0); ctx.lineTo(i * S + 0.5, k * S);
      ctx.moveTo(0, i * S + 0.5); ctx.lineTo(k * S, i * S + 0.5);
    }
    ctx.stroke();
  }

  function block(ctx, b, S) {
    const [x, y] = b.position, w = b.weight, px = x * S, py = y * S, side = w * S;
    ctx.save();
    if (b.delivered) {
      ctx.globalAlpha = 0.3;
      ctx.setLineDash([4, 3]);
    }
    ctx.fillStyle = C.block;
    ctx.fillRect(px + 2, py + 2, side - 4, side - 4);
    ctx.strokeStyle = C.blockEdge; ctx.lineWidth = 2;
    ctx.strokeRect(px + 2, py + 2, side - 4, side - 4);
    const cx = px + side / 2, cy = py + side / 2, ink = b.delivered ? "#111" : "#fff";
    if (side >= 36) {
      text(ctx, `#${b.index}`, cx, cy - side * 0.12, Math.min(22, side / 3), ink);
      text(ctx, `w=${w}`, cx, cy + side * 0.2, Math.min(14, side / 4), ink);
    } else {
      text(ctx, `${b.index}:${w}`, cx, cy, Math.max(8, side / 2.6), ink);
    }
    ctx.restore();
    if (b.delivered) text(ctx, "✓ delivered", cx, py + Math.min(12, side / 4), Math.max(8, Math.min(12, side / 5)), C.ok);
  }

  // A push of the step that led here (PushRecord.to_record): a bar on the face the pushers stood on.
  function faceMark(ctx, p, blocks, S) {
    const b = blocks[p.block];
    if (!b) return;
    const [x, y] = b.position, side = b.weight * S, px = x * S, py = y * S, t = Math.max(3, S / 8);
    ctx.fillStyle = p.outcome === "ok" ? C.ok : C.fail;
    if (p.face === "left") ctx.fillRect(px, py, t, side);
    else if (p.face === "right") ctx.fillRect(px + side - t, py, t, side);
    else if (p.face === "top") ctx.fillRect(px, py, side, t);
    else if (p.face === "bottom") ctx.fillRect(px, py + side - t, side, t);
  }

  function agent(ctx, pos, i, S, isSeat) {
    const cx = pos[0] * S + S / 2, cy = pos[1] * S + S / 2, r = S * 0.38;
    ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.fillStyle = agentColor(i); ctx.fill();
    ctx.strokeStyle = isSeat ? C.seat : "#0006"; ctx.lineWidth = isSeat ? 3 : 1.5; ctx.stroke();
    text(ctx, String(i), cx, cy, Math.max(8, S * 0.4), "#fff");
  }

  // This step's push by one agent (its CubeEvents): an arrow from the agent into the block.
  function pushArrow(ctx, pos, direction, ok, S) {
    const [dx, dy] = VECTOR[direction] || [0, 0];
    if (!dx && !dy) return;
    const cx = pos[0] * S + S / 2, cy = pos[1] * S + S / 2;
    const x0 = cx + dx * S * 0.3, y0 = cy + dy * S * 0.3, x1 = cx + dx * S * 0.95, y1 = cy + dy * S * 0.95;
    const head = Math.max(4, S * 0.2), color = ok ? C.ok : C.fail;
    ctx.strokeStyle = ctx.fillStyle = color; ctx.lineWidth = Math.max(2, S / 12);
    ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(x1 + dx * head * 0.4, y1 + dy * head * 0.4);
    ctx.lineTo(x1 - dx * head + dy * head * 0.6, y1 - dy * head + dx * head * 0.6);
    ctx.lineTo(x1 - dx * head - dy * head * 0.6, y1 - dy * head - dx * head * 0.6);
    ctx.closePath(); ctx.fill();
    if (!ok) { // a cross on a white disc beside the arrow
      const mx = (x0 + x1) / 2 + dy * S * 0.28, my = (y0 + y1) / 2 - dx * S * 0.28, r = Math.max(6, S * 0.2);
      ctx.beginPath(); ctx.arc(mx, my, r, 0, 2 * Math.PI);
      ctx.fillStyle = "#fff"; ctx.fill(); ctx.lineWidth = 1.5; ctx.stroke();
      text(ctx, "✗", mx, my + 0.5, Math.max(8, r * 1.5), C.fail);
    }
  }

  // agent -> {direction, ok} for the pushes in this step's events
  function pushesOf(events) {
    const out = {};
    for (const e of events || []) {
      if (!PUSHES.has(e.kind)) continue;
      const prev = out[e.agent];
      out[e.agent] = { direction: e.direction, ok: (prev && prev.ok) || e.kind !== "push_failed", event: e };
    }
    return out;
  }

  function describePush(p) {
    const result = p.outcome === "ok" ? "✓" : `✗ ${String(p.reason || p.outcome).replaceAll("_", " ")}`;
    return `#${p.block} ${p.direction} ${p.force}/${p.weight} ${result}`;
  }

  // score: the text the page writes the team's score as (the replay header's); else the state's own
  function caption(ctx, cube, width, y, score) {
    ctx.fillStyle = C.caption;
    ctx.fillRect(0, y, width, CAPTION);
    const pushes = (cube && cube.pushes) || [];
    const delivered = cube ? cube.blocks.filter((b) => b.delivered).length : 0;
    const head = cube ? `score ${score ?? cube.score} · delivered ${delivered}/${cube.blocks.length}` : "no CUBE record in this trace line";
    const tail = pushes.length ? ` · previous step's pushes: ${pushes.map(describePush).join("; ")}` : "";
    ctx.save();
    ctx.beginPath(); ctx.rect(0, y, width, CAPTION); ctx.clip();
    text(ctx, head + tail, 6, y + CAPTION / 2, 11, C.text, "left");
    ctx.restore();
  }

  // board: {grid_size, goal_column, ...} (the payload's board); cube: CubeView.to_record() or null;
  // events: this step's CubeEvent records; opts.seat: the agent's seat (ringed);
  // opts.score: the caption's score text (the replay's, so canvas and header agree)
  function draw(canvas, board, cube, events, opts) {
    opts = opts || {};
    board = board || {};
    const k = (cube && cube.grid_size) || board.grid_size || 1;
    const goal = board.goal_column ?? k - 1, S = cellSize(k);
    if (canvas.width !== k * S || canvas.height !== k * S + CAPTION) {
      canvas.width = k * S;
      canvas.height = k * S + CAPTION;
    }
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    grid(ctx, k, goal, S);
    if (cube) {
      const blocks = cube.blocks || [];
      for (const b of blocks) if (b.delivered) block(ctx, b, S);
      for (const b of blocks) if (!b.delivered) block(ctx, b, S);
      for (const p of cube.pushes || []) faceMark(ctx, p, blocks, S);
      const pushes = pushesOf(events);
      (cube.agents || []).forEach((pos, i) => agent(ctx, pos, i, S, i === opts.seat));
      (cube.agents || []).forEach((pos, i) => pushes[i] && pushArrow(ctx, pos, pushes[i].direction, pushes[i].ok, S));
    }
    caption(ctx, cube, k * S, k * S, opts.score);
  }

  return { draw, agentColor, pushesOf };
})();

// The generic replay page's hooks (replay.js of proagent.web; the contract is ReplayDrawing in
// proagent/web/replay_data.py): the payload's `board` and each frame's `cube` come from
// proagent/domains/cube/web/__init__.py.
const ReplayDomain = {
  notable: "deliveries, failed pushes",
  draw(canvas, data, frame, opts) {
    Cube.draw(canvas, data.board, frame.cube, frame.events, { seat: data.seat, names: opts && opts.names, score: frame.score_text });
  },
  seatColor(i) {
    return Cube.agentColor(i);
  },
  seatStatus(frame, i) {
    const cube = frame.cube;
    if (!cube) return frame.actions && i < frame.actions.length ? "" : null;
    const pos = (cube.agents || [])[i];
    if (!pos) return null;
    const push = Cube.pushesOf(frame.events)[i];
    if (!push) return `at (${pos[0]}, ${pos[1]})`;
    const e = push.event, delivered = (frame.events || []).some((d) => d.kind === "deliver" && d.agent === i);
    const result = delivered ? "delivered" : push.ok ? "moved" : `failed${e.reason ? ": " + e.reason.replaceAll("_", " ") : ""}`;
    return `at (${pos[0]}, ${pos[1]}), pushing block ${e.block} ${e.direction} (force ${e.force}/${e.weight}, ${result})`;
  },
  horizon(frame) {
    return frame.cube ? frame.cube.horizon : null;
  },
  eventNote(e) {
    if (e.kind === "deliver") return `delivered block ${e.block} (weight ${e.weight})`;
    if (e.kind === "push_failed") {
      const why = e.reason ? `, ${e.reason.replaceAll("_", " ")}` : "";
      return `failed to push block ${e.block} ${e.direction} (force ${e.force}/${e.weight}${why})`;
    }
    return null;
  },
};
