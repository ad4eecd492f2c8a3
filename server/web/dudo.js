// Dudo (2-player Liar's Dice, ones wild) against the served strategy; the page is the referee. The claim
// order comes from the server (games/dudo/rules.py claim_table, GET /play/rules/dudo.json); calls: SampleMove.
import { api } from "./api.js";
import { el } from "./prompt.js";
import { REVIEW_SECONDS, renderReview } from "./review.js";

const FACE = "⚀⚁⚂⚃⚄⚅";
export const showDice = (roll) => roll.map((f) => `${FACE[f - 1]} ${f}`).join("  ");
const claimStr = ([n, r]) => `${n}x${r}`;
const SHOWN = 12;  // claim buttons at most
const dice = (k) => `${k} ${k === 1 ? "die" : "dice"}`;

// A small seeded generator (mulberry32): the same seed, game and round roll the same dice.
function rng(...parts) {
  let h = 2166136261;
  for (const p of parts) for (const ch of String(p) + "|") h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Dice counting for face r: r's plus wild ones (r != 1); who loses how many when n x r is challenged
// (games/dudo/rules.py count_for and challenge_outcome).
export function countFor(roll, r) { return roll.filter((f) => f === r || (r !== 1 && f === 1)).length; }
export function challengeOutcome(n, count) {
  if (count > n) return ["challenger", count - n];
  if (count < n) return ["claimant", n - count];
  return ["challenger", 1];
}

export class Dudo {
  constructor(root, log, prompt) { this.root = root; this.log = log; this.p = prompt; this.rules = null; this.games = 0; }

  async newGame(variant, seed) {
    if (!this.rules) {
      const r = await fetch("/play/rules/dudo.json");
      this.rules = await r.json();
    }
    const m = /-(\d+)dice/.exec(variant);
    const start = Math.min(m ? +m[1] : 2, this.rules.max_dice);
    const game = this.games++;
    this.variant = variant; this.seed = seed;
    this.transcript = [];  // the rounds as AnalyzeGame takes them (docs/review.md)
    const box = this.root.querySelector("#dudo-review");
    box.hidden = true; box.replaceChildren();
    this.log.clear();
    this.log.say(`DUDO (Liar's Dice, ones wild) on ${variant}, seed ${seed}. We each start with ${dice(start)}.`);
    let you = start, me = start;
    this.show(you, me, [], null, []);
    let youOpen = await this.p.yesNo("WOULD YOU LIKE TO OPEN THE FIRST ROUND?");
    for (let rnd = 0; you > 0 && me > 0; rnd++) {
      [you, me, youOpen] = await this.round(game, rnd, you, me, youOpen);
      if (you > 0 && me > 0) {
        this.log.say(`Dice left: you ${you}, me ${me}. ${youOpen ? "You" : "I"} open the next round.`);
        await this.p.choose("The round is over.", [{ label: "Next round", value: 1, primary: true }]);
      }
    }
    this.log.say(you > 0 ? "I have no dice left: you win the game." : "You have no dice left: I win the game.",
      you > 0 ? "good" : "err");
    this.root.dataset.state = "over";
    await this.p.choose("The game is over.", [{ label: "Review this game", value: 1, primary: true }]);
    await this.review();
  }

  async review() {
    const box = this.root.querySelector("#dudo-review");
    box.hidden = false;
    box.replaceChildren(el("p", "", "Reviewing the game…"));
    const r = await api("AnalyzeGame", { variant: this.variant, dudo: this.transcript }, REVIEW_SECONDS);
    renderReview(box, r);
    this.root.dataset.state = "reviewed";
    this.p.idle("Game over: the review is below. Press New game to play again.");
  }

  show(you, me, yourRoll, myRoll, claims) {
    this.root.querySelector("#dudo-count").textContent = `You: ${dice(you)}. Me: ${dice(me)}.`;
    this.root.querySelector("#dudo-your-dice").textContent = yourRoll.length ? showDice(yourRoll) : "-";
    this.root.querySelector("#dudo-my-dice").textContent = myRoll ? showDice(myRoll) : "? ".repeat(me).trim() || "-";
    const ol = this.root.querySelector("#dudo-claims");
    ol.replaceChildren(...claims.map(([c, who]) => el("li", who === "I" ? "me" : "", `${claimStr(c)} (${who === "I" ? "me" : "you"})`)));
  }

  legal(total, history) {
    const table = this.rules.claims[String(total)];
    if (!history.length) return table;
    const last = claimStr(history[history.length - 1]);
    return table.slice(table.findIndex((c) => claimStr(c) === last) + 1);
  }

  // Your claim or dudo: the weakest claims as buttons (at most SHOWN, so that the whole prompt stays in view
  // at 5 dice each, where 60 claims are legal), any legal claim typed as NxR.
  async askClaim(total, history) {
    const legal = this.legal(total, history);
    const byName = new Map(legal.map((x) => [claimStr(x), x]));
    const shown = legal.slice(0, SHOWN);
    const range = legal.length > 1 ? `${claimStr(legal[0])} (weakest) to ${claimStr(legal[legal.length - 1])} (strongest)`
      : claimStr(legal[0] || ["-", "-"]);
    const a = await this.p.text("Your claim (NxR) or dudo:", {
      submit: "Claim", size: 6,
      hint: `Legal claims: ${legal.length}, from ${range}` + (legal.length > SHOWN
        ? `; the ${SHOWN} weakest are buttons, type any other as NxR` : "") + (history.length ? "; or dudo" : ""),
      extras: [...(history.length ? [{ label: "Dudo!", value: "dudo", name: "dudo" }] : []),
        ...shown.map((x) => ({ label: claimStr(x), value: claimStr(x), name: "claim" }))],
      check: (t) => {
        const s = t.toLowerCase().replace(/\s|\*|×/g, (ch) => (ch === " " ? "" : "x"));
        if (s === "dudo") return history.length ? null : "Nobody has claimed yet: open the round with a claim.";
        if (!/^\d+x\d+$/.test(s)) return "Type a claim as NxR (e.g. 2x5: at least two fives), or dudo.";
        return byName.has(s) ? null : `${s} is not a legal claim here: legal claims run from ${range}.`;
      },
    });
    const v = a.extra ?? a.text.toLowerCase().replace(/\s/g, "").replace(/[*×]/, "x");
    return v === "dudo" ? "dudo" : byName.get(v);
  }

  async round(game, rnd, you, me, youOpen) {
    const R = rng(this.seed, game, rnd);
    const roll = (k) => Array.from({ length: k }, () => 1 + Math.floor(R() * 6)).sort((a, b) => a - b);
    const yourRoll = roll(you), myRoll = roll(me), total = you + me;
    const history = [], claims = [];
    this.root.dataset.state = "round";
    this.log.say(`Round ${rnd + 1}: you have ${dice(you)}, I have ${me}. ${youOpen ? "You open" : "I open"}.`);
    this.log.say(`Your dice: ${showDice(yourRoll)}`);
    this.show(you, me, yourRoll, null, claims);
    const moveSeed = ((BigInt(this.seed) * 1000003n + BigInt(game) * 1009n + BigInt(rnd)) & ((1n << 63n) - 1n)).toString();
    let yourTurn = youOpen, c, actor;
    for (;;) {
      if (yourTurn) {
        c = await this.askClaim(total, history);
        actor = "you";
      } else {
        const r = await api("SampleMove", { variant: this.variant, gameSeed: moveSeed, dudo: {
          ownDice: me, opponentDice: you, roll: myRoll, requesterOpened: !youOpen,
          history: history.map(([count, face]) => ({ count, face })) } });
        c = r.move === "dudo" ? "dudo" : r.move.split("x").map(Number);
        actor = "I";
        this.log.say(`I say: ${c === "dudo" ? "DUDO!" : claimStr(c)}`, "me");
      }
      if (c === "dudo") break;
      history.push(c);
      claims.push([c, actor]);
      if (actor === "you") this.log.say(`You claim ${claimStr(c)}.`);
      this.show(you, me, yourRoll, null, claims);
      yourTurn = !yourTurn;
    }
    // the challenge, explained
    const [n, r] = history[history.length - 1];
    const youChallenge = actor === "you";
    const count = countFor(yourRoll.concat(myRoll), r);
    this.show(you, me, yourRoll, myRoll, claims);
    this.log.say(`${youChallenge ? "You challenge my" : "I challenge your"} claim ${n}x${r}.`);
    this.log.say(`Your dice: ${showDice(yourRoll)}   my dice: ${showDice(myRoll)}`);
    this.log.say(`Dice counting for ${r === 1 ? "ones" : `${r}s (ones are wild)`}: ${count}; the claim was ${n}.`);
    const [loser, k] = challengeOutcome(n, count);
    const youLose = (loser === "challenger") === youChallenge;
    this.transcript.push({ ownDice: you, opponentDice: me, roll: yourRoll, opponentRoll: myRoll, reviewedOpened: youOpen,
      claims: history.map(([count, face]) => ({ count, face })) });
    const why = count > n ? `${count} > ${n}: the challenger loses ${count} - ${n} = ${k}`
      : count < n ? `${count} < ${n}: the claimant loses ${n} - ${count} = ${k}` : "Exactly the claim: the challenger loses 1";
    const verdict = `${why} ${k === 1 ? "die" : "dice"}: ${youLose ? "you lose" : "I lose"} ${k}.`;
    this.log.say(verdict, youLose ? "err" : "good");  // your loss is not good news
    this.root.querySelector("#dudo-verdict").textContent = verdict;
    if (youLose) you = Math.max(0, you - k); else me = Math.max(0, me - k);
    this.show(you, me, yourRoll, myRoll, claims);   // the dice counts after the challenge
    this.root.dataset.state = "challenged";
    return [you, me, !youLose];
  }
}
