// Symmetric Hangman (Saija & Henken) against the served strategy; the page is the referee, with the rules of
// games/hangman/game.py (the diagram's size and pieces from GET /play/rules/hangman.json). Calls: GetWords (the
// person's word is checked against the list here and never sent), SampleMove (each of the program's letters is
// asked knowing its own word, the one the person completes).
import { api } from "./api.js";

const U = (s) => s.toUpperCase();

// A player's diagram after `misses` of `max`: the rules' pieces (games/hangman/game.py DIAGRAM_PIECES) in
// proportion, as the terminal draws it.
function diagram(pieces, misses, max) {
  const grid = Array.from({ length: 7 }, () => Array(9).fill(" "));
  for (const piece of pieces.slice(0, max ? Math.round((misses * pieces.length) / max) : 0)) {
    for (const [r, c, ch] of piece) grid[r][c] = ch;
  }
  return grid.map((row) => row.join("").trimEnd()).join("\n");
}

const spaced = (s) => U(s).split("").join(" ");

export class Hangman {
  constructor(root, log, prompt) {
    this.root = root; this.log = log; this.p = prompt; this.rules = null; this.games = 0; this.lists = new Map();
  }

  async newGame(variant, level, seed) {
    if (!this.rules) this.rules = await (await fetch("/play/rules/hangman.json")).json();
    const game = this.games++;
    const moveSeed = (BigInt(seed) + BigInt(game)).toString();
    this.log.clear();
    const mine = (await api("SampleMove", { variant, strategy: level, gameSeed: moveSeed,
      hangman: { action: "CHOOSE_WORD" } })).move;
    const L = mine.length;
    this.log.say(`SYMMETRIC HANGMAN on ${variant} (${L}-letter words), strategy ${level}, seed ${seed}.`);
    this.g = { mine, yours: null, asked: [], misses: { you: 0, me: 0 } };
    this.root.dataset.state = "word";
    this.show();
    if (!this.lists.has(variant)) this.lists.set(variant, new Set((await api("GetWords", { variant })).words));
    const yours = this.g.yours = await this.askWord(this.lists.get(variant), L);
    const youFirst = await this.p.yesNo("WOULD YOU LIKE TO GO FIRST?");
    this.root.dataset.state = "playing";
    this.show();
    let youMove = youFirst;
    for (;;) {
      const letter = youMove ? await this.askLetter() : await this.programLetter(variant, level, moveSeed);
      this.g.asked.push(letter);
      const target = youMove ? mine : yours;      // the asker completes the other's word
      const hit = target.includes(letter);
      if (!hit) this.g.misses[youMove ? "you" : "me"] += 1;
      const also = (youMove ? yours : mine).includes(letter);
      this.log.say(youMove
        ? `You ask ${U(letter)}: ${hit ? "in" : "not in"} my word${hit ? "" : " (a piece on your diagram)"}${also ? "; in your word too" : ""}.`
        : `I ask ${U(letter)}: ${hit ? "in" : "not in"} your word${hit ? "" : " (a piece on my diagram)"}${also ? "; in my word too" : ""}.`,
        youMove ? "" : "me");
      this.show();
      const over = this.result(youMove);
      if (over) {
        this.log.say(over.text, over.cls);
        this.root.querySelector("#hangman-verdict").textContent = over.text;
        this.root.querySelector("#hangman-mine").textContent = spaced(mine);   // shown whole once the game is over
        break;
      }
      youMove = !youMove;
    }
    this.root.dataset.state = "over";
    this.p.idle("Game over. Press New game to play again.");
  }

  // The word the program completes: letters of the variant's length that its list holds.
  async askWord(list, L) {
    const a = await this.p.text(`YOUR WORD FOR ME TO COMPLETE (${L} letters, I won't look):`, {
      submit: "Choose", size: L + 2,
      check: (t) => (!/^[a-zA-Z]+$/.test(t) ? "A word is letters a-z only."
        : t.length !== L ? `Words here have ${L} letters; ${U(t)} has ${t.length}.`
          : !list.has(t.toLowerCase()) ? `${U(t)} is not in my word list; choose another.` : null),
    });
    return a.text.toLowerCase();
  }

  async askLetter() {
    const asked = new Set(this.g.asked);
    const a = await this.p.text("YOUR LETTER:", {
      submit: "Ask", size: 3,
      check: (t) => (!/^[a-zA-Z]$/.test(t) ? "Type one letter a-z." : asked.has(t.toLowerCase())
        ? `${U(t)} was asked already.` : null),
    });
    return a.text.toLowerCase();
  }

  async programLetter(variant, level, seed) {
    const r = await api("SampleMove", { variant, strategy: level, gameSeed: seed, hangman: {
      action: "CHOOSE_LETTER", opponentWord: this.g.mine, asked: this.g.asked.join(""),
      ownPattern: this.pattern(this.g.yours) } });
    return r.move;
  }

  pattern(word) { return word.split("").map((c) => (this.g.asked.includes(c) ? c : "_")).join(""); }

  complete(word) { return word.split("").every((c) => this.g.asked.includes(c)); }

  // After a letter (games/hangman/game.py State.ask): both words complete, a draw; one complete, its completer wins;
  // else an asker whose diagram is full loses.
  result(youAsked) {
    const { mine, yours, misses } = this.g;
    const youDone = this.complete(mine), meDone = this.complete(yours);
    const reveal = ` My word for you was ${U(mine)}.`;
    if (youDone && meDone) return { text: `Both words complete at once: a draw.${reveal}`, cls: "" };
    if (youDone) return { text: `You win: you completed my word.${reveal}`, cls: "good" };
    if (meDone) return { text: `I win: I completed your word.${reveal}`, cls: "err" };
    if (youAsked && misses.you >= this.rules.max_misses) return { text: `I win: your diagram is full.${reveal}`, cls: "err" };
    if (!youAsked && misses.me >= this.rules.max_misses) return { text: `You win: my diagram is full.${reveal}`, cls: "good" };
    return null;
  }

  show() {
    const { mine, yours, asked, misses } = this.g;
    const $ = (s) => this.root.querySelector(s);
    const max = this.rules.max_misses;
    $("#hangman-mine").textContent = spaced(this.pattern(mine));
    $("#hangman-mine-misses").textContent = `your misses ${misses.you}/${max}`;
    $("#hangman-mine-diagram").textContent = diagram(this.rules.pieces, misses.you, max);
    $("#hangman-yours-diagram").textContent = diagram(this.rules.pieces, misses.me, max);
    $("#hangman-yours").textContent = yours ? spaced(this.pattern(yours)) : "-";
    $("#hangman-yours-misses").textContent = `my misses ${misses.me}/${max}`;
    $("#hangman-asked").textContent = asked.length ? U(asked.join(" ")) : "-";
    if (this.root.dataset.state !== "over") $("#hangman-verdict").textContent = "";
  }
}
