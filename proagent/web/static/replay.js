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
    return `<div class="row"><span class="chip" style="background:${ReplayDomain.seatColor(i)}"></span>` +
      `<b>player ${i}</b> ${esc(d.names[i])}: skill <b>${esc(skill || "–")}</b>${think}, action ${esc(action)}` +
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
    const late = dec.step !== null && dec.step !== undefined ? ` (asked at step ${dec.step})` : "";
    return `<b>decision${late}:</b> ${esc(dec.skill)}${dec.fallback ? " (fallback: wait)" : ""}, ` +
      `${dec.llm_calls} LLM call(s), ${dec.llm_latency_s.toFixed(2)} s${tries.join("")}`;
  }

  function beliefHtml(b) {
    if (!b) return "";
    const cls = b.correct ? "ok" : "reject";
    return `<b>belief correction:</b> <span class="${cls}">predicted “${esc(b.predicted)}” at step ${b.predicted_at}, ` +
      `teammate did ${esc(b.actual)} ${b.correct ? "✓" : "✗"}</span>`;
  }

  function render() {
    const d = state.data, f = d.frames[state.index];
    ReplayDomain.draw($("scene"), d, f, { names: d.names.map((n, i) => (i === d.seat ? "AI" : n === "human" ? "H" : "P")) });
    $("score").textContent = f.score;
    $("step").textContent = `step ${f.step} / ${ReplayDomain.horizon(f) || d.config.horizon || "?"}${f.final ? " (end)" : ""}`;
    $("players").innerHTML = d.names.map((_, i) => playerLine(f, i)).join("");
    $("analysis").textContent = f.analysis || "–";
    $("intention").textContent = f.intention || "–";
    $("decision").innerHTML = decisionHtml(f.decision);
    $("belief").innerHTML = beliefHtml(f.belief);
    $("events").innerHTML = f.events.length ? "<b>events:</b> " + f.events.map((e) => `player ${e.agent} ${esc(e.kind)}`).join(", ") : "";
    $("scrub").value = state.index;
    $("pos").textContent = `frame ${state.index + 1}/${d.frames.length}`;
    drawChart();
  }

  function drawChart() {
    const canvas = $("chart"), ctx = canvas.getContext("2d"), frames = state.data.frames;
    const w = canvas.width, h = canvas.height, max = Math.max(20, ...frames.map((f) => f.score));
    ctx.clearRect(0, 0, w, h);
    ctx.strokeStyle = "#2f6fd6"; ctx.lineWidth = 2; ctx.beginPath();
    frames.forEach((f, i) => {
      const x = (i / Math.max(1, frames.length - 1)) * (w - 10) + 5, y = h - 5 - (f.score / max) * (h - 20);
      i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
    });
    ctx.stroke();
    const cx = (state.index / Math.max(1, frames.length - 1)) * (w - 10) + 5;
    ctx.strokeStyle = "#c00"; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(cx, 0); ctx.lineTo(cx, h); ctx.stroke();
    ctx.fillStyle = "#555"; ctx.font = "11px sans-serif"; ctx.fillText(`score over time (max ${max})`, 8, 12);
  }

  function timeline() {
    const items = [];
    state.data.frames.forEach((f, i) => {
      const rejected = f.decision ? f.decision.attempts.filter((a) => a.failures.length || a.parse_error).length : 0;
      if (rejected) items.push([i, `step ${f.step}: ${rejected} rejected plan(s), chose ${f.decision.skill}`, "reject"]);
      if (f.belief) items.push([i, `step ${f.step}: belief ${f.belief.correct ? "confirmed" : "corrected"} (${f.belief.actual})`, f.belief.correct ? "ok" : "reject"]);
      for (const e of f.events) {
        const note = ReplayDomain.eventNote(e);
        if (note) items.push([i, `step ${f.step}: player ${e.agent} ${note}`, "ok"]);
      }
    });
    $("timeline").innerHTML = items.map(([i, t, c]) => `<div class="${c}" data-i="${i}">${esc(t)}</div>`).join("") || '<span class="muted">nothing notable</span>';
    for (const el of $("timeline").children) if (el.dataset.i) el.onclick = () => seek(+el.dataset.i);
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
  }

  function show(data) {
    state.data = data;
    state.index = 0;
    $("title").textContent = `${data.title} · ${data.layout} · ${data.names.map((n, i) => `player ${i}: ${n}`).join(", ")}`;
    $("episode").innerHTML = data.episodes.map((label, i) => `<option value="${i}" ${i === data.episode ? "selected" : ""}>${esc(label)}</option>`).join("");
    $("episode").disabled = !!window.REPLAY_DATA;
    $("scrub").max = data.frames.length - 1;
    $("metrics").innerHTML = metricsHtml(data.metrics);
    $("metrics").classList.toggle("hidden", !$("metrics").innerHTML);
    $("notable").textContent = ReplayDomain.notable ? `, ${ReplayDomain.notable}` : "";
    timeline();
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
