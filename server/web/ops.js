// The operations page: ListVariants and GetStats over the HTTP API, build facts, plots rendered by the
// server (games/plots.py, the same as `python -m builder.report --html`), live rates from the metrics.
import { api, ApiError, token, tokenForm } from "./api.js";
import { el } from "./prompt.js";
import { buildingText } from "./building.js";

const $ = (s) => document.querySelector(s);
// Jotto's figures shown in the table (all of them are in GetStats)
const MAIN_FIGURES = ["guarantee", "value_lower", "value_upper", "value_gap", "epsilon", "epsilon_hider", "epsilon_guesser", "hider_vs_gbr", "self_play",
  "mean_guesses_vs_uniform", "worst_guesses", "members", "iterations", "t_star", "book_entries"];
const fmt = (x, d = 4) => (typeof x === "number" ? (Math.abs(x) >= 1000 || Number.isInteger(x) ? String(Math.round(x * 1000) / 1000) : x.toFixed(d)) : String(x));

async function get(path, as = "json") {
  const r = await fetch(path, { headers: token() ? { authorization: `Bearer ${token()}` } : {} });
  if (!r.ok) throw new ApiError(r.status, await r.json());
  return as === "json" ? r.json() : r.blob();
}

function table(label, head, rows) {
  const t = el("table");
  t.setAttribute("aria-label", label);
  const tr = el("tr");
  for (const h of head) { const th = el("th", "", h); th.scope = "col"; tr.append(th); }
  t.append(el("thead"), el("tbody"));
  t.tHead.append(tr);
  for (const r of rows) {
    const row = el("tr");
    for (const c of r) row.append(el("td", typeof c === "number" ? "num" : "", c === undefined ? "-" : fmt(c)));
    t.tBodies[0].append(row);
  }
  return t;
}

function factsTable(v, s, f) {
  const rows = [["game", v.game], ["store version", v.storeVersion], ["build time", s?.buildTime || f?.build_time],
    ["build seconds", f?.build_seconds], ["code version", s?.codeVersion || f?.code_version], ["content hash", f?.content_hash],
    ["served strategy", s?.servedStrategy]];
  if (v.words) rows.push([v.game === "guesswho" ? "candidates a player starts with" : "words", v.words]);
  if (v.dictionarySha256) rows.push(["dictionary sha256", v.dictionarySha256]);  // word games only
  if (f?.infosets) rows.push(["information sets", f.infosets]);
  if (f?.windows) rows.push(["windows (row format " + f.row_format + ", units of 1/" + f.probability_unit + ")", f.windows]);
  if (f?.memory_by_group) rows.push(["memory by dice group", f.memory_by_group.map(([a, b, m]) => `${a}v${b} ${m}`).join(", ")]);
  if (f?.certified) {  // the game's value bracket: read beside the greedy-oracle epsilons, which only bound it
    const c = f.certified;
    rows.push(["value bracket (certified)", `[${fmt(c.lower, 6)}, ${fmt(c.upper, 6)}] ${c.kind}, gap ${fmt(c.upper - c.lower, 6)}`],
      ["value bracket: lower end", c.lower_kind], ["value bracket: upper end", c.upper_kind],
      ["value bracket: method", `${c.method} (strategy ${c.guesser}${c.rounds ? ", " + c.rounds + " rounds" : ""}, ${fmt(c.cpu_seconds, 1)} CPU s)`]);
  } else if (v.game === "jotto") {  // say so, lest an epsilon near 0 against greedy oracles read as "solved"
    rows.push(["value bracket (certified)", "not certified in this store: its epsilons are against greedy oracles " +
      "(lower bounds on the true epsilon); the full profile's stores (make build-stores) state a certified bracket"]);
  }
  if (f?.parameters) rows.push(["parameters", JSON.stringify(f.parameters)]);
  if (f?.build) rows.push(["build", JSON.stringify(f.build)]);
  const t = table(`Build facts of ${v.variant}`, ["fact", "value"], rows.filter((r) => r[1] !== undefined && r[1] !== ""));
  t.className = "facts";
  return t;
}

async function plot(box, variant, name) {
  const fig = el("figure");
  const img = el("img");
  img.alt = `${name} plot of ${variant}`;
  img.dataset.plot = name;
  fig.append(img, el("figcaption", "", name.replace("_", " ")));
  box.append(fig);
  img.src = URL.createObjectURL(await get(`/ops/plot/${encodeURIComponent(variant)}/${name}.svg`, "blob"));
  await img.decode();
}

const WATCH_MS = 5000;
let rendered = null;   // the served variants and versions the page shows

function buildingLine(building) {
  const line = $("#building");
  line.textContent = buildingText(building);
  line.hidden = !building.length;
}

// every few seconds: what is still being built, and the stores published (or swapped) since the page rendered
async function watch() {
  try {
    const { variants: vs, building } = await api("ListVariants");
    buildingLine(building || []);
    if (vs.map((v) => `${v.variant}@${v.storeVersion}`).join() !== rendered) await variants();
  } catch (e) {
    if (e instanceof ApiError && (e.http === 401 || e.http === 403)) return;  // the token form takes over
  }
  setTimeout(watch, WATCH_MS);
}

async function variants() {
  const [{ variants: vs, building }, stats, facts, plots] = await Promise.all([api("ListVariants"), api("GetStats"),
    get("/ops/facts.json"), get("/ops/plots.json")]);
  rendered = vs.map((v) => `${v.variant}@${v.storeVersion}`).join();
  buildingLine(building || []);
  const byName = Object.fromEntries((stats.variants || []).map((s) => [s.variant, s]));
  const root = $("#variants");
  root.replaceChildren(...(vs.length ? [] : [el("p", "note", "No store is served yet.")]));
  const pending = [];
  for (const v of vs) {
    const s = byName[v.variant], sec = el("section", "variant");
    sec.id = `v-${v.variant}`;
    sec.setAttribute("aria-label", v.variant);
    sec.append(el("h3", "", v.variant), factsTable(v, s, facts[v.variant]));
    const box = el("div", "plots");
    sec.append(box);
    for (const name of plots[v.variant] || []) pending.push(plot(box, v.variant, name));
    const strategies = s?.strategies || [];
    const unit = (k) => strategies.map((r) => r.units?.[k]).find(Boolean);
    const named = (k) => (unit(k) ? `${k} (${unit(k)})` : k);
    if (v.game === "dudo") {
      const rows = strategies.map((r) => [r.strategy.replace("round ", ""), r.figures[r.headline], r.headlineKind,
        servedCell(r), r.labels.br_kind || "-", r.figures.exploitability,
        r.figures.improved_exploitability, r.figures.improved_stderr,
        r.figures.value, r.labels.memory || r.figures.memory, r.figures.iterations, r.figures.train_seconds]);
      sec.append(table(`Rounds of ${v.variant}`, ["round (opener v other)",
        "headline: the round's figure (win probability, both seats summed)", "its kind", "served (the figures are of)",
        "best response (of the exploitability column)", "exploitability", "perfect-recall improvement (sampled lower bound)",
        "its standard error", "value (the opener's win probability)", "memory (claims)", "iterations", "train s"], rows));
    } else if (strategies.length) {
      const all = [...new Set(strategies.flatMap((r) => Object.keys(r.figures)))].sort();
      const keys = all.length > 10 ? MAIN_FIGURES.filter((k) => all.includes(k)) : all;
      const names = strategies.map((r) => r.strategy + (r.strategy === s.servedStrategy ? " (served)" : ""));
      const headline = (r) => (r.headline ? `${r.headline} = ${fmt(r.figures[r.headline])}` : "-");
      if (keys.length > 8) {  // many figures: one row each, a column per strategy, so the table fits the page
        sec.append(table(`Strategies of ${v.variant}`, ["figure", ...names],
          [["headline", ...strategies.map(headline)], ["its kind", ...strategies.map((r) => r.headlineKind)],
            ...keys.map((k) => [named(k), ...strategies.map((r) => r.figures[k])])]));
      } else {
        sec.append(table(`Strategies of ${v.variant}`, ["strategy", "headline", "its kind", ...keys.map(named)],
          strategies.map((r, i) => [names[i], headline(r), r.headlineKind, ...keys.map((k) => r.figures[k])])));
      }
      if (strategies.some((r) => r.figures.epsilon_guesser < 0)) {
        sec.append(el("p", "note", "A negative epsilon_guesser: the greedy response (GBR) needs more guesses against "
          + "that strategy's hider than the strategy's own guesser mixture does, so GBR is a weak oracle there. Each "
          + "epsilon here is a lower bound on the true one (the greedy oracle finds some, not all, of the gain); "
          + "epsilon is their maximum, at least 0."));
      }
    }
    sec.append(el("p", "note", "Headline: the one figure that says how good the strategy (a Dudo round: its served "
      + "policy) is; its kind: exact, a lower bound (and which responder found it) or not measured. Every figure, "
      + "unit and kind is defined in the glossary (docs/glossary.md of the repository, the documentation site's Glossary page)."));
    root.append(sec);
  }
  await Promise.all(pending);
  document.body.dataset.ready = "1";
}

// a round's served policy, and where the figures beside it are the stored rows' rather than the served policy's
// (a searched round's rows_figures label), which of them
function servedCell(r) {
  const served = r.labels.served || "-";
  return r.labels.rows_figures ? `${served}; ${r.labels.rows_figures}` : served;
}

let last = null;
async function live() {
  const now = await get("/ops/metrics.json");
  $("#live-flush").textContent = now.flush_seconds;
  // rates need two readings some time apart: none on the first one, nor on two taken at once
  const dt = last && now.time - last.time >= 0.5 ? now.time - last.time : null;
  $("#live-window").textContent = dt ? `the last ${dt.toFixed(1)} s` : "the next reading (every 2 s)";
  const sum = (o) => Object.values(o || {}).reduce((a, b) => a + b, 0);
  const rate = (a, b) => (dt ? ((a - b) / dt).toFixed(2) : "-");
  const calls = $("#live-calls tbody");
  calls.replaceChildren(...Object.keys(now.calls).sort().map((m) => {
    const c = now.calls[m], p = last?.calls[m] || {};
    const errs = sum(c) - (c.OK || 0), perrs = sum(p) - (p.OK || 0);
    const tr = el("tr");
    for (const x of [m, rate(sum(c), sum(p)), rate(errs, perrs), sum(c), errs]) tr.append(el("td", "", String(x)));
    return tr;
  }));
  const moves = $("#live-moves tbody");
  moves.replaceChildren(...Object.keys(now.moves).sort().map((v) => {
    const c = now.moves[v], p = last?.moves[v] || {};
    const n = sum(c), dn = n - sum(p), db = (c.book || 0) - (p.book || 0);
    const tr = el("tr");
    for (const x of [v, rate(n, sum(p)), dt && dn ? `${((100 * db) / dn).toFixed(1)}%` : "-",
      n ? `${((100 * (c.book || 0)) / n).toFixed(1)}%` : "-", n]) tr.append(el("td", "", String(x)));
    return tr;
  }));
  if (!last || dt) last = now;
  document.body.dataset.live = String(Number(document.body.dataset.live || 0) + 1);
}

async function init() {
  try {
    await variants();
    await live();
    setInterval(() => live().catch(report), 2000);
    setTimeout(watch, WATCH_MS);
  } catch (e) { report(e); }
}

function report(e) {
  if (e instanceof ApiError && (e.http === 401 || e.http === 403)) { tokenForm($("main"), init); $("#status").textContent = e.message; return; }
  $("#status").textContent = `Error: ${e.message}`;
  console.error(e);
}

init();
