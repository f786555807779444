"use strict";
// The study page. Without ?id= it is the experimenter's view (start a participant, see where each is);
// with ?id= it shows the participant's next step, which the server reads from the study folder
// (/api/study/state): consent, demographics, a round (on /play), its questionnaire, the thank-you.
// Everything shown from the server is set as text (textContent), never parsed as HTML.
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const pid = params.get("id");
  const page = { state: null };
  window.studyPage = page; // for tests and the console
  const Q = pid ? "?id=" + encodeURIComponent(pid) : "";

  async function post(path, body) {
    const res = await fetch(path + Q, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
    const data = await res.json();
    $("error").textContent = res.ok ? "" : data.error;
    return res.ok ? data : null;
  }

  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }

  function show(section) {
    for (const s of ["experimenter", "consent", "demographics", "round", "questionnaire", "done"]) $(s).classList.toggle("hidden", s !== section);
    document.body.dataset.phase = section;
  }

  // ---- the experimenter ----

  async function experimenter() {
    show("experimenter");
    const res = await fetch("/api/study/participants");
    const data = await res.json();
    $("heading").textContent = data.study;
    const body = $("people").querySelector("tbody");
    body.replaceChildren();
    for (const p of data.participants) {
      const row = el("tr");
      const where = p.phase === "round" || p.phase === "questionnaire" ? `${p.phase} ${p.round}` : p.phase;
      const link = el("a", "open", { href: `/?id=${encodeURIComponent(p.id)}` });
      const cell = el("td");
      cell.append(link);
      row.append(el("td", p.id), el("td", where), el("td", `${p.done} / ${p.total}`), cell);
      body.append(row);
    }
    $("new-form").onsubmit = async (e) => {
      e.preventDefault();
      const id = $("new-id").value.trim();
      const res = await fetch("/api/study/participants", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(id ? { id } : {}) });
      const made = await res.json();
      $("new-error").textContent = res.ok ? "" : made.error;
      if (!res.ok) return;
      const url = new URL(made.url, location.href).href;
      $("new-link").replaceChildren(el("span", `participant ${made.id}: `), el("a", url, { href: url, id: "new-url" }));
      $("new-id").value = "";
      experimenter();
    };
    document.body.dataset.ready = "1";
  }

  // ---- the participant ----

  function consent(s) {
    show("consent");
    $("consent-text").textContent = s.consent;
    $("agree").onclick = async () => { if (await post("/api/study/consent", { agree: true })) next(); };
  }

  function demographics(s) {
    show("demographics");
    for (const [name, values] of Object.entries(s.choices)) {
      const select = $(name);
      select.replaceChildren(el("option", "prefer not to say", { value: "" }), ...values.map((v) => el("option", v, { value: v })));
    }
    $("demo-form").onsubmit = async (e) => {
      e.preventDefault();
      const body = {};
      for (const name of Object.keys(s.choices)) body[name] = $(name).value || null;
      if (await post("/api/study/demographics", body)) next();
    };
  }

  function round(s) {
    show("round");
    $("round-title").textContent = s.trial ? "Practice round" : `Round ${s.done + 1} of ${s.total}`;
    $("round-text").textContent = s.trial
      ? "First a practice round, to learn the controls. It is not part of the results."
      : "You will play this round with a partner. After the round you will answer a few questions about it.";
    $("play").href = "/play" + Q;
  }

  function questionnaire(s) {
    show("questionnaire");
    const q = s.questionnaire;
    $("survey-title").textContent = `About round ${s.done + 1}`;
    $("survey-intro").textContent = `How was this round? (1 = ${q.scale[0]}, ${q.scale.length} = ${q.scale[q.scale.length - 1]})`;
    const holder = $("questions");
    holder.replaceChildren();
    let fieldset = null, group = null;
    for (const item of q.questions) {
      if (item.group !== group) {
        group = item.group;
        fieldset = el("fieldset");
        fieldset.append(el("legend", group));
        holder.append(fieldset);
      }
      const box = el("div", null, { class: "q", "data-q": item.id });
      const scale = el("div", null, { class: "scale" });
      q.scale.forEach((label, i) => {
        const option = el("label");
        option.append(el("input", null, { type: "radio", name: item.id, value: i + 1, required: "" }), document.createTextNode(" " + label));
        scale.append(option);
      });
      box.append(el("div", item.text), scale);
      fieldset.append(box);
    }
    $("comment").value = "";
    $("survey").onsubmit = async (e) => {
      e.preventDefault();
      const answers = {};
      for (const item of q.questions) {
        const checked = document.querySelector(`input[name="${CSS.escape(item.id)}"]:checked`);
        if (checked) answers[item.id] = +checked.value;
      }
      if (await post("/api/study/answers", { round: s.round, answers, comment: $("comment").value })) next();
    };
    $("skip").onclick = async () => { if (await post("/api/study/answers", { round: s.round, skipped: true })) next(); };
  }

  async function next() {
    const res = await fetch("/api/study/state" + Q);
    const s = await res.json();
    if (!res.ok) { show(null); $("error").textContent = s.error; document.body.dataset.ready = "1"; return; }
    page.state = s;
    $("progress").textContent = s.total ? `${s.done} of ${s.total} rounds done` : "";
    ({ consent, demographics, round, questionnaire, done: () => show("done") })[s.phase](s);
    document.body.dataset.ready = "1";
  }

  if (pid === null) experimenter(); else next();
})();
