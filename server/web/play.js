// The play page: variants from ListVariants, one game at a time per tab.
import { api, ApiError, tokenForm } from "./api.js";
import { Log, Prompt } from "./prompt.js";
import { Jotto } from "./jotto.js";
import { Dudo } from "./dudo.js";
import { Hangman } from "./hangman.js";
import { buildingText } from "./building.js";

const $ = (s) => document.querySelector(s);
const status = $("#status");
const games = {
  jotto: new Jotto($("#jotto"), new Log($("#jotto-log")), new Prompt($("#jotto-prompt"))),
  dudo: new Dudo($("#dudo"), new Log($("#dudo-log")), new Prompt($("#dudo-prompt"))),
  hangman: new Hangman($("#hangman"), new Log($("#hangman-log")), new Prompt($("#hangman-prompt"))),
};
const GAMES = Object.keys(games);

function report(e) {
  if (e?.message === "abandoned") return;
  if (e instanceof ApiError && (e.http === 401 || e.http === 403)) {
    tokenForm($("main"), init);
    status.textContent = e.message;
    return;
  }
  status.textContent = `Error: ${e.message}`;
  console.error(e);
}

function tab(name) {
  for (const g of GAMES) {
    const on = g === name;
    $(`#tab-${g}`).setAttribute("aria-selected", on);
    $(`#tab-${g}`).tabIndex = on ? 0 : -1;
    $(`#${g}`).hidden = !on;
  }
  history.replaceState(null, "", `#${name}`);
}

for (const g of GAMES) $(`#tab-${g}`).addEventListener("click", () => tab(g));
$(".tabs").addEventListener("keydown", (ev) => {
  if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
    const now = GAMES.findIndex((g) => $(`#tab-${g}`).getAttribute("aria-selected") === "true");
    const next = GAMES[(now + (ev.key === "ArrowRight" ? 1 : GAMES.length - 1)) % GAMES.length];
    tab(next);
    $(`#tab-${next}`).focus();
  }
});

const MAX_SEED = (1n << 64n) - 1n;

// The game seed as a decimal string (the API's uint64), or null after saying what is wrong with it: a number
// input reads 1e30 and 1.5 as numbers, which would round or fail in the parser.
function seedOf(input) {
  if (input.value === "") input.value = String(Math.floor(Math.random() * 1e6));
  const text = input.value.trim();
  if (!/^\d+$/.test(text) || BigInt(text) > MAX_SEED) {
    status.textContent = `The seed ${JSON.stringify(input.value)} is not a whole number from 0 to ${MAX_SEED}: type one, `
      + "or leave it empty for a random one.";
    input.focus();
    return null;
  }
  status.textContent = "";
  return BigInt(text).toString();
}

// New game: the variant, the level where the game has one (Jotto's, Hangman's strategy), the seed.
for (const g of GAMES) {
  $(`#${g}-setup`).addEventListener("submit", (ev) => {
    ev.preventDefault();
    const seed = seedOf($(`#${g}-seed`));
    if (seed === null) return;
    const level = $(`#${g}-level`);
    games[g].p.clear();
    games[g].newGame($(`#${g}-variant`).value, ...(level ? [level.value] : []), seed).catch(report);
  });
}

const BUILDING_POLL_MS = 5000;

function buildingLine(building) {
  const line = $("#building");
  line.textContent = buildingText(building);
  line.hidden = !building.length;
}

function fillVariants(variants, first) {
  for (const g of GAMES) {
    const sel = $(`#${g}-variant`);
    const vs = variants.filter((v) => v.game === g).map((v) => v.variant);
    const have = [...sel.options].map((o) => o.value);
    if (!first && have.join() === vs.join()) continue;
    const kept = sel.value;
    sel.replaceChildren(...vs.map((v) => new Option(v, v)));
    const wanted = g === "jotto" ? vs.find((v) => v.includes("-5-")) : null;
    if (kept && vs.includes(kept) && !(first && wanted)) sel.value = kept;
    else if (wanted) sel.value = wanted;
    $(`#${g}-new`).disabled = !vs.length;
    $(`#${g}-new`).title = vs.length ? "" : `the service serves no ${g} variant yet`;
  }
}

let polling = null;

async function init() {
  try {
    const { variants, building } = await api("ListVariants", {});
    fillVariants(variants, true);
    buildingLine(building || []);
    if (building?.length && polling === null) polling = setTimeout(poll, BUILDING_POLL_MS);
    document.body.dataset.ready = "1";
  } catch (e) { report(e); }
}

// while a build runs beside the server: its line, and the variants it publishes, every few seconds
async function poll() {
  polling = null;
  try {
    const { variants, building } = await api("ListVariants", {});
    fillVariants(variants, false);
    buildingLine(building || []);
    if (building?.length) polling = setTimeout(poll, BUILDING_POLL_MS);
  } catch (e) {
    polling = setTimeout(poll, BUILDING_POLL_MS);  // a restart or a blip: try again
  }
}

tab(GAMES.find((g) => location.hash === `#${g}`) || "jotto");
for (const g of Object.values(games)) g.p.idle("Choose a variant and press New game to start.");
init();
