// Jotto as Beeler's program behaves (MIT AI Memo 218), against the served strategies; the page is the
// referee (it holds the program's secret, as the terminal client does). Calls: GetWords, SampleMove.
import { api, ApiError } from "./api.js";
import { el } from "./prompt.js";
import { REVIEW_SECONDS, renderReview } from "./review.js";

const LEVELS = { equilibrium: "", people: "people", beeler: "beeler", benchmark: "benchmark" };
const U = (w) => w.toUpperCase();
const nJots = (n) => (n === 1 ? "1 JOT" : `${n} JOTS`);

// One-to-one letter matches (Beeler's rule 3): GLASS v SMILE = 2.
export function jots(a, b) {
  const c = {};
  for (const ch of b) c[ch] = (c[ch] || 0) + 1;
  let n = 0;
  for (const ch of a) if (c[ch] > 0) { c[ch]--; n++; }
  return n;
}
const sorted = (w) => [...w].sort().join("");

export class Jotto {
  constructor(root, log, prompt) {
    this.root = root; this.log = log; this.p = prompt;
    this.g = null;
  }

  async load(variant) {
    const w = await api("GetWords", { variant });
    this.variant = variant;
    this.words = w.words; this.common = w.common; this.L = w.wordLength;
    this.index = new Map(this.words.map((x, i) => [x, i]));
    this.letters = this.words.map(sorted);
  }

  // Dictionary words fitting every (word, jots); a test word itself is not the secret.
  consistent(tests, commonOnly = false) {
    const out = [];
    for (let i = 0; i < this.words.length; i++) {
      if (commonOnly && !this.common[i]) continue;
      const x = this.words[i];
      if (tests.every(([w, j]) => w !== x && jots(w, x) === j)) out.push(x);
    }
    return out;
  }

  // ------------------------------------------------------------------ panels
  refresh() {
    const g = this.g;
    const board = this.root.querySelector("#jotto-board tbody");
    board.replaceChildren();
    for (let k = 0; k < Math.max(g.tests.length, g.history.length); k++) {
      const a = g.tests[k] || ["", ""], b = g.history[k] || ["", ""];
      const tr = el("tr");
      for (const v of [U(a[0]), a[1], U(b[0]), b[1]]) tr.append(el("td", "", String(v)));
      board.append(tr);
    }
    const mine = this.consistent(g.tests, true);
    this.fill("#jotto-cands-mine", mine, `Common words that could be my word (${mine.length})`);
    const yours = g.program === null ? this.consistent(g.history) : [];
    this.fill("#jotto-cands-yours", yours, g.program === null ? `Words I think could be yours (${yours.length})`
      : "Words I think could be yours (I am not guessing any more)");
  }

  fill(sel, words, title) {
    const d = this.root.querySelector(sel);
    d.querySelector("summary").textContent = title;
    const ul = d.querySelector("ul");
    ul.replaceChildren(...words.slice(0, 2000).map((w) => el("li", "", U(w))));
  }

  // ------------------------------------------------------------------ a game
  async newGame(variant, level, seed) {
    if (variant !== this.variant) await this.load(variant);
    this.strategy = LEVELS[level];
    const secret = (await api("SampleMove", { variant, strategy: this.strategy, gameSeed: String(seed),
      jotto: { role: "HIDER", commonSecret: true } })).move;
    const g = this.g = { secret, seed, history: [], tests: [], person: null, program: null, guesses: 0, contradicted: false };
    const box = this.root.querySelector("#jotto-review");
    box.hidden = true; box.replaceChildren();
    this.log.clear();
    this.log.say(`JOTTO on ${variant}, level ${level}, seed ${seed}.`);
    this.log.say(`I HAVE A ${this.L}-LETTER WORD. THINK OF YOURS, A WORD OF MY LIST (${this.rule()}: `
      + `${this.words.length} WORDS); DON'T TELL ME. I FIND ONLY WORDS OF MY LIST.`);
    this.refresh();
    let personNext = await this.p.yesNo("WOULD YOU LIKE TO GO FIRST?");
    while (g.person === null || g.program === null) {
      if (personNext && g.person === null) {
        await this.personTurn();
        if (g.person === "won" && g.program === null) {
          if (!await this.p.yesNo("DO YOU WANT ME TO CONTINUE GUESSING YOUR WORD?")) g.program = "stopped";
        } else if (g.person === "gave up" && g.program === null) {
          if (!await this.p.yesNo("SHALL I KEEP GUESSING YOUR WORD?")) g.program = "stopped";
        }
      } else if (!personNext && g.program === null) {
        await this.programTurn();
        if (g.program !== null && g.person === null) {
          const q = g.program === "won" ? "DO YOU WANT TO CONTINUE GUESSING MY WORD?" : "DO YOU WANT TO TRY TO GUESS MY WORD?";
          if (!await this.p.yesNo(q)) {
            g.person = "stopped";
            this.log.say(`MY WORD WAS ${U(g.secret)}.`, "me");
          }
        }
      }
      personNext = !personNext;
      this.refresh();
    }
    if (g.program !== "won" && (g.contradicted || g.program === "gave up")) await this.postMortem();
    this.log.say("GAME OVER. New game: the button above.", "good");
    this.root.dataset.state = "over";
    this.p.idle("Game over. Press New game to play again.");
    this.refresh();
    const unknown = g.tests.map(([w]) => w).filter((w) => !this.index.has(w));
    if (g.tests.length && unknown.length) {   // the review values words of the list only: do not offer it
      this.p.idle(`Game over. No review: ${unknown.map(U).join(", ")} ${unknown.length === 1 ? "is" : "are"} not in `
        + "my list, and a review values words of the list only. Press New game to play again.");
    } else if (g.tests.length) {
      await this.p.choose("The game is over.", [{ label: "Review this game", value: 1, primary: true }]);
      await this.review();
      this.p.idle("Game over: the review is below. Press New game to play again.");
    }
  }

  // Your test words reviewed against this level's hider (AnalyzeGame, docs/review.md).
  async review() {
    const g = this.g, box = this.root.querySelector("#jotto-review");
    box.hidden = false;
    box.replaceChildren(el("p", "", "Reviewing your test words…"));
    try {
      const r = await api("AnalyzeGame", { variant: this.variant, strategy: this.strategy, jotto: {
        role: "GUESSER", secret: g.secret, turns: g.tests.map(([guess, jots]) => ({ guess, jots })) } }, REVIEW_SECONDS);
      renderReview(box, r);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      box.replaceChildren(el("p", "err", `No review: ${e.message}`));
    }
    this.root.dataset.state = "reviewed";
  }

  checkWord(t) {
    const w = t.toLowerCase();
    if (!/^[a-z]+$/.test(w)) return `A word is letters a-z only; "${t}" is not.`;
    if (w.length !== this.L) return `Words here have ${this.L} letters; ${U(w)} has ${w.length}.`;
    return null;
  }

  async personTurn() {
    const g = this.g;
    this.root.dataset.state = "your-test";
    for (;;) {
      const done = new Map(g.tests);
      const r = await this.p.text("YOUR TEST WORD:", {
        submit: "Test", extras: [{ label: "Give up", value: "give up", name: "give-up" }],
        hint: `A ${this.L}-letter word; I answer its jots (letters in common with my word).`,
        check: (t) => this.checkWord(t) || (done.has(t.toLowerCase())
          ? `You tried ${U(t)} already: ${nJots(done.get(t.toLowerCase())).toLowerCase()}.` : null),
      });
      if (r.extra === "give up") {
        if (await this.p.yesNo("WANT TO GIVE UP?")) {
          g.person = "gave up";
          this.log.say(`MY WORD WAS ${U(g.secret)}.`, "me");
          return;
        }
        continue;
      }
      const w = r.text.toLowerCase();
      if (!this.index.has(w) && !await this.p.yesNo("ARE YOU SURE THAT'S A WORD?")) continue;
      if (w === g.secret) {
        g.tests.push([w, this.L]);
        g.person = "won";
        this.log.say(`YOU GOT IT! MY WORD WAS ${U(g.secret)} (${g.tests.length} test words).`, "good");
        return;
      }
      const j = jots(w, g.secret);
      g.tests.push([w, j]);
      this.log.say(`${U(w)}: ${nJots(j)}` + (j === this.L ? " (the right letters, not my word)" : ""));
      return;
    }
  }

  async programTurn() {
    const g = this.g;
    this.root.dataset.state = "my-test";
    let r;
    try {
      r = await api("SampleMove", { variant: this.variant, strategy: this.strategy, gameSeed: String(g.seed),
        jotto: { role: "GUESSER", history: g.history.map(([guess, j]) => ({ guess, jots: j })) } });
    } catch (e) {
      if (e instanceof ApiError && e.code === 3 && e.message.includes("no consistent word")) return this.contradiction();
      throw e;
    }
    const move = r.move;
    const cands = this.consistent(g.history);
    const classes = new Set(cands.map(sorted));
    const certain = cands.includes(move) && (classes.size === 1 || r.consistentWords === 1);
    g.guesses++;
    this.log.say(certain ? `IS YOUR WORD ${U(move)}?` : `MY TEST WORD: ${U(move)}`, "me");
    this.refresh();
    const undo = { label: "Undo an earlier answer", value: "undo", name: "undo" };
    let j;
    for (;;) {
      let a;
      if (certain) {
        const yes = await this.p.yesNo(`IS YOUR WORD ${U(move)}?`);
        a = yes ? { extra: "mine" } : { no: true };
      } else {
        a = await this.p.number(`JOTS IN ${U(move)} (0-${this.L}):`, 0, this.L, {
          submit: "Answer", hint: "Letters in common with your word.",
          extras: [{ label: `${U(move)} is my word`, value: "mine", name: "mine" }, ...(g.history.length ? [undo] : [])],
        });
      }
      if (a.extra === "undo") {
        const before = JSON.stringify(g.history);
        await this.undo();
        if (JSON.stringify(g.history) === before) continue;
        g.guesses--;
        if (g.program === null) return this.programTurn();  // the corrected history: the service replays
        return;
      }
      if (a.extra === "mine") return this.iWon(move);
      if (a.no) {
        const rest = cands.filter((x) => x !== move).map((x) => jots(move, x));
        if (rest.length && rest.every((x) => x === rest[0])) { j = rest[0]; break; }
        j = (await this.p.number(`HOW MANY JOTS DOES ${U(move)} HAVE?`, 0, this.L, { submit: "Answer" })).value;
        break;
      }
      j = a.value;
      if (j === this.L && this.letters.filter((x) => x === sorted(move)).length === 1) {
        if (await this.p.yesNo(`${this.L} JOTS: SO ${U(move)} IS YOUR WORD?`)) return this.iWon(move);
        this.log.say(`I KNOW NO OTHER WORD WITH THE LETTERS OF ${U(move)}. I GIVE UP.`, "me");
        g.history.push([move, j]);
        g.program = "gave up"; g.contradicted = true;
        return;
      }
      break;
    }
    this.log.say(`${U(move)}: ${nJots(j)}`);
    g.history.push([move, j]);
  }

  iWon(move) {
    const g = this.g;
    g.program = "won";
    g.history.push([move, this.L]);  // the winning test is on the board too
    this.log.say(`I GOT IT IN ${g.guesses} GUESS${g.guesses !== 1 ? "ES" : ""}.`, "good");
  }

  async undo() {
    const g = this.g;
    if (!g.history.length) { this.log.say("You have not answered any of my test words yet.", "err"); return; }
    g.history.forEach(([w, j], k) => this.log.say(`  ${k + 1}. ${U(w)}: ${nJots(j)}`));
    const k = (await this.p.number(`WHICH ANSWER IS WRONG (1-${g.history.length})?`, 1, g.history.length, { submit: "Choose" })).value;
    const [w, old] = g.history[k - 1];
    const j = (await this.p.number(`HOW MANY JOTS DOES ${U(w)} REALLY HAVE?`, 0, this.L, {
      submit: "Correct", check: (v) => (v === old ? `That is the answer you gave (${old}); type the right one.` : null),
    })).value;
    g.history[k - 1][1] = j;
    if (j === this.L && this.letters.filter((x) => x === sorted(w)).length === 1) {
      g.history.length = k;
      g.program = "won";
      this.log.say(`THEN ${U(w)} WAS YOUR WORD: I HAD IT ON MY TEST WORD ${k}.`, "good");
      return;
    }
    this.log.say(`OOPS, ${nJots(j)} ON ${U(w)} INSTEAD OF ${old}. REPLAYING MY DEDUCTION...`, "me");
    const n = this.consistent(g.history).length;
    this.log.say(`${n} WORD${n !== 1 ? "S" : ""} I KNOW FIT YOUR ANSWERS NOW.`);
    if (g.program === "gave up" && n) g.program = null;
    this.refresh();
  }

  // Answers that, changed alone, make the answers fit a word: [test word, given, true, that word].
  culprits() {
    const out = [], h = this.g.history;
    h.forEach(([w, j], k) => {
      const rest = h.filter((_, i) => i !== k);
      let fit = this.consistent(rest);
      if (this.index.has(w) && !rest.some((x) => x[0] === w) && rest.every(([t, a]) => jots(t, w) === a)) fit = [...fit, w].sort();
      if (fit.length) out.push([w, j, jots(w, fit[0]), fit[0]]);
    });
    return out;
  }

  // What the variant's list holds (its name's last part: games/jotto/dictionary.py's filters).
  rule() {
    const filter = this.variant.split("-").pop();
    return { ganzfried: `THE WORDS OF ${this.L} DIFFERENT LETTERS THAT HAVE NO ANAGRAM`,
      anagram1: `ONE WORD OF ${this.L} LETTERS OF EACH SET OF ANAGRAMS`,
      distinct1: `ONE WORD OF ${this.L} DIFFERENT LETTERS OF EACH SET OF ANAGRAMS` }[filter] || `THE WORDS OF ${this.L} LETTERS`;
  }

  async contradiction() {
    const g = this.g;
    g.contradicted = true;
    this.log.say(`NO WORD OF MY LIST FITS ALL YOUR ANSWERS: EITHER YOUR WORD IS NOT IN MY LIST (${this.rule()}), `
      + "OR ONE OF YOUR ANSWERS IS WRONG.", "err");
    for (const [w, given, t, x] of this.culprits().slice(0, 3)) {
      this.log.say(x === w ? `  IF YOUR WORD IS ${U(x)}, YOU SHOULD HAVE SAID YES WHEN I NAMED IT.`
        : `  IF YOUR WORD IS ${U(x)}, ${U(w)} HAS ${nJots(t)}, NOT THE ${given} YOU GAVE ME.`);
    }
    if (await this.p.yesNo("WANT TO TAKE BACK AN ANSWER?")) {
      g.program = "gave up";
      await this.undo();
      if (g.program === null) await this.programTurn();
      if (g.program !== "gave up") return;
    }
    g.program = "gave up";
    this.log.say("I GIVE UP.", "me");
  }

  async postMortem() {
    const g = this.g;
    const w = (await this.p.text("WHAT WAS YOUR SECRET WORD?", { submit: "Tell", check: (t) => this.checkWord(t) })).text.toLowerCase();
    const bad = g.history.filter(([x, j]) => jots(x, w) !== j);
    for (const [x, j] of bad) this.log.say(`YOU GAVE ME ${nJots(j)} ON ${U(x)} AND THAT HAS ${nJots(jots(x, w))} WITH ${U(w)}.`);
    if (!bad.length) {
      this.log.say(`ALL YOUR ANSWERS FIT ${U(w)}: THEY WERE RIGHT.` + (this.index.has(w) ? ""
        : ` ${U(w)} IS NOT IN MY LIST (${this.rule()}), SO I COULD NOT FIND IT.`));
    }
    else this.log.say(`${bad.length} OF YOUR ${g.history.length} ANSWERS ${bad.length === 1 ? "DOES" : "DO"} NOT FIT ${U(w)}.`);
  }
}
