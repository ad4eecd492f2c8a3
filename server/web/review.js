// "Review this game": an AnalyzeGame reply (docs/review.md) as a chart and a move list; the costliest moves
// highlighted, a click on a move shows its alternatives with their values.
import { el } from "./prompt.js";

const fmt = (x) => (x ?? 0).toFixed(3);
// a review is live work (the server's pool): its deadline, longer than a move's (a cold worker starts first)
export const REVIEW_SECONDS = 120;

// The chart: win probability (Dudo) or expected guesses (Jotto) before and after each reviewed move.
function chart(reply, dudo) {
  const pts = [];
  reply.moves.forEach((m, i) => {
    pts.push({ x: i, y: dudo ? m.before : m.bestValue, i });
    pts.push({ x: i + 0.8, y: dudo ? m.after : m.value, i });
  });
  const W = 520, H = 160, pad = 24;
  const ys = pts.map((p) => p.y);
  const lo = dudo ? 0 : 0, hi = dudo ? 1 : Math.max(1, ...ys);
  const n = Math.max(1, reply.moves.length);
  const X = (x) => pad + (x / n) * (W - 2 * pad), Y = (y) => H - pad - ((y - lo) / (hi - lo)) * (H - 2 * pad);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "review-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", dudo ? "win probability over the game" : "expected guesses over the game");
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", pts.map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  svg.append(line);
  const costly = new Set(reply.costliest || []);
  for (const p of pts.filter((_, k) => k % 2 === 1)) {
    const c = document.createElementNS(ns, "circle");
    c.setAttribute("cx", X(p.x)); c.setAttribute("cy", Y(p.y)); c.setAttribute("r", costly.has(p.i) ? 5 : 2.5);
    c.setAttribute("class", costly.has(p.i) ? "costly" : "");
    svg.append(c);
  }
  const axis = document.createElementNS(ns, "text");
  axis.setAttribute("x", 2); axis.setAttribute("y", 12);
  axis.textContent = dudo ? "win probability (0..1)" : `expected guesses (0..${hi.toFixed(1)})`;
  svg.append(axis);
  return svg;
}

export function renderReview(box, reply) {
  const dudo = reply.unit === "win probability";
  const th = Object.entries(reply.thresholds || {}).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k} ≥ ${v}`).join(", ");
  const head = el("p", "", `Accuracy ${reply.accuracy.toFixed(1)}; losses in ${reply.unit} (${th}).`);
  head.id = `${dudo ? "dudo" : "jotto"}-accuracy`;
  const legend = el("p", "note", dudo
    ? "Each move is judged by your win probability after it. p: the strategy's probability of your move; before: "
      + "your win probability under the strategy's mix; best: the move with the highest; loss = best value − after; "
      + "p of: whose probabilities p and before are (search: the searched policy's; fsicfr: the stored rows'; *: a move "
      + "the served strategy searches that the review did not: point at it for why). "
      + "The words are defined in the glossary (docs/glossary.md) and docs/review.md."
    : "Each word is judged before its answer, by the expected guesses to find the secret with it (the served hider's "
      + "secret over the words still possible), not by whether it hit: a word that named the secret by luck can "
      + "still be labelled. words: still possible before→after; guesses: expected with this word; best: the word with "
      + "the fewest; loss = guesses − best guesses. The words are defined in the glossary (docs/glossary.md) and "
      + "docs/review.md.");
  legend.classList.add("review-legend");
  const table = el("table", "review-moves");
  const cols = dudo ? ["#", "round", "move", "p", "before", "after", "best", "best value", "loss", "label", "p of"]
    : ["#", "word", "words", "guesses", "best", "best guesses", "loss", "label"];
  const tr = el("tr");
  for (const c of cols) tr.append(el("th", "", c));
  table.append(tr);
  const costly = new Set(reply.costliest || []);
  reply.moves.forEach((m, i) => {
    const cells = dudo
      ? [i + 1, (m.round ?? 0) + 1, m.move, fmt(m.probability), fmt(m.before), fmt(m.after), m.bestMove, fmt(m.bestValue), fmt(m.loss), m.label || "",
        (m.policy || "").split(": ")[0] + ((m.policy || "").includes(": ") ? "*" : "")]
      : [i + 1, m.move, `${m.before}→${m.after}`, fmt(m.value), m.bestMove, fmt(m.bestValue), fmt(m.loss),
        m.label && m.after === 0 ? `${m.label} (it named the secret)` : m.label || ""];
    const row = el("tr", costly.has(i) ? "costly" : "");
    row.dataset.move = String(i);
    row.tabIndex = 0;
    for (const c of cells) row.append(el("td", "", String(c)));
    if (dudo && m.policy) row.lastChild.title = m.policy;
    const alts = el("tr", "alternatives");
    alts.hidden = true;
    const td = el("td", "", (m.alternatives || []).map((a) => `${a.move} ${fmt(a.value)}` + (dudo ? ` (p ${fmt(a.probability)})` : "")).join(" · "));
    td.colSpan = cols.length;
    alts.append(td);
    const toggle = () => { alts.hidden = !alts.hidden; };
    row.addEventListener("click", toggle);
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter") toggle(); });
    table.append(row, alts);
  });
  const top = (reply.costliest || []).map((i) => `#${i + 1} ${reply.moves[i].move} −${fmt(reply.moves[i].loss)}`).join("; ");
  box.replaceChildren(el("h3", "", "Review"), head, legend, chart(reply, dudo), table, el("p", "", top ? `Costliest: ${top}` : "No move lost anything."));
  box.hidden = false;
}
