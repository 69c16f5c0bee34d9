// dicecall console: the labeling screen (uses S, $, el, api from console.js).
"use strict";

async function refreshQueue() {
  const q = await api("GET", "/console/api/labels/queue");
  $("labels-status").textContent = `${q.length} frame(s) to label`;
  $("label-queue").replaceChildren(...q.map((r) => el("li", { "data-roll": r.roll_id,
    class: S.labelRoll?.roll_id === r.roll_id ? "on" : "", on: { click: () => openLabel(r) } },
    `${r.roll_id.slice(0, 8)} ${faces(r)} - ${r.why.join(", ")}`)));
}
$("labels-refresh").addEventListener("click", refreshQueue);

async function openLabel(r) {
  S.labelRoll = r; S.sel = 0;
  const old = await api("GET", `/console/api/labels/${r.roll_id}`);
  const base = r.final_faces || r.faces;
  S.dice = old.length ? old.map((d) => ({ ...d }))
    : base.map((f) => ({ face: f, cocked: false, stacked: false, outside: false, box: null }));
  $("label-editor").hidden = false;
  $("label-title").textContent = `Roll ${r.roll_id} (${r.why.join(", ")})`;
  $("label-img").src = `/console/api/evidence/${r.evidence.clean_sha256}`;
  $("label-msg").textContent = "";
  renderDice();
}

function renderDice() {
  $("label-dice").replaceChildren(...S.dice.map((d, k) => {
    const chk = (key) => el("input", { type: "checkbox", class: key, checked: d[key],
      on: { change: (e) => { d[key] = e.target.checked; } } });
    const face = el("select", { class: "face", on: { change: (e) => { d.face = +e.target.value; renderBoxes(); } } },
      [1, 2, 3, 4, 5, 6].map((f) => el("option", { value: f, selected: f === d.face }, f)));
    return el("tr", { class: k === S.sel ? "on" : "", "data-die": k, on: { click: () => selectDie(k) } },
      el("td", {}, `die ${k + 1}`), el("td", {}, face), el("td", {}, chk("cocked")),
      el("td", {}, chk("stacked")), el("td", {}, chk("outside")),
      el("td", { class: "small" }, d.box ? d.box.map(Math.round).join(",") : "draw it"),
      el("td", {}, el("button", { on: { click: (e) => { e.stopPropagation(); S.dice.splice(k, 1);
        S.sel = 0; renderDice(); } } }, "remove")));
  }));
  renderBoxes();
}

function selectDie(k) {  // no re-render: a click on a checkbox must keep its change
  S.sel = k;
  for (const tr of $("label-dice").children) tr.classList.toggle("on", +tr.dataset.die === k);
  renderBoxes();
}

function renderBoxes() {
  const img = $("label-img"), svg = $("label-boxes");
  const w = img.naturalWidth || 1, h = img.naturalHeight || 1;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const ns = "http://www.w3.org/2000/svg";
  svg.replaceChildren(...S.dice.flatMap((d, k) => {
    if (!d.box) return [];
    const r = document.createElementNS(ns, "rect"), t = document.createElementNS(ns, "text");
    const [x0, y0, x1, y1] = d.box;
    Object.entries({ x: x0, y: y0, width: x1 - x0, height: y1 - y0, class: k === S.sel ? "sel" : "" })
      .forEach(([a, v]) => r.setAttribute(a, v));
    t.setAttribute("x", x0); t.setAttribute("y", Math.max(y0 - 4, 12)); t.textContent = `${k + 1}: ${d.face}`;
    return [r, t];
  }));
}
$("label-img").addEventListener("load", renderBoxes);

(function drawing() {
  const stage = $("label-stage"); let from = null;
  const pt = (e) => { const img = $("label-img"), b = img.getBoundingClientRect();
    return [(e.clientX - b.left) * img.naturalWidth / b.width, (e.clientY - b.top) * img.naturalHeight / b.height]; };
  stage.addEventListener("mousedown", (e) => { if (S.dice[S.sel]) { from = pt(e); e.preventDefault(); } });
  stage.addEventListener("mousemove", (e) => { if (!from) return; const p = pt(e);
    S.dice[S.sel].box = [Math.min(from[0], p[0]), Math.min(from[1], p[1]), Math.max(from[0], p[0]), Math.max(from[1], p[1])];
    renderBoxes(); });
  window.addEventListener("mouseup", () => { if (from) { from = null; renderDice(); } });
})();

$("label-add").addEventListener("click", () => {
  S.dice.push({ face: 1, cocked: false, stacked: false, outside: false, box: null });
  S.sel = S.dice.length - 1; renderDice(); });

$("label-save").addEventListener("click", async () => {
  if (S.dice.some((d) => !d.box)) { $("label-msg").textContent = "draw a box for every die"; return; }
  const dice = S.dice.map(({ face, cocked, stacked, outside, box }) => ({ face, cocked, stacked, outside, box }));
  try { await api("PUT", `/console/api/labels/${S.labelRoll.roll_id}`, { dice });
    $("label-msg").textContent = "saved"; refreshQueue(); }
  catch (e) { $("label-msg").textContent = e.message; }
});

