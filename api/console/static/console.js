// dicecall console: plain JS, no dependencies. Text goes in with textContent only.
"use strict";

// drafts: faces typed into an alert's correction box, by alert, so that a refresh of the
// list (a live event may come in while the officer types) does not lose them.
// refusals: the service's last refusal of an action on an alert, kept across redraws so a
// live event does not wipe it before the officer has read it.
const S = { me: null, tab: null, tables: [], labelRoll: null, dice: [], sel: 0, es: null,
            drafts: {}, refusals: {} };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined)
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

async function api(method, path, body) {
  const headers = {};
  if (method !== "GET") headers["X-CSRF-Token"] = S.me ? S.me.csrf : "";
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = r.headers.get("content-type")?.includes("json") ? await r.json() : null;
  if (!r.ok) {
    const err = new Error(data?.message || `${r.status}`);
    err.status = r.status; err.code = data?.code; throw err;
  }
  return data;
}

const fmtTime = (t) => t ? new Date(t * 1000).toLocaleString() : "";
const cents = (c) => (c / 100).toFixed(2);
// When the table's dice must be changed (24 h: 623a.7(d), 668a.3(b)(1), 675a.3(b)(1)).
const DUE_TEXT = { ok: (d) => `dice due by ${fmtTime(d.deadline)}`,
  due_soon: (d) => `dice change due by ${fmtTime(d.deadline)}`,
  overdue: (d) => `DICE OVERDUE since ${fmtTime(d.deadline)}`, no_set: () => "no dice set recorded" };
const diceBadge = (d) => d ? el("span", { class: `pill dice-due ${d.status}`, "data-status": d.status },
  `${DUE_TEXT[d.status](d)} (${d.section})`) : null;
const faces = (r) => (r.final_faces || r.faces || []).join(" ");
const toInput = (t) => { const d = new Date(t * 1000 - new Date().getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 16); };
const fromInput = (v) => v ? new Date(v).getTime() / 1000 : null;

function toast(text) {
  const t = $("toast"); t.textContent = text; t.hidden = false;
  clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

// ---- login and tabs
async function start() {
  try { S.me = await api("GET", "/console/api/me"); } catch (e) { return showLogin(); }
  $("login").hidden = true; $("tabs").hidden = false;
  $("who").replaceChildren(`${S.me.name} (${S.me.role}) `,
    el("button", { id: "logout", on: { click: logout } }, "Log out"));
  const tabs = [...document.querySelectorAll("#tabs button")];
  for (const b of tabs) {
    b.hidden = !b.dataset.roles.split(" ").includes(S.me.role);
    b.onclick = () => show(b.dataset.tab);
  }
  listen();
  show(tabs.find((b) => !b.hidden).dataset.tab);
  if (S.me.role !== "labeler") refreshAlerts();
}

function showLogin() { $("login").hidden = false; $("tabs").hidden = true; }

$("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try { await api("POST", "/console/api/login", { token: $("token").value }); $("token").value = "";
    start(); } catch (e) { $("login-error").textContent = e.message; }
});

async function logout() { await api("POST", "/console/api/logout"); location.reload(); }

function show(tab) {
  S.tab = tab;
  for (const s of document.querySelectorAll("section.tab")) s.hidden = s.id !== tab;
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === tab);
  ({ grid: refreshGrid, history: initHistory, alerts: refreshAlerts, labels: refreshQueue,
     fairness: initFairness, admin: () => {} })[tab]();
}

// ---- live events: a mismatch or a held roll shows at once
function listen() {
  if (S.es) S.es.close();
  S.es = new EventSource(`/console/api/events?after=${S.me.last_event_id}`);
  // Alerts refresh at once; ordinary rolls at most every 500 ms (a busy floor is a flood).
  const run = () => { if (S.me.role !== "labeler") refreshAlerts();
    if (S.tab === "grid") refreshGrid();
    if (S.tab === "labels") refreshQueue(); };
  const refresh = (urgent) => {
    if (listen.t) { if (!urgent) return; clearTimeout(listen.t); }
    const wait = urgent ? 20 : Math.max(20, (listen.last || 0) + 500 - Date.now());
    listen.t = setTimeout(() => { listen.t = null; listen.last = Date.now(); run(); }, wait);
  };
  for (const k of ["roll", "settlement", "no_roll", "labels_saved"])
    S.es.addEventListener(k, () => refresh(false));
  // A correction (a void settles nothing) or a dealer call compared again changes alerts.
  for (const k of ["review", "correction", "dealer_call_rechecked", "alert_action"])
    S.es.addEventListener(k, () => refresh(true));
  S.es.addEventListener("dealer_call_mismatch", (m) => {
    const d = JSON.parse(m.data); toast(`Dealer call mismatch: ${d.data.detail}`); refresh(true); });
  S.es.addEventListener("needs_review", (m) => {
    const d = JSON.parse(m.data); toast(`Roll needs review: ${d.data.roll_id.slice(0, 8)}`); refresh(true); });
}

// ---- table grid
function evidenceImg(r, cls) {
  const ev = r.evidence || {};
  const sha = ev.annotated_stored ? ev.annotated_sha256 : ev.clean_stored ? ev.clean_sha256 : null;
  return sha ? el("img", { class: cls, src: `/console/api/evidence/${sha}`, alt: "evidence frame" })
    : el("div", { class: cls + " noimg" }, "no frame posted");
}

async function refreshGrid() {
  S.tables = await api("GET", "/console/api/tables");
  $("grid-cards").replaceChildren(...S.tables.map((t) => {
    const r = t.last_roll;
    return el("div", { class: "card" + (t.open_alerts ? " alerting" : ""), "data-table": t.id },
      el("h3", {}, t.name, el("small", {}, ` ${t.game} round ${t.round}`)),
      t.open_alerts ? el("p", { class: "error" }, `${t.open_alerts} open alert(s)`) : null,
      el("p", {}, diceBadge(t.dice)),
      r ? [el("p", { class: "faces", "data-roll": r.roll_id, "data-seq": r.seq }, faces(r)),
           el("p", {}, el("span", { class: "pill " + r.status }, r.status), ` ${r.verdict} `,
              r.settlement ? `paid ${cents(r.settlement.paid)} collected ${cents(r.settlement.collected)}` : ""),
           evidenceImg(r, "frame"), el("p", { class: "small" }, fmtTime(r.received_at))]
        : el("p", {}, "no rolls yet"));
  }));
}

// ---- history
function tableOptions(sel) {
  const keep = sel.value;
  sel.replaceChildren(...S.tables.map((t) => el("option", { value: t.id }, t.name)));
  if (keep) sel.value = keep;
}

async function initHistory() {
  S.tables = await api("GET", "/console/api/tables");
  tableOptions($("history-table"));
  if (!$("history-start").value) $("history-start").value = toInput(Date.now() / 1000 - 8 * 3600);
  searchHistory();
}

async function searchHistory(ev) {
  if (ev) ev.preventDefault();
  const id = $("history-table").value; if (!id) return;
  const p = new URLSearchParams({ q: $("history-q").value });
  const s = fromInput($("history-start").value), e = fromInput($("history-end").value);
  if (s) p.set("start", s); if (e) p.set("end", e);
  const ask = S.historyAsk = (S.historyAsk || 0) + 1;  // only the latest search is shown
  const h = await api("GET", `/console/api/tables/${id}/rolls?${p}`);
  if (ask !== S.historyAsk) return;
  $("history-count").textContent = `${h.matched} of ${h.total_rolls} rolls`;
  $("history-rows").replaceChildren(...h.rolls.map((r) => el("tr", {},
    el("td", {}, r.arrival), el("td", {}, fmtTime(r.received_at)), el("td", {}, r.verdict),
    el("td", {}, el("span", { class: "pill " + r.status }, r.status)), el("td", {}, r.faces.join(" ")),
    el("td", {}, (r.final_faces || []).join(" ")),
    el("td", {}, r.settlement ? `${cents(r.settlement.paid)} / ${cents(r.settlement.collected)}` : ""),
    el("td", {}, r.reasons.map((x) => `${x.code} ${x.section}`).join(", ")),
    el("td", {}, r.review ? `${r.review.action} by ${r.review.by}` : ""))));
}
$("history-form").addEventListener("submit", searchHistory);

// ---- alerts
async function refreshAlerts() {
  const list = await api("GET", `/console/api/alerts?handled=${$("alerts-handled").checked}`);
  if (!S.fairAt || Date.now() - S.fairAt > 60000) {  // the server recomputes once a minute
    S.fair = await api("GET", "/console/api/fairness-alerts"); S.fairAt = Date.now(); }
  $("alert-count").textContent = S.fair.length + list.filter((a) => a.open).length;
  if (S.tab !== "alerts") return;
  // The redraw replaces the correction box the officer may be typing in: give the new box
  // the focus and the caret back, or the next keys go nowhere (the draft text is kept).
  const box = document.activeElement;
  const ref = box && box.matches("#alert-list input.correct-faces")
    ? box.closest(".card.alert").dataset.ref : null;
  const caret = ref ? [box.selectionStart, box.selectionEnd] : null;
  $("alert-list").replaceChildren(...S.fair.map(fairCard), ...list.map(alertCard));
  if (ref === null) return;
  const again = [...$("alert-list").querySelectorAll(".card.alert")]
    .find((c) => c.dataset.ref === ref)?.querySelector("input.correct-faces");
  if (again) { again.focus(); again.setSelectionRange(...caret); }
}

function fairCard(f) {
  const open = () => { S.fairTable = f.table_id; S.fairSet = f.dice_set ? f.dice_set.id : "";
    show("fairness"); };
  const set = f.dice_set ? `, dice set ${f.dice_set.label}` : "";
  return el("div", { class: "card alert fairness", "data-table": f.table_id, "data-set": f.dice_set?.id || "" },
    el("h3", {}, "Dice fairness", el("small", {}, ` ${f.table}${set} since ${fmtTime(f.start)}`)),
    el("p", {}, f.biased.map((b) => `${b.label} biased (p = ${b.p_value.toPrecision(3)})`).join(", "),
       ` over ${f.rolls} rolls at alpha ${f.alpha}: take the dice out of play and inspect them (${f.section}).`),
    el("div", { class: "actions" }, el("button", { class: "open-fairness", on: { click: open } }, "Open fairness")));
}
$("alerts-handled").addEventListener("change", refreshAlerts);

function alertCard(a) {
  // The service offers Correct and No roll for a held roll, and for a settled one while it
  // is the table's latest change (623a.9(c)); it decides again when one is pressed.
  const r = a.roll, held = r.status === "held", decide = held || a.correctable;
  const input = el("input", { class: "correct-faces", placeholder: "faces e.g. 2 5", size: 10,
                              value: S.drafts[a.ref] || null,
                              on: { input: () => { S.drafts[a.ref] = input.value; } } });
  const msg = el("span", { class: "error refusal", role: "alert" }, S.refusals[a.ref] || "");
  const go = async (action) => {
    const body = { action, note: "" };
    if (action === "correct") body.faces = input.value.trim().split(/[\s,]+/).map(Number);
    try { await api("POST", `/console/api/alerts/${a.kind}/${a.ref}`, body);
      delete S.drafts[a.ref]; delete S.refusals[a.ref]; refreshAlerts(); }
    catch (e) {
      const why = e.status === 409 ? `Refused (${e.code}): ${e.message}` : e.message;
      S.refusals[a.ref] = msg.textContent = why; toast(why);
      if (e.status === 409) refreshAlerts();  // the offer was stale: redraw without it
    }
  };
  return el("div", { class: "card alert " + a.kind, "data-ref": a.ref, "data-roll": r.roll_id },
    el("h3", {}, a.kind === "dealer_call" ? "Dealer call mismatch" : "Needs review",
       el("small", {}, ` ${a.table || a.table_id} ${fmtTime(a.at)}`)),
    el("p", {}, a.detail),
    // A review decided other faces since the call: say what it was compared with first.
    a.original_detail && a.original_detail !== a.detail
      ? el("p", { class: "small original" }, `when called: ${a.original_detail}`) : null,
    el("p", {}, "camera: ", el("b", {}, r.faces.join(" ")), ` status `,
       el("span", { class: "pill " + r.status }, r.status),
       r.settlement ? ` settled ${r.final_faces.join(" ")}: paid ${cents(r.settlement.paid)}, collected ${cents(r.settlement.collected)}` : ""),
    evidenceImg(r, "frame"),
    a.actions.length ? el("p", { class: "small" }, a.actions.map((x) => `${x.action} by ${x.by}`).join("; ")) : null,
    el("div", { class: "actions" },
      el("button", { class: "ack", on: { click: () => go("acknowledge") } }, "Acknowledge"),
      el("button", { class: "confirm", on: { click: () => go("confirm") } }, held ? "Confirm camera" : "Camera right"),
      decide ? [input, el("button", { class: "correct", on: { click: () => go("correct") } }, "Correct faces"),
              el("button", { class: "void", on: { click: () => go("no_roll") } }, "No roll")] : null,
      msg));
}

// ---- admin
$("token-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try { const t = await api("POST", "/console/api/tokens", { name: $("token-name").value, role: $("token-role").value });
    $("token-out").textContent = `token for ${t.name} (${t.role}), shown once:\n${t.token}`; }
  catch (e) { $("token-out").textContent = e.message; }
});

// After every script of the page has run (labels.js defines the labeling screen).
window.addEventListener("DOMContentLoaded", start);
