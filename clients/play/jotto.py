"""Jotto against the service, as Beeler's program (MIT AI Memo 218) behaved.

Both players hide a word; in alternate turns each names a test word and the other answers its jots
(one-to-one letter matches). The program's secret is never an uncommon word (the served hider
restricted to common words: ``JottoState.common_secret``); its test words come from the served guesser
(level ``equilibrium``: the variant's served strategy, ``people``: the fewest guesses on average against a
common word, ``beeler``, ``benchmark``). The person's answers
can be taken back ("undo"): the corrected history is sent again and the service replays the deduction.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import grpc
import numpy as np
from rich.markup import escape
from rich.table import Table

from clients.play.review_screen import offer_review, save_transcript
from games.jotto.dictionary import VariantError, list_rule, why_left_out
from clients.play.service import Service, invalid
from clients.play.ui import UI, YES, NO

# people: the guesser that needs the fewest guesses on average against a person's (common) word
LEVELS = {"equilibrium": "", "people": "people", "beeler": "beeler", "benchmark": "benchmark"}

HELP = """[bold]Jotto[/]: we each hide a {L}-letter word. In turn we name a test word and the other
answers how many [italic]jots[/] it has: one-to-one letter matches with the secret (GLASS v SMILE = 2).
Whoever names the other's secret first wins. My word is always a common word; yours can be any word.
  Your turn: type a test word.   My turn: give my test word's jots, 0..{L} (y: it is your word).
  [bold]list[/]       words that could still be my secret (from your tests and my answers)
  [bold]list mine[/]  words I still think could be yours
  [bold]undo[/]       take back a wrong jot count you gave me earlier
  [bold]board[/]      both players' test words so far
  [bold]quit[/]       leave (Ctrl-C or end of input too)
A command of {L} letters is taken as a test word at your turn (BOARD in the 5-letter game): type it with a
colon for the command (:board, :list, :undo)."""


FIRST_HELP = ("Y: you name the first test word; N: I name mine first. Then we take turns; whoever names "
              "the other's secret word first wins.")


def n_jots(n: int) -> str:
    return f"{n} JOT" if n == 1 else f"{n} JOTS"


def jots(a: str, b: str) -> int:
    """One-to-one letter matches (Beeler's rule 3): GLASS v SMILE = 2."""
    return sum((Counter(a) & Counter(b)).values())


@dataclass
class Game:
    secret: str  # the program's
    seed: int  # the game's seed: the secret's draw and the guesser's mixture member
    history: list[list] = field(default_factory=list)  # the program's tests: [word, jots] (not the secret)
    tests: list[tuple[str, int]] = field(default_factory=list)  # the person's tests and my answers
    person: str | None = None  # None: playing; "won", "gave up", "stopped"
    program: str | None = None
    program_guesses: int = 0
    contradicted: bool = False


class Jotto:
    def __init__(self, ui: UI, service: Service, variant: str, level: str, seed: int, save_dir: str | None = None):
        self.ui, self.service, self.variant, self.level, self.seed = ui, service, variant, level, seed
        self.save_dir = save_dir
        self.strategy = LEVELS[level]
        w = service.words(variant)
        self.words = list(w.words)
        self.common = np.array(list(w.common), dtype=bool)
        self.L = int(w.word_length)
        self.index = {x: i for i, x in enumerate(self.words)}
        self.counts = np.zeros((len(self.words), 26), dtype=np.int16)
        for i, x in enumerate(self.words):
            for ch in x:
                self.counts[i, ord(ch) - 97] += 1
        self.letters = ["".join(sorted(x)) for x in self.words]
        self.D = len(self.words)
        try:
            self.rule = list_rule(variant)      # what the list holds, for the person's word
        except VariantError:
            self.rule = f"the words of {self.L} letters"

    # ---------------------------------------------------------------- helpers
    def jots_all(self, word: str) -> np.ndarray:
        c = np.zeros(26, dtype=np.int16)
        for ch in word:
            c[ord(ch) - 97] += 1
        return np.minimum(self.counts, c).sum(axis=1)

    def consistent(self, tests, among: np.ndarray | None = None) -> np.ndarray:
        """Indices of dictionary words fitting every (word, jots); a test word itself is not the secret."""
        ok = np.ones(len(self.words), dtype=bool) if among is None else among.copy()
        for word, j in tests:
            ok &= self.jots_all(word) == j
            if word in self.index:
                ok[self.index[word]] = False
        return np.flatnonzero(ok)

    def candidates_for_me(self, g: Game) -> list[str]:
        return [self.words[i] for i in self.consistent(g.tests, self.common)]

    def candidates_for_you(self, g: Game) -> list[str]:
        return [self.words[i] for i in self.consistent(g.history)]

    def read_word(self, text: str) -> str | None:
        """A test word typed by the person, or None after a one-line explanation."""
        w = text.lower()
        if not w.isascii() or not w.isalpha():
            self.ui.error(f"A word is letters a-z only; {text!r} is not.")
            return None
        if len(w) != self.L:
            self.ui.error(f"Words here have {self.L} letters; {w.upper()} has {len(w)}.")
            return None
        return w

    def unknown_word_hint(self, w: str) -> str:
        """Why a word is missing from the list (``games.jotto.dictionary.why_left_out``)."""
        try:
            why = why_left_out(self.variant, w)
        except (VariantError, OSError):    # a list this client cannot read: say only that it is not in it
            why = None
        return f"{w.upper()} is not in my list" + (f": {why}." if why else ".")

    def board(self, g: Game) -> None:
        t = Table(title="Test words so far", show_lines=False)
        t.add_column("your test", style="green")
        t.add_column("my jots", justify="right")
        t.add_column("my test", style="magenta")
        t.add_column("your jots", justify="right")
        for k in range(max(len(g.tests), len(g.history))):
            a = g.tests[k] if k < len(g.tests) else ("", "")
            b = g.history[k] if k < len(g.history) else ("", "")
            t.add_row(a[0].upper(), str(a[1]), b[0].upper(), str(b[1]))
        self.ui.show(t)

    def command(self, g: Game, t: str, word_prompt: bool = False) -> bool:
        """Commands typed at any prompt of the game; True when handled. At the test-word prompt
        (`word_prompt`) a word of the game is a test word, not a command."""
        low = t.lower()
        if low == "?":
            self.ui.say(HELP.format(L=self.L))
            return True
        if low.startswith(":"):  # `:board` is the command even where BOARD is a word of the game
            low = low[1:]
        elif word_prompt and len(low) == self.L and low.isalpha():  # a test word, though it spells a command
            return False
        if low == "list":
            self.ui.columns([w.upper() for w in self.candidates_for_me(g)], "Common words that fit your tests")
            return True
        if low in ("list mine", "list yours", "mine"):
            if g.program is not None:
                self.ui.say("I am not guessing your word any more.")
            else:
                self.ui.columns([w.upper() for w in self.candidates_for_you(g)], "Words I think could be yours")
            return True
        if low == "board":
            self.board(g)
            return True
        if low in ("undo", "oops"):
            self.undo(g)
            return True
        return False

    # ---------------------------------------------------------------- the person's turn
    def person_turn(self, g: Game) -> None:
        while True:
            t = self.ui.ask("YOUR TEST WORD:")
            if t == "?":
                self.ui.say(HELP.format(L=self.L))
                if self.ui.yes_no("WANT TO GIVE UP?"):
                    g.person = "gave up"
                    self.ui.say(f"MY WORD WAS [bold yellow]{g.secret.upper()}[/].")
                    return
                continue
            if not t:
                self.ui.error(f"Type a {self.L}-letter test word (? for help).")
                continue
            if self.command(g, t, word_prompt=True):
                continue
            w = self.read_word(t)
            if w is None:
                continue
            done = dict(g.tests)
            if w in done:
                self.ui.error(f"You tried {w.upper()} already: {n_jots(done[w]).lower()}.")
                continue
            if w not in self.index:
                self.ui.say(self.unknown_word_hint(w))
                if not self.ui.yes_no("ARE YOU SURE THAT'S A WORD?"):
                    continue
            if w == g.secret:
                g.tests.append((w, self.L))
                g.person = "won"
                self.ui.say(f"[bold green]YOU GOT IT![/] MY WORD WAS [bold yellow]{g.secret.upper()}[/] "
                            f"({len(g.tests)} test words).")
                return
            j = jots(w, g.secret)
            g.tests.append((w, j))
            self.ui.say(f"{w.upper()}: [bold]{j}[/] JOT{'S' if j != 1 else ''}"
                        + (" (the right letters, not my word)" if j == self.L else ""))
            return

    # ---------------------------------------------------------------- the program's turn
    def program_turn(self, g: Game) -> None:
        try:
            r = self.service.jotto_guess(self.variant, self.strategy, g.seed, g.history)
        except grpc.RpcError as e:
            if invalid(e) and "no consistent word" in e.details():
                self.contradiction(g)
                return
            raise
        move = r.move
        cands = self.candidates_for_you(g)
        anagram_class = {"".join(sorted(x)) for x in cands}
        certain = move in cands and (len(anagram_class) == 1 or r.consistent_words == 1)
        g.program_guesses += 1
        if certain:
            self.ui.say(f"IS YOUR WORD [bold magenta]{move.upper()}[/]?")
        else:
            self.ui.say(f"MY TEST WORD: [bold magenta]{move.upper()}[/]")
        while True:
            t = self.ui.ask("Y/N?" if certain else f"JOTS (0-{self.L}, y = it's my word)?")
            low = t.lower()
            if low in ("undo", "oops"):
                changed = len(g.history), [h[1] for h in g.history]
                self.undo(g)
                if (len(g.history), [h[1] for h in g.history]) == changed:
                    continue
                g.program_guesses -= 1
                if g.program is None:  # the corrected history: the service replays the deduction
                    self.program_turn(g)
                return
            if self.command(g, t):
                continue
            if low in YES:
                g.program = "won"
                self.ui.say(f"[bold green]I GOT IT[/] IN {g.program_guesses} "
                            f"GUESS{'ES' if g.program_guesses != 1 else ''}.")
                return
            if low in NO:
                rest = [jots(move, x) for x in cands if x != move]
                if len(set(rest)) == 1:
                    j = rest[0]
                else:
                    j = self.ui.number(f"HOW MANY JOTS DOES {move.upper()} HAVE?", 0, self.L, "a jot count")
                break
            if low.isdigit() and 0 <= int(low) <= self.L:
                j = int(low)
                if j == self.L and self.letters.count("".join(sorted(move))) == 1:
                    if self.ui.yes_no(f"{self.L} JOTS: SO {move.upper()} IS YOUR WORD?"):
                        g.program = "won"
                        self.ui.say(f"[bold green]I GOT IT[/] IN {g.program_guesses} "
                                    f"GUESS{'ES' if g.program_guesses != 1 else ''}.")
                        return
                    self.ui.say(f"I KNOW NO OTHER WORD WITH THE LETTERS OF {move.upper()}. I GIVE UP.")
                    g.history.append([move, j])
                    g.program, g.contradicted = "gave up", True
                    return
                break
            self.ui.error(f"Answer with the jots, 0 to {self.L}, or y if {move.upper()} is your word.")
        g.history.append([move, j])

    def undo(self, g: Game) -> None:
        if not g.history:
            self.ui.error("You have not answered any of my test words yet.")
            return
        if g.program == "won":
            self.ui.error("I have found your word already.")
            return
        for k, (w, j) in enumerate(g.history, 1):
            self.ui.say(f"  {k}. {w.upper()}: {n_jots(j)}")
        k = self.ui.number(f"WHICH ANSWER IS WRONG (1-{len(g.history)})?", 1, len(g.history), "the answer's number")
        w, old = g.history[k - 1]
        while True:
            j = self.ui.number(f"HOW MANY JOTS DOES {w.upper()} REALLY HAVE?", 0, self.L, "a jot count")
            if j != old:
                break
            self.ui.error(f"That is the answer you gave ({old}); type the right one.")
        if j == self.L and self.letters.count("".join(sorted(w))) == 1:
            g.history[k - 1][1] = j
            del g.history[k:]
            g.program = "won"
            self.ui.say(f"THEN {w.upper()} WAS YOUR WORD: I HAD IT ON MY TEST WORD {k}.")
            return
        g.history[k - 1][1] = j
        self.ui.say(f"OOPS, {n_jots(j)} ON {w.upper()} INSTEAD OF {old}. REPLAYING MY DEDUCTION...")
        n = len(self.candidates_for_you(g))
        self.ui.say(f"{n} WORD{'S' if n != 1 else ''} I KNOW FIT YOUR ANSWERS NOW.")
        if g.program == "gave up":
            g.program = None if n else g.program

    def culprits(self, g: Game) -> list[tuple[str, int, int, str]]:
        """Answers that, changed alone, make the answers fit a word: (test word, given, true, that word)."""
        out = []
        for k, (w, j) in enumerate(g.history):
            rest = [h for i, h in enumerate(g.history) if i != k]
            fit = self.consistent(rest)
            if w in self.index and not any(h[0] == w for h in rest):  # the answer may have been "it is my word"
                fit = np.union1d(fit, [self.index[w]]) if all(jots(t, w) == a for t, a in rest) else fit
            if len(fit):
                x = self.words[int(fit[0])]
                out.append((w, j, jots(w, x), x))
        return out

    def contradiction(self, g: Game) -> None:
        g.contradicted = True
        self.ui.say("[bold red]NO WORD OF MY LIST FITS ALL YOUR ANSWERS:[/] EITHER YOUR WORD IS NOT IN MY LIST "
                    f"({self.rule.upper()}), OR ONE OF YOUR ANSWERS IS WRONG.")
        for w, given, true, x in self.culprits(g)[:3]:
            if x == w:
                self.ui.say(f"  IF YOUR WORD IS {x.upper()}, YOU SHOULD HAVE SAID YES WHEN I NAMED IT.")
            else:
                self.ui.say(f"  IF YOUR WORD IS {x.upper()}, {w.upper()} HAS {n_jots(true)}, NOT THE {given} "
                            "YOU GAVE ME.")
        if self.ui.yes_no("WANT TO TAKE BACK AN ANSWER?"):
            g.program = "gave up"  # until an answer is corrected
            self.undo(g)
            if g.program is None:
                self.program_turn(g)
            if g.program != "gave up":
                return
        g.program = "gave up"
        self.ui.say("I GIVE UP.")

    # ---------------------------------------------------------------- a game
    def play_game(self, n: int) -> dict | None:
        seed = self.seed + n
        secret = self.service.jotto_secret(self.variant, self.strategy, seed).move
        g = Game(secret, seed)
        self.ui.say(f"I HAVE A {self.L}-LETTER WORD. THINK OF YOURS, A WORD OF MY LIST ({self.rule.upper()}: "
                    f"{self.D} WORDS); DON'T TELL ME. I FIND ONLY WORDS OF MY LIST.")
        person_next = self.ui.yes_no("WOULD YOU LIKE TO GO FIRST?", FIRST_HELP)
        while g.person is None or g.program is None:
            if person_next and g.person is None:
                self.person_turn(g)
                if g.person == "won" and g.program is None:
                    if not self.ui.yes_no("DO YOU WANT ME TO CONTINUE GUESSING YOUR WORD?"):
                        g.program = "stopped"
                elif g.person == "gave up" and g.program is None:
                    if not self.ui.yes_no("SHALL I KEEP GUESSING YOUR WORD?"):
                        g.program = "stopped"
            elif not person_next and g.program is None:
                self.program_turn(g)
                if g.program is not None and g.person is None:
                    if g.program == "won":
                        q = "DO YOU WANT TO CONTINUE GUESSING MY WORD?"
                    else:
                        q = "DO YOU WANT TO TRY TO GUESS MY WORD?"
                    if not self.ui.yes_no(q):
                        g.person = "stopped"
                        self.ui.say(f"MY WORD WAS [bold yellow]{g.secret.upper()}[/].")
            person_next = not person_next
        if g.program != "won" and (g.contradicted or g.program == "gave up"):
            self.post_mortem(g)
        return self.save(g, n)

    def save(self, g: Game, n: int) -> dict | None:
        """Your test words (against my secret) as an AnalyzeGameRequest (docs/review.md), saved as
        DIR/jotto-<seed>.json when there is a save directory; only words of the dictionary can be reviewed, so a
        game with another word is neither saved nor reviewed."""
        if not g.tests:
            return None
        if any(w not in self.index for w, _ in g.tests):
            self.ui.say("Not saved for review: one of your test words is not in my dictionary.")
            return None
        body = dict(variant=self.variant, strategy=self.strategy, jotto=dict(
            role="GUESSER", secret=g.secret, turns=[dict(guess=w, jots=j) for w, j in g.tests]))
        save_transcript(self.ui, self.save_dir, f"jotto-{g.seed}.json", body)
        return body

    def post_mortem(self, g: Game) -> None:
        """Beeler's "WHAT WAS YOUR SECRET WORD? ... YOU GAVE ME 2 JOTS ON TEARS AND THAT HAS 3 JOTS"."""
        while True:
            t = self.ui.ask("WHAT WAS YOUR SECRET WORD?")
            w = self.read_word(t) if t else None
            if w is None:
                if not t:
                    self.ui.error(f"Type your {self.L}-letter word.")
                continue
            break
        bad = [(x, j, jots(x, w)) for x, j in g.history if jots(x, w) != j]
        for x, j, true in bad:
            self.ui.say(f"YOU GAVE ME {j} JOT{'S' if j != 1 else ''} ON {x.upper()} AND THAT HAS "
                        f"[bold]{true}[/] JOT{'S' if true != 1 else ''} WITH {w.upper()}.")
        if not bad:
            where = "" if w in self.index else f" {self.unknown_word_hint(w).upper()} SO I COULD NOT FIND IT."
            self.ui.say(f"ALL YOUR ANSWERS FIT {w.upper()}: THEY WERE RIGHT.{where}")
        else:
            self.ui.say(f"{len(bad)} OF YOUR {len(g.history)} ANSWERS {'DOES' if len(bad) == 1 else 'DO'} NOT "
                        f"FIT {w.upper()}.")

    def run(self) -> None:
        self.ui.say(f"[bold]JOTTO[/] on {escape(self.variant)}, level {self.level}, seed {self.seed}: we each hide "
                    f"a {self.L}-letter word and take turns guessing; ? for help.")
        n = 0
        while True:
            offer_review(self.ui, self.service, self.play_game(n))
            n += 1
            if not self.ui.yes_no("ANOTHER GAME?"):
                return
