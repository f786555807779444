"use strict";
// The human-play page: draws the world (the domain's HumanDomain) from /api/state (polled), sends key presses to
// /api/action, and after the game shows the post-game questionnaire (/api/questionnaire).
(() => {
  const $ = (id) => document.getElementById(id);
  const KEYS = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right", " ": "interact" };
  const page = { info: null, state: null, sent: 0, surveyShown: false };
  window.humanPage = page; // for tests and the console

  // A study's round page names its participant in the query (?id=...); the plain page has none.
  const Q = location.search;
  const post = (path, body) =>
    fetch(path + Q, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });

  function labels() {
    return page.info.names.map((n, i) => (i === page.info.human_seat ? "You" : "AI"));
  }

  function render(s) {
    page.state = s;
    HumanDomain.draw($("board"), page.info, s.state, labels());
    $("score").textContent = s.score;
    $("step").textContent = `step ${s.step} / ${s.horizon}`;
    const left = s.horizon - s.step;
    $("clock").textContent = page.info.mode === "realtime" ? `${(left / page.info.fps).toFixed(0)} s left` : `${left} turns left`;
    $("skill").textContent = s.agent.skill || "–";
    $("thinking").textContent = s.agent.thinking || (s.busy && page.info.mode === "turns") ? "(thinking…)" : "";
    $("analysis").textContent = s.agent.analysis || "–";
    $("intention").textContent = s.agent.intention || "–";
    const overlay = { ready: "Press Start (or Enter) to begin", running: page.info.mode === "turns" ? "Your move" : "", error: `Stopped: ${s.error}` };
    $("overlay").textContent = overlay[s.status] ?? "";
    $("start").disabled = s.status !== "ready";
    if ((s.status === "over" || s.status === "finished") && s.record) showResult(s);
    document.body.dataset.status = s.status;
  }

  function showResult(s) {
    $("result").classList.remove("hidden");
    const outcomes = Object.entries(s.record.domain_metrics || {}).map(([k, v]) => `${v} ${k.replace("_", " ")}`).join(", ");
    $("final").textContent = `Final score ${s.record.score} (${outcomes}). Run saved in ${page.info.run}`;
    const done = s.status === "finished" || s.questionnaire_saved;
    if (page.info.next && done) { $("next").href = page.info.next; $("next").classList.remove("hidden"); }
    if (page.info.questionnaire && !s.questionnaire_saved && !page.surveyShown) {
      page.surveyShown = true;
      $("survey").classList.remove("hidden");
    }
    if (s.questionnaire_saved) {
      $("survey").classList.add("hidden");
      $("saved").textContent = "Thank you, your answers are saved. You can close this tab.";
    }
  }

  function buildSurvey(q) {
    $("survey-intro").textContent = "How was this round? (1 = " + q.scale[0] + ", " + q.scale.length + " = " + q.scale[q.scale.length - 1] + ")";
    let group = null, html = "";
    for (const item of q.questions) {
      if (item.group !== group) { html += (group ? "</fieldset>" : "") + `<fieldset><legend>${item.group}</legend>`; group = item.group; }
      const options = q.scale.map((label, i) =>
        `<label><input type="radio" name="${item.id}" value="${i + 1}" required> ${label}</label>`).join("");
      html += `<div class="q" data-q="${item.id}"><div>${item.text}</div><div class="scale">${options}</div></div>`;
    }
    $("questions").innerHTML = html + "</fieldset>";
    $("survey").onsubmit = async (e) => {
      e.preventDefault();
      const answers = {};
      for (const item of q.questions) {
        const checked = document.querySelector(`input[name="${item.id}"]:checked`);
        if (checked) answers[item.id] = +checked.value;
      }
      await submit({ answers, comment: $("comment").value });
    };
    $("skip").onclick = () => submit({ skipped: true });
  }

  async function submit(body) {
    const res = await post("/api/questionnaire", body);
    const data = await res.json();
    $("survey-error").textContent = res.ok ? "" : data.error;
  }

  async function poll() {
    try {
      const res = await fetch("/api/state" + Q);
      if (res.ok) render(await res.json());
    } catch (err) {
      $("overlay").textContent = "The game server has stopped.";
      return;
    }
    const s = page.state;
    if (s && (s.status === "error" || (s.status === "finished" && (!page.info.questionnaire || s.questionnaire_saved)))) return;
    setTimeout(poll, 100);
  }

  function onKey(e) {
    if (e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT") return;
    if (e.key === "Enter" && page.state && page.state.status === "ready") { e.preventDefault(); start(); return; }
    const action = (HumanDomain.keys || {})[e.key] || KEYS[e.key]; // a world's own keys first
    if (!action) return;
    e.preventDefault();
    if (!page.state || page.state.status !== "running") return;
    page.sent += 1;
    post("/api/action", { action });
  }

  async function start() {
    const res = await post("/api/start");
    if (res.ok && page.state) page.state.status = (await res.json()).status; // keys count at once, not from the next poll
  }

  async function main() {
    page.info = await (await fetch("/api/info" + Q)).json();
    $("title").textContent = `${page.info.layout} · you are player ${page.info.human_seat}, the agent (${page.info.agent}) player ${page.info.agent_seat} · ${page.info.mode === "realtime" ? page.info.fps + " steps/s" : "turn-based"}`;
    $("you").innerHTML = `player ${page.info.human_seat} (<span class="chip" style="background:${HumanDomain.seatColor(page.info.human_seat)}"></span>"You")`;
    if (page.info.questionnaire) buildSurvey(page.info.questionnaire);
    $("start").onclick = start;
    document.addEventListener("keydown", onKey);
    $("help").textContent = page.info.help;
    $("board").focus();
    await poll(); // the first state is drawn before the page says it is ready: Enter needs it
    document.body.dataset.ready = "1";
  }

  main();
})();
