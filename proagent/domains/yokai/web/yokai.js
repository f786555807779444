"use strict";
// Draws one Yōkai table on a <canvas>: the grid, the cards in their true colours (a replay is
// watched after the game) with their index, a white corner where a hint lies, this step's moved
// card outlined, and a caption with the turn, the phase and the hints. No dependencies, so an
// exported replay is one HTML file. The records are YokaiTable.to_record() and TableEvent.
const Yokai = (() => {
  const SEAT = ["#2f6fd6", "#25a35a", "#d9822b", "#8e44ad"];
  const COLOUR = { red: "#d64541", green: "#4caf50", blue: "#4285f4", purple: "#9c27b0", null: "#8a8a8a" };
  const C = { floor: "#fbfaf6", line: "#e4e0d6", text: "#222", caption: "#f1efe8", mark: "#111" };
  const CAPTION = 22, LINE = 14;

  function cellSize(k) {
    return Math.max(14, Math.min(48, Math.floor(520 / Math.max(1, k))));
  }

  function text(ctx, s, x, y, size, color, align) {
    ctx.fillStyle = color || C.text;
    ctx.font = `bold ${size}px sans-serif`;
    ctx.textAlign = align || "center";
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

  function grid(ctx, k, S) {
    ctx.fillStyle = C.floor;
    ctx.fillRect(0, 0, k * S, k * S);
    ctx.strokeStyle = C.line; ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i <= k; i++) {
      ctx.moveTo(i * S + 0.5, 0); ctx.lineTo(i * S + 0.5, k * S);
      ctx.moveTo(0, i * S + 0.5); ctx.lineTo(k * S, i * S + 0.5);
    }
    ctx.stroke();
  }

  // card: [index, row, col, colour, hint]
  function card(ctx, c, S, moved) {
    const [index, row, col, colour, hint] = c, px = col * S, py = row * S;
    ctx.fillStyle = COLOUR[colour] || COLOUR.null;
    ctx.fillRect(px + 2, py + 2, S - 4, S - 4);
    if (hint !== null && hint !== undefined) {
      ctx.fillStyle = "#fff";
      ctx.beginPath(); ctx.moveTo(px + S - 2, py + 2); ctx.lineTo(px + S - 2, py + S / 2); ctx.lineTo(px + S / 2, py + 2);
      ctx.closePath(); ctx.fill();
    }
    if (moved) { ctx.strokeStyle = C.mark; ctx.lineWidth = 3; ctx.strokeRect(px + 2, py + 2, S - 4, S - 4); }
    text(ctx, String(index), px + S / 2, py + S / 2, Math.max(8, S * 0.4), "#fff");
  }

  function captionText(table, score) {
    const hints = table ? table.hints.map((h) => `${h[0]}:${h[1].replace("_", " ")}${h[2].length ? " " + h[2].join("/") : ""}`) : [];
    return table ? `score ${score ?? ""} · player ${table.player} · ${table.phase.replace("_", " ")} · hints ${hints.join(", ") || "none"}` : "no Yōkai record in this trace line";
  }

  function captionHeight(lines) { return Math.max(CAPTION, lines.length * LINE + 8); }

  function caption(ctx, lines, width, y) {
    ctx.fillStyle = C.caption;
    ctx.fillRect(0, y, width, captionHeight(lines));
    lines.forEach((line, i) => text(ctx, line, 6, y + 4 + LINE * i + LINE / 2, 11, C.text, "left"));
  }

  function draw(canvas, board, table, events, opts) {
    opts = opts || {};
    const k = (board && board.grid_size) || 10, S = cellSize(k);
    const ctx = canvas.getContext("2d");
    const lines = wrapLines(ctx, captionText(table, opts.score), k * S - 12, 11, true);
    if (canvas.width !== k * S || canvas.height !== k * S + captionHeight(lines)) {
      canvas.width = k * S;
      canvas.height = k * S + captionHeight(lines);
    }
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    grid(ctx, k, S);
    const moved = new Set((events || []).filter((e) => e.kind === "move").map((e) => e.card));
    if (table) for (const c of table.cards || []) card(ctx, c, S, moved.has(c[0]));
    caption(ctx, lines, k * S, k * S);
  }

  return { draw, seatColor: (i) => SEAT[i % SEAT.length], wrapLines, captionText };
})();

// The finished board (table.py's Outcome): eq. 1's score, and for a lost game how many colours were
// one cluster (eq. 4's c_a of |C|; older traces lack them). Numbers only: the page escapes the note.
function gameOver(o) {
  const joined = Number.isInteger(o.clusters) && Number.isInteger(o.colours) ? `, ${o.clusters} of ${o.colours} colours joined` : "";
  return `game over: score ${o.score} (eq. 1), ${o.won ? "won" : "lost" + joined}`;
}

// The generic replay page's hooks (the contract is ReplayDrawing in proagent/world/replay.py):
// the payload's `board` and each frame's `yokai` come from proagent/domains/yokai/web/__init__.py.
const ReplayDomain = {
  notable: "moves, hints, the end",
  draw(canvas, data, frame, opts) {
    Yokai.draw(canvas, data.board, frame.yokai, frame.events, { seat: data.seat, names: opts && opts.names, score: frame.score_text });
  },
  seatColor(i) {
    return Yokai.seatColor(i);
  },
  seatStatus(frame, i) {
    const table = frame.yokai;
    if (!table) return frame.actions && i < frame.actions.length ? "" : null;
    if (frame.actions && i >= frame.actions.length) return null;
    return table.player === i ? `to play: ${table.phase.replace("_", " ")}` : "waiting";
  },
  horizon(frame) {
    return frame.yokai ? frame.yokai.horizon : null;
  },
  eventNote(e) {
    const colours = (e.hint_colours || []).join("/");
    if (e.kind === "move") return `moved card ${e.card} to (${e.target[0]}, ${e.target[1]})`;
    if (e.kind === "reveal") return `revealed hint ${e.hint} (${colours})`;
    if (e.kind === "place") return `placed hint ${e.hint} (${colours}) on card ${e.card}`;
    if (e.kind === "end") return "ended the game";
    if (e.kind === "game_over" && e.outcome) return gameOver(e.outcome);
    return null;
  },
};
