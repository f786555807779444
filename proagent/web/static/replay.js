"use strict";
// The replay page: plays an episode back frame by frame from the payload of
// proagent/web/replay_data.py (inlined as window.REPLAY_DATA in an export, else fetched).
// It knows no world: the run's domain script (/replay/domain.js, loaded before this one) defines
// ReplayDomain, which draws a frame and words seats and events (see ReplayDrawing in replay_data.py).
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { data: null, index: 0, playing: false, timer: null };
  window.replay = state; // for tests and the console

  function esc(text) {
    return String(text ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  function playerLine(frame, i) {
    const d = state.data, status = ReplayDomain.seatStatus(frame, i);
    if (status === null || status === undefined) return "";
    const isAgent = i === d.seat;
    const skill = isAgent ? frame.skill : frame.partner_skill;
    const action = frame.actions ? frame.actions[i] : "–";
    const think = isAgent && frame.thinking ? ' <span class="muted">(thinking…)</span>' : "";
    return `<div class="row"><span class="chip" style="background:${esc(ReplayDomain.seatColor(i))}"></span>` +
      `<b>player ${esc(i)}</b> ${esc(d.names[i])}: skill <b>${esc(skill || "–")}</b>${think}, action ${esc(action)}` +
      `${status ? ", " + esc(status) : ""}</div>`;
  }

  // The episode's own outcomes (record.domain_metrics), whatever the domain counts.
  function metricsHtml(metrics) {
    const names = Object.keys(metrics || {});
    return names.length ? "<b>episode:</b> " + names.map((k) => `${esc(k.replaceAll("_", " "))} ${esc(metrics[k])}`).join(", ") : "";
  }

  function decisionHtml(dec) {
    if (!dec) return "";
    const tries = dec.attempts.map((a) => {
      if (a.parse_error) return `<div class="reject">✗ unreadable answer: ${esc(a.parse_error)}</div>`;
      if (a.failures.length) {
        const why = a.explanation ? ` — ${esc(a.explanation)}` : "";
        return `<div class="reject">✗ Verificator rejected ${esc(a.plan)}: ${esc(a.failures.join("; "))}${why}</div>`;
      }
      return `<div class="ok">✓ ${esc(a.plan)}</div>`;
    });
    const loops = (dec.loops || []).map((l) => `<div class="reject">⟲ ${esc(loopText(l))}</div>`);
    const late = dec.step !== null && dec.step !== undefined ? ` (asked at step ${esc(dec.step)})` : "";
    return `<b>decision${late}:</b> ${esc(dec.skill)}${dec.fallback ? " (fallback: wait)" : ""}, ` +
      `${esc(dec.llm_calls)} LLM call(s), ${esc(Number(dec.llm_latency_s).toFixed(2))} s${loops.join("")}${tries.join("")}`;
  }

  // Every LLM teammate's reasoning (the trace's team_decisions): its analysis and predicted
  // intention, carried forward like the agent's own, and this step's decision when it made one.
  function teamHtml(f) {
    const seats = Object.keys(f.team || {});
    return seats.map((seat) => {
      const t = f.team[seat], dec = (f.team_decisions || {})[seat];
      return `<div class="row"><b>player ${esc(seat)} (${esc(state.data.names[+seat] || "teammate")}) analysis:</b> ` +
        `<span class="muted">${esc(t.analysis || "–")}</span><br><b>its predicted intention:</b> ` +
        `<span class="muted">${esc(t.intention || "–")}</span>${dec ? "<br>" + decisionHtml(dec) : ""}</div>`;
    }).join("");
  }

  // The messages of the cognitive phase before this step (payload.lanes), each in full: sender,
  // receivers, kind and text, not only in the lanes' hover tips.
  function messagesHtml(i) {
    const step = state.data.lanes && state.data.lanes.steps[i];
    const messages = (step && step.messages) || [];
    if (!messages.length) return "";
    return "<b>messages:</b>" + messages.map((m) => {
      const to = (m.to || []).filter((x) => x !== null && x !== undefined).join(", ") || "all";
      return `<div>player ${esc(m.from)} → ${esc(to)} (${esc(m.kind)}): “${esc(m.text)}”</div>`;
    }).join("");
  }

  // An undo loop the guard caught (agent/loops.py), in words: what would repeat, and what undid it.
  function loopText(l) {
    const what = l.blocked ? "blocked" : "counted only (loop check off)";
    return `loop caught: ${l.skill} again would repeat step ${l.since_step}'s choice, undone by ${l.undone_by.join(", ") || "–"}; ${what}`;
  }

  function beliefHtml(b) {
    if (!b) return "";
    const cls = b.correct ? "ok" : "reject";
    return `<b>belief correction:</b> <span class="${cls}">predicted “${esc(b.predicted)}” at step ${esc(b.predicted_at)}, ` +
      `teammate did ${esc(b.actual)} ${b.correct ? "✓" : "✗"}</span>`;
  }

  function render() {
    const d = state.data, f = d.frames[state.index];
    ReplayDomain.draw($("scene"), d, f, { names: d.names.map((n, i) => (i === d.seat ? "AI" : n === "human" ? "H" : "P")) });
    $("score").textContent = f.score_text ?? f.score;
    $("step").textContent = `step ${f.step} / ${ReplayDomain.horizon(f) || d.config.horizon || "?"}${f.final ? " (end)" : ""}`;
    $("players").innerHTML = d.names.map((_, i) => playerLine(f, i)).join("");
    $("analysis").textContent = f.analysis || "–";
    $("intention").textContent = f.intention || "–";
    $("decision").innerHTML = decisionHtml(f.decision);
    $("team").innerHTML = teamHtml(f);
    $("messages").innerHTML = messagesHtml(state.index);
    $("legend").textContent = ReplayDomain.legend ? ReplayDomain.legend(d) || "" : "";
    $("belief").innerHTML = beliefHtml(f.belief);
    $("events").innerHTML = f.events.length ? "<b>events:</b> " + f.events.map((e) => `player ${esc(e.agent)} ${esc(e.kind)}`).join(", ") : "";
    $("scrub").value = state.index;
    $("pos").textContent = `frame ${state.index + 1}/${d.frames.length}`;
    drawChart();
    markLanes();
  }

  function drawChart() {
    // The axis spans this episode's own scores (0 included): worlds score on different scales, and
    // some (step costs) go below 0. The label gives that span as the page writes scores.
    const canvas = $("chart"), ctx = canvas.getContext("2d"), frames = state.data.frames;
    const scores = frames.map((f) => f.score), lo = Math.min(0, ...scores), hi = Math.max(0, ...scores);
    const w = canvas.width, h = canvas.height, span = hi - lo || 1;
    ctx.clearRect(0, 0, w, h);
    ctx.strokeStyle = "#2f6fd6"; ctx.lineWidth = 2; ctx.beginPath();
    frames.forEach((f, i) => {
      const x = (i / Math.max(1, frames.length - 1)) * (w - 10) + 5, y = h - 5 - ((f.score - lo) / span) * (h - 20);
      i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
    });
    ctx.stroke();
    const cx = (state.index / Math.max(1, frames.length - 1)) * (w - 10) + 5;
    ctx.strokeStyle = "#c00"; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(cx, 0); ctx.lineTo(cx, h); ctx.stroke();
    const range = state.data.score_span ? `${state.data.score_span[0]} to ${state.data.score_span[1]}` : `${lo} to ${hi}`;
    ctx.fillStyle = "#555"; ctx.font = "11px sans-serif"; ctx.fillText(`score over time (${range})`, 8, 12);
  }

  // A failed act (a push that did not move its block, a collection the quorum missed) is drawn as a
  // failure, never in the colour of success: the world says which (ReplayDomain.eventFailed), else
  // its event kinds that end in "_failed" are the failures.
  function eventFailed(e) {
    return ReplayDomain.eventFailed ? !!ReplayDomain.eventFailed(e) : /_failed$/.test(String(e.kind));
  }

  // A clocked run's decisions (payload frames' clock marks): when each was asked and when it landed.
  function clockText(step, m) {
    const cost = `${m.tokens_in + m.tokens_out} tokens` + (m.wall_s != null ? `, ${m.wall_s.toFixed(2)} s` : "");
    if (m.mark === "asked") return `step ${step}: ⏱ decision asked, lands at step ${m.lands} (${m.steps} steps; ${cost})`;
    return `step ${step}: ⏱ decision landed${m.skill ? `: ${m.skill}` : ""}, read the world of step ${m.based_on} (${m.steps} steps stale; ${cost})`;
  }

  function timeline() {
    const items = [];
    state.data.frames.forEach((f, i) => {
      const rejected = f.decision ? f.decision.attempts.filter((a) => a.failures.length || a.parse_error).length : 0;
      if (rejected) items.push([i, `step ${f.step}: ${rejected} rejected plan(s), chose ${f.decision.skill}`, "reject"]);
      for (const l of f.decision ? f.decision.loops || [] : []) items.push([i, `step ${f.step}: ⟲ ${loopText(l)}`, "reject loop"]);
      for (const [seat, dec] of Object.entries(f.team_decisions || {})) {
        const bad = dec.attempts.filter((a) => a.failures.length || a.parse_error).length;
        if (bad) items.push([i, `step ${f.step}: player ${seat}: ${bad} rejected plan(s), chose ${dec.skill}`, "reject"]);
        for (const l of dec.loops || []) items.push([i, `step ${f.step}: player ${seat}: ⟲ ${loopText(l)}`, "reject loop"]);
      }
      for (const m of f.clock || []) items.push([i, clockText(f.step, m), m.mark === "landed" && m.steps ? "reject" : "ok"]);
      if (f.belief) items.push([i, `step ${f.step}: belief ${f.belief.correct ? "confirmed" : "corrected"} (${f.belief.actual})`, f.belief.correct ? "ok" : "reject"]);
      for (const e of f.events) {
        const note = ReplayDomain.eventNote(e);
        if (note) items.push([i, `step ${f.step}: player ${e.agent} ${note}`, eventFailed(e) ? "reject" : "ok"]);
      }
    });
    $("timeline").innerHTML = items.map(([i, t, c]) => `<div class="${esc(c)}" data-i="${esc(i)}">${esc(t)}</div>`).join("") || '<span class="muted">nothing notable</span>';
    for (const el of $("timeline").children) if (el.dataset.i) el.onclick = () => seek(+el.dataset.i);
  }

  // ---- The three-lane trace (payload.lanes, present when the trace has MAEIL cognition or
  // cooperation constraints): cognition and messages, primitive actions, constraint satisfaction.
  // Column i is frame i; hover a cell for its details, click it to jump there.
  const STAGES = { R: ["reasoning", "#5b8def"], X: ["executing", "#3aa55d"], W: ["waiting", "#c6c6c6"], I: ["interrupted", "#e0533d"] };
  const PLAN_COLORS = { new: "#111", replanned: "#e08a00", resumed: "#fff" };
  const MESSAGE_COLORS = { say: "#8e44ad", directive: "#1f3a93", request: "#b5651d", ack: "#16a085" };
  const LANE = { label: 118, row: 18, top: 2 };
  const lanes = { cell: 8, label: LANE.label, row: LANE.row, top: LANE.top };
  state.lanes = lanes; // the geometry (cell width set to fit the episode), for tests

  function stageColor(name) { return (STAGES[name] || [name, "#999"])[1]; }
  function messageColor(kind) { return MESSAGE_COLORS[kind] || "#555"; }
  function actionColor(name) {
    let h = 0;
    for (const c of String(name)) h = (h * 31 + c.charCodeAt(0)) % 360;
    return `hsl(${h}, 45%, 72%)`;
  }
  function seatLabel(seat) {
    const names = state.data.names, name = names[+seat];
    return `player ${seat}${name ? " " + name : ""}`;
  }
  function fmtMs(ms) { return ms >= 100 ? `${Math.round(ms)} ms` : `${(+ms).toFixed(2)} ms`; }

  // The third lane's rows: the constraints, then capability change ΔZ: one row per agent where the
  // trace records each agent's items and tools gained or lost (lanes.capability), else one row.
  const DZ = "ΔZ";
  function dzRows() {
    const L = state.data.lanes;
    return L.capability ? L.seats.map((seat) => `${DZ} ${seat}`) : [DZ];
  }
  function laneRows(kind) {
    const L = state.data.lanes;
    if (kind === "constraints") return [...L.constraints, ...dzRows()];
    return L.seats;
  }
  function dzSeat(row) { return row.startsWith(`${DZ} `) ? row.slice(DZ.length + 1) : null; }
  function changeWords(delta) {
    return Object.entries(delta || {}).map(([item, n]) => `${n > 0 ? "+" : "−"}${Math.abs(n)} ${String(item).replaceAll("_", " ")}`);
  }

  function cellX(i) { return LANE.label + i * lanes.cell; }
  function rowY(r) { return LANE.top + r * LANE.row; }

  function sizeCanvas(canvas, rows) {
    const n = state.data.lanes.steps.length;
    canvas.width = LANE.label + n * lanes.cell + 2;
    canvas.height = LANE.top * 2 + rows * LANE.row;
  }

  function drawLabels(ctx, rows, label) {
    ctx.fillStyle = "#333"; ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
    rows.forEach((r, k) => ctx.fillText(label(r).slice(0, 20), 4, rowY(k) + LANE.row / 2));
  }

  function drawCognition(canvas) {
    const L = state.data.lanes, ctx = canvas.getContext("2d"), w = lanes.cell - 1, seats = L.seats;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    drawLabels(ctx, seats, seatLabel);
    const rowOf = (seat) => seats.indexOf(String(seat));
    L.steps.forEach((s, i) => {
      const x0 = cellX(i);
      seats.forEach((seat, k) => {
        const path = s.stages[seat];
        if (!path || !path.length) return;
        const total = path.reduce((a, p) => a + p[1], 0), min = Math.min(2, w / path.length);
        let x = x0;
        for (const [name, ms] of path) {
          const width = min + (w - min * path.length) * (total > 0 ? ms / total : 1 / path.length);
          ctx.fillStyle = stageColor(name);
          ctx.fillRect(x, rowY(k) + 3, width, LANE.row - 6);
          x += width;
        }
      });
      for (const m of s.messages) {
        const from = rowOf(m.from), x = x0 + m.at * w;
        if (from < 0) continue;
        ctx.strokeStyle = ctx.fillStyle = messageColor(m.kind); ctx.lineWidth = 1;
        for (const to of m.to) {
          const k = rowOf(to);
          if (k < 0 || k === from) continue;
          const y0 = rowY(from) + LANE.row / 2, y1 = rowY(k) + LANE.row / 2, dir = y1 > y0 ? 1 : -1;
          ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.stroke();
          ctx.beginPath(); ctx.moveTo(x, y1); ctx.lineTo(x - 2.5, y1 - 4 * dir); ctx.lineTo(x + 2.5, y1 - 4 * dir); ctx.fill();
        }
        ctx.beginPath(); ctx.arc(x, rowY(from) + LANE.row / 2, 2, 0, 2 * Math.PI); ctx.fill();
      }
      for (const p of s.plans) {
        const k = rowOf(p.agent), x = x0 + p.at * w, y = rowY(k) + 3;
        if (k < 0) continue;
        ctx.fillStyle = PLAN_COLORS[p.outcome] || "#111"; ctx.strokeStyle = "#111"; ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(x, y - 2); ctx.lineTo(x + 3, y + 2); ctx.lineTo(x, y + 6); ctx.lineTo(x - 3, y + 2); ctx.closePath();
        ctx.fill(); ctx.stroke();
      }
    });
  }

  function drawActions(canvas) {
    const L = state.data.lanes, ctx = canvas.getContext("2d"), frames = state.data.frames, w = lanes.cell - 1;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    drawLabels(ctx, L.seats, seatLabel);
    L.steps.forEach((_, i) => {
      const f = frames[i];
      if (!f || !f.actions) return;
      L.seats.forEach((seat, k) => {
        const action = f.actions[+seat];
        if (action === undefined || action === null) return;
        ctx.fillStyle = actionColor(action);
        ctx.fillRect(cellX(i), rowY(k) + 2, w, LANE.row - 4);
        if (lanes.cell >= 16) {
          ctx.fillStyle = "#222"; ctx.font = "9px sans-serif"; ctx.textBaseline = "middle";
          ctx.fillText(String(action).slice(0, Math.floor(lanes.cell / 6)), cellX(i) + 1, rowY(k) + LANE.row / 2);
        }
        if (notableEvents(f, seat).length) {
          ctx.fillStyle = "#111"; ctx.beginPath(); ctx.arc(cellX(i) + w - 2.5, rowY(k) + 4.5, 2, 0, 2 * Math.PI); ctx.fill();
        }
      });
    });
  }

  function seatEvents(frame, seat) { return (frame.events || []).filter((e) => String(e.agent) === String(seat)); }
  function notableEvents(frame, seat) {
    const note = typeof ReplayDomain.eventNote === "function" ? ReplayDomain.eventNote : () => null;
    return seatEvents(frame, seat).map(note).filter((n) => n);
  }

  function drawConstraints(canvas) {
    const L = state.data.lanes, ctx = canvas.getContext("2d"), w = lanes.cell - 1, names = L.constraints;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    drawLabels(ctx, [...names, ...dzRows()], (r) => (r === DZ ? "capability ΔZ" : dzSeat(r) !== null ? `ΔZ ${seatLabel(dzSeat(r))}` : r));
    L.steps.forEach((s, i) => {
      const x = cellX(i);
      names.forEach((name, k) => {
        const c = s.constraints[name], y = rowY(k) + 2, h = LANE.row - 4;
        if (!c) { ctx.fillStyle = "#f0f0f0"; ctx.fillRect(x, y, w, h); return; }
        ctx.fillStyle = c[1] === 0 ? "#3aa55d" : c[0] === 0 ? "#d64541" : "#f0a202";
        ctx.fillRect(x, y, w, h);
        if (s.failures[name]) {
          ctx.strokeStyle = "#111"; ctx.lineWidth = 1.5;
          ctx.beginPath(); ctx.moveTo(x + 1, y + 1); ctx.lineTo(x + w - 1, y + h - 1); ctx.moveTo(x + w - 1, y + 1); ctx.lineTo(x + 1, y + h - 1); ctx.stroke();
        }
      });
      // gains above the row's axis, losses below; `most` units fill half a row
      const bar = (k, units, up, most = 3) => {
        const mid = rowY(k) + LANE.row / 2, h = Math.min(most, Math.abs(units)) * ((LANE.row / 2 - 2) / most);
        ctx.fillStyle = up ? "#3aa55d" : "#d64541";
        ctx.fillRect(x, up ? mid - h : mid, w, h);
      };
      if (L.capability) {
        L.seats.forEach((seat, j) => {
          const units = Object.values((s.changes || {})[seat] || {});
          const gained = units.filter((n) => n > 0).reduce((a, n) => a + n, 0), lost = units.filter((n) => n < 0).reduce((a, n) => a - n, 0);
          if (gained) bar(names.length + j, gained, true, 2);
          if (lost) bar(names.length + j, lost, false, 2);
        });
      } else if (s.dz) bar(names.length, s.dz, s.dz > 0);
    });
    ctx.strokeStyle = "#ccc"; ctx.lineWidth = 1; ctx.beginPath();
    dzRows().forEach((_, j) => {
      const y = rowY(names.length + j) + LANE.row / 2;
      ctx.moveTo(LANE.label, y); ctx.lineTo(canvas.width, y);
    });
    ctx.stroke();
  }

  const LANES = [["lane-cognition", "seats", drawCognition, cognitionTip], ["lane-actions", "seats", drawActions, actionTip],
    ["lane-constraints", "constraints", drawConstraints, constraintTip]];

  function cognitionTip(i, seat) {
    const s = state.data.lanes.steps[i], lines = [`step ${s.step} · ${seatLabel(seat)}`];
    const path = s.stages[seat];
    if (path) lines.push(path.map(([n, ms]) => `${n} (${(STAGES[n] || [n])[0]}) ${fmtMs(ms)}`).join(" → "));
    lines.push(`cognitive phase ${fmtMs(s.ms)}${s.after[seat] ? `, then ${s.after[seat]}` : ""}`);
    for (const p of s.plans.filter((p) => String(p.agent) === seat)) lines.push(`plan ${p.plan} (${p.outcome})`);
    for (const b of s.interrupts.filter((b) => String(b.agent) === seat)) lines.push(`interrupted${b.cause !== null && b.cause !== undefined ? " by player " + b.cause : ""}`);
    for (const m of s.messages) {
      if (String(m.from) === seat) lines.push(`→ ${m.to.join(", ")} [${m.kind}] ${m.text}`);
      else if (m.to.map(String).includes(seat)) lines.push(`← ${m.from} [${m.kind}] ${m.text}`);
      else continue;
      if (m.feedback) lines.push(`  [environment feedback] ${m.feedback}`);
    }
    return lines;
  }

  function actionTip(i, seat) {
    const f = state.data.frames[i], events = seatEvents(f, seat);
    const lines = [`step ${f.step} · ${seatLabel(seat)}`, `action ${f.actions ? f.actions[+seat] : "–"}`];
    if (events.length) lines.push("events: " + events.map((e) => e.kind).join(", "));
    const notes = notableEvents(f, seat);
    if (notes.length) lines.push(notes.join(", "));
    return lines;
  }

  function taskLine(t) {
    const result = t.outcome ? t.outcome.replaceAll("_", " ") : "not attempted";
    const blame = t.attributed ? `, failure attributed to ${t.attributed}` : "";
    const counts = Object.entries(t.counts || {}).map(([k, v]) => `${k} ${v}`).join(", ");
    return `task ${t.task}: ${result}${blame}; ✓ ${t.sat.join(", ") || "–"}; ✗ ${t.viol.join(", ") || "–"}` +
      `${counts ? ` (agents: ${counts})` : ""}${t.dz ? `, ΔZ ${t.dz > 0 ? "+" : ""}${t.dz}` : ""}`;
  }

  function constraintTip(i, row) {
    const s = state.data.lanes.steps[i];
    const seat = dzSeat(row);
    if (seat !== null) {
      const words = changeWords((s.changes || {})[seat]);
      return [`step ${s.step} · ${seatLabel(seat)} · capability change ΔZ`, words.length ? words.join(", ") : "no item or tool gained or lost"];
    }
    if (row === DZ) return [`step ${s.step} · capability change ΔZ ${s.dz > 0 ? "+" : ""}${s.dz}`, ...s.tasks.filter((t) => t.dz).map(taskLine)];
    const c = s.constraints[row], lines = [`step ${s.step} · ${row}`];
    if (!c) return [...lines, "no task attempted or worked on"];
    lines.push(`satisfied in ${c[0]} task(s), violated in ${c[1]}`);
    if (s.failures[row]) lines.push(`${s.failures[row]} failed attempt(s) attributed to ${row}`);
    return [...lines, ...s.tasks.map(taskLine)];
  }

  function laneHit(canvas, e) {
    const r = canvas.getBoundingClientRect();
    const x = (e.clientX - r.left) * (canvas.width / r.width), y = (e.clientY - r.top) * (canvas.height / r.height);
    const i = Math.floor((x - LANE.label) / lanes.cell), row = Math.floor((y - LANE.top) / LANE.row);
    return x < LANE.label || i < 0 || i >= state.data.lanes.steps.length ? null : { i, row };
  }

  function laneLegend() {
    const chip = (color, text, border) => `<span class="chip" style="background:${esc(color)}${border ? ";border:1px solid #111" : ""}"></span>${esc(text)}`;
    const L = state.data.lanes;
    return [
      ...L.stage_names.map((n) => chip(stageColor(n), `${n} ${(STAGES[n] || [n])[0]}`)),
      ...Object.entries(PLAN_COLORS).map(([k, c]) => chip(c, `plan ${k}`, true)),
      ...Object.entries(MESSAGE_COLORS).map(([k, c]) => chip(c, k)),
      chip("#3aa55d", "satisfied"), chip("#f0a202", "mixed"), chip("#d64541", "violated"), "✗ failure attributed",
      ...(L.capability ? ["ΔZ: ▲ items/tools gained, ▼ lost"] : []),
    ].join(" &nbsp; ");
  }

  function drawLanes() {
    const L = state.data.lanes;
    if (!L) return;
    const n = L.steps.length, avail = Math.max(200, $("lanes-scroll").clientWidth - LANE.label - 4);
    lanes.cell = Math.max(6, Math.min(40, Math.floor(avail / Math.max(1, n))));
    for (const [id, rows, draw] of LANES) {
      const canvas = $(id);
      sizeCanvas(canvas, laneRows(rows).length);
      draw(canvas);
    }
    markLanes();
  }

  // The current step: the lanes are redrawn whole only when the episode or the size changes; the
  // marker lives on an overlay drawn over a copy of each lane.
  function markLanes() {
    const L = state.data.lanes;
    if (!L) return;
    for (const [id] of LANES) {
      const canvas = $(id), mark = $(id + "-mark");
      mark.width = canvas.width; mark.height = canvas.height;
      const ctx = mark.getContext("2d");
      ctx.clearRect(0, 0, mark.width, mark.height);
      if (state.index < L.steps.length) {
        ctx.fillStyle = "rgba(204, 0, 0, 0.12)"; ctx.fillRect(cellX(state.index) - 1, 0, lanes.cell + 1, mark.height);
        ctx.strokeStyle = "#c00"; ctx.lineWidth = 2; ctx.strokeRect(cellX(state.index) - 1, 1, lanes.cell + 1, mark.height - 2);
      }
    }
    const scroll = $("lanes-scroll"), x = cellX(Math.min(state.index, L.steps.length - 1));
    if (x < scroll.scrollLeft || x + lanes.cell > scroll.scrollLeft + scroll.clientWidth) {
      scroll.scrollLeft = Math.max(0, x - scroll.clientWidth / 2);
    }
  }

  function wireLanes() {
    const tip = $("lane-tip");
    for (const [id, rows, , tipOf] of LANES) {
      const mark = $(id + "-mark");
      mark.onclick = (e) => {
        const hit = state.data.lanes && laneHit(mark, e);
        if (hit) { setPlaying(false); seek(hit.i); }
      };
      mark.onmousemove = (e) => {
        const hit = state.data.lanes && laneHit(mark, e), names = hit && laneRows(rows);
        if (!hit || hit.row < 0 || hit.row >= names.length) { tip.classList.add("hidden"); return; }
        tip.innerHTML = tipOf(hit.i, names[hit.row]).map((t) => `<div>${esc(t)}</div>`).join("");
        tip.style.left = `${Math.min(e.clientX + 14, window.innerWidth - 380)}px`;
        tip.style.top = `${e.clientY + 14}px`;
        tip.classList.remove("hidden");
      };
      mark.onmouseleave = () => tip.classList.add("hidden");
    }
    window.addEventListener("resize", () => state.data && drawLanes());
  }

  function showLanes(data) {
    $("lanes").classList.toggle("hidden", !data.lanes);
    if (!data.lanes) return;
    $("lanes-legend").innerHTML = laneLegend();
    drawLanes();
  }

  function seek(i) {
    state.index = Math.max(0, Math.min(state.data.frames.length - 1, i));
    render();
  }

  function setPlaying(on) {
    state.playing = on;
    $("play").textContent = on ? "❚❚" : "▶";
    clearInterval(state.timer);
    if (on) {
      state.timer = setInterval(() => {
        if (state.index >= state.data.frames.length - 1) return setPlaying(false);
        seek(state.index + 1);
      }, 1000 / +$("speed").value);
    }
  }

  function wire() {
    $("first").onclick = () => seek(0);
    $("last").onclick = () => seek(state.data.frames.length - 1);
    $("back").onclick = () => { setPlaying(false); seek(state.index - 1); };
    $("fwd").onclick = () => { setPlaying(false); seek(state.index + 1); };
    $("play").onclick = () => setPlaying(!state.playing);
    $("speed").onchange = () => state.playing && setPlaying(true);
    $("scrub").oninput = (e) => seek(+e.target.value);
    $("chart").onclick = (e) => {
      const r = e.target.getBoundingClientRect();
      seek(Math.round(((e.clientX - r.left) / r.width) * (state.data.frames.length - 1)));
    };
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "SELECT") return;
      if (e.key === " ") { e.preventDefault(); setPlaying(!state.playing); }
      else if (e.key === "ArrowRight") { e.preventDefault(); setPlaying(false); seek(state.index + 1); }
      else if (e.key === "ArrowLeft") { e.preventDefault(); setPlaying(false); seek(state.index - 1); }
    });
    $("episode").onchange = (e) => load(+e.target.value);
    wireLanes();
  }

  function show(data) {
    state.data = data;
    state.index = 0;
    $("title").textContent = `${data.title} · ${data.layout} · ${data.names.map((n, i) => `player ${i}: ${n}`).join(", ")}`;
    $("episode").innerHTML = data.episodes.map((label, i) => `<option value="${esc(i)}" ${i === data.episode ? "selected" : ""}>${esc(label)}</option>`).join("");
    $("episode").disabled = !!window.REPLAY_DATA;
    $("scrub").max = data.frames.length - 1;
    $("metrics").innerHTML = metricsHtml(data.metrics);
    $("metrics").classList.toggle("hidden", !$("metrics").innerHTML);
    $("notable").textContent = ReplayDomain.notable ? `, ${ReplayDomain.notable}` : "";
    timeline();
    showLanes(data);
    render();
    document.body.dataset.ready = "1";
  }

  async function load(episode) {
    setPlaying(false);
    const query = episode === undefined ? "" : `?episode=${episode}`;
    const res = await fetch(`/api/replay${query}`);
    const data = await res.json();
    if (!res.ok) { $("title").textContent = data.error; return; }
    show(data);
  }

  wire();
  if (window.REPLAY_DATA) show(window.REPLAY_DATA);
  else load(new URLSearchParams(location.search).get("episode") ?? undefined);
})();
