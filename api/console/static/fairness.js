// dicecall console: the dice fairness screen, per table and dice set (603a.13).
// Uses S, $, el, api, toast, fmtTime, diceBadge, toInput, fromInput, tableOptions from console.js.
"use strict";

const setName = (ds) => ds ? `dice set ${ds.label}` : "no dice set recorded";
const span = (a, b) => `${fmtTime(a)} to ${b ? fmtTime(b) : "now"}`;

async function initFairness() {
  S.tables = await api("GET", "/console/api/tables");
  tableOptions($("fairness-table"));
  if (S.fairTable) { $("fairness-table").value = S.fairTable; S.fairTable = null; }
  if (!$("fairness-start").value) $("fairness-start").value = toInput(Date.now() / 1000 - 8 * 3600);
  await loadSets();
  runFairness();
}

// The table's dice sets in the selector; "every set" tests each apart.
async function loadSets() {
  const id = $("fairness-table").value; if (!id) return;
  const sets = await api("GET", `/console/api/tables/${id}/dice-sets`);
  // Opening the screen and picking a table both load sets; the slower answer may be stale.
  if (id !== $("fairness-table").value) return;
  const keep = S.fairSet !== undefined ? S.fairSet : $("fairness-set").value;
  S.fairSet = undefined;
  $("fairness-set").replaceChildren(el("option", { value: "" }, "every dice set, each tested apart"),
    ...sets.map((s) => el("option", { value: s.id },
      `${s.label} (${s.in_service ? "in service since " + fmtTime(s.put_in_service_at)
        : span(s.put_in_service_at, s.retired_at)})`)));
  $("fairness-set").value = sets.some((s) => s.id === keep) ? keep : "";
  const cur = sets.find((s) => s.in_service);
  $("dice-current").replaceChildren(cur ? `in service: ${cur.label}, by ${cur.put_in_service_by} `
    : "no dice set recorded on this table", cur ? diceBadge(cur.due) : "");
}

async function runFairness(ev) {
  if (ev) ev.preventDefault();
  const id = $("fairness-table").value; if (!id) return;
  const p = new URLSearchParams();
  const s = fromInput($("fairness-start").value), e = fromInput($("fairness-end").value);
  const set = $("fairness-set").value;
  if (s) p.set("start", s); if (e) p.set("end", e); if (set) p.set("dice_set", set);
  const ask = S.fairAsk = (S.fairAsk || 0) + 1;  // only the latest request is shown
  let f;
  try { f = await api("GET", `/console/api/fairness/${id}?${p}`); if (ask !== S.fairAsk) return; }
  catch (err) { if (ask !== S.fairAsk) return; $("fairness-alert").replaceChildren(el("p", { class: "banner error" }, err.message));
    $("fairness-plot").replaceChildren(); $("fairness-rows").replaceChildren(); return; }
  $("fairness-alert").replaceChildren(
    el("p", { class: "small covers" }, `Covers ${f.sets.map((g) => `${setName(g.dice_set)} (${span(g.start, g.end)})`).join("; ")}.`),
    ...f.sets.map((g) => el("p", { class: g.alert ? "banner error" : "banner", "data-set": g.dice_set?.id || "" },
      g.alert ? `ALERT: ${setName(g.dice_set)}: ${g.biased.join(", ")} biased at alpha ${f.alpha} over ${g.rolls} rolls: take the dice out of play and inspect them (${f.section}).`
        : `${setName(g.dice_set)}: no bias found at alpha ${f.alpha} over ${g.rolls} rolls (${f.section}).`)));
  $("fairness-plot").innerHTML = f.svg; // server-built SVG, every text escaped there
  $("fairness-rows").replaceChildren(...f.sets.flatMap((g) => g.tests.map((t) => el("tr", { class: t.biased ? "biased" : "" },
    el("td", {}, g.dice_set ? g.dice_set.label : "-"), el("td", {}, t.label),
    ...t.counts.map((c) => el("td", {}, c)), el("td", {}, t.n),
    el("td", {}, t.chi2 === null ? "-" : t.chi2.toFixed(2)),
    el("td", {}, t.p_value === null ? "too few" : t.p_value.toPrecision(3))))));
}
$("fairness-form").addEventListener("submit", runFairness);
$("fairness-table").addEventListener("change", async () => { await loadSets(); runFairness(); });
// A set is tested over its whole time in service unless a range is given.
$("fairness-set").addEventListener("change", () => {
  if ($("fairness-set").value) { $("fairness-start").value = ""; $("fairness-end").value = ""; }
  runFairness(); });

$("dice-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const id = $("fairness-table").value; if (!id) return;
  try {
    const r = await api("POST", `/console/api/tables/${id}/dice-sets`, { label: $("dice-label").value });
    $("dice-label").value = "";
    toast(`Dice set ${r.dice_set.label} in service` + (r.retired ? `; ${r.retired.label} retired` : ""));
    await loadSets(); runFairness();
  } catch (e) { toast(e.message); }
});
