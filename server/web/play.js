// The play page: variants from ListVariants, one game at a time per tab.
import { api, ApiError, tokenForm } from "./api.js";
import { Log, Prompt } from "./prompt.js";
import { Jotto } from "./jotto.js";
import { Dudo } from "./dudo.js";

const $ = (s) => document.querySelector(s);
const status = $("#status");
const games = {
  jotto: new Jotto($("#jotto"), new Log($("#jotto-log")), new Prompt($("#jotto-prompt"))),
  dudo: new Dudo($("#dudo"), new Log($("#dudo-log")), new Prompt($("#dudo-prompt"))),
};

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
  for (const g of ["jotto", "dudo"]) {
    const on = g === name;
    $(`#tab-${g}`).setAttribute("aria-selected", on);
    $(`#tab-${g}`).tabIndex = on ? 0 : -1;
    $(`#${g}`).hidden = !on;
  }
  history.replaceState(null, "", `#${name}`);
}

$("#tab-jotto").addEventListener("click", () => tab("jotto"));
$("#tab-dudo").addEventListener("click", () => tab("dudo"));
$(".tabs").addEventListener("keydown", (ev) => {
  if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
    const next = $("#tab-jotto").getAttribute("aria-selected") === "true" ? "dudo" : "jotto";
    tab(next);
    $(`#tab-${next}`).focus();
  }
});

function seedOf(input) {
  if (input.value === "") input.value = String(Math.floor(Math.random() * 1e6));
  return Number(input.value);
}

$("#jotto-setup").addEventListener("submit", (ev) => {
  ev.preventDefault();
  games.jotto.p.clear();
  status.textContent = "";
  games.jotto.newGame($("#jotto-variant").value, $("#jotto-level").value, seedOf($("#jotto-seed"))).catch(report);
});
$("#dudo-setup").addEventListener("submit", (ev) => {
  ev.preventDefault();
  games.dudo.p.clear();
  status.textContent = "";
  games.dudo.newGame($("#dudo-variant").value, seedOf($("#dudo-seed"))).catch(report);
});

async function init() {
  try {
    const { variants } = await api("ListVariants", {});
    for (const g of ["jotto", "dudo"]) {
      const sel = $(`#${g}-variant`);
      const vs = variants.filter((v) => v.game === g).map((v) => v.variant);
      sel.replaceChildren(...vs.map((v) => new Option(v, v)));
      const wanted = g === "jotto" ? vs.find((v) => v.includes("-5-")) : null;
      if (wanted) sel.value = wanted;
      $(`#${g}-new`).disabled = !vs.length;
      if (!vs.length) $(`#${g}-new`).title = `the service serves no ${g} variant`;
    }
    document.body.dataset.ready = "1";
  } catch (e) { report(e); }
}

tab(location.hash === "#dudo" ? "dudo" : "jotto");
for (const g of Object.values(games)) g.p.idle("Choose a variant and press New game to start.");
init();
