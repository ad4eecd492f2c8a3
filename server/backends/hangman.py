"""Answers Symmetric Hangman requests: the word the opponent must complete, or the next letter."""
from __future__ import annotations

import numpy as np

from games.hangman import strategies as hs
from games.hangman.game import ALPHABET, Lexicon, View
from games.hangman.store import CODES, HARD_WORDS, SEED_WORDS, HangmanManifest
from games.seeding import seeded_rng
from games.storage import Store, StoreError, check_manifest
from protos import gamestrategy_pb2 as pb
from server.backends import BadRequest, MoveResult, quote
from server.backends import figures

DESCRIPTIONS = {
    "ours": "word: uniform over the 2% hardest for both guessers alone; letter: scored rule (probability in my "
            "word, my entropy, sparing the opponent's letters)",
    "seed": "Saija & Henken: word by the four criteria, letter by entropy for self vs opponent",
}


class HangmanBackend:
    game = "hangman"

    def __init__(self, store: Store):
        m = check_manifest(store, HangmanManifest)
        self.store, self.manifest = store, m
        self.variant, self.version = m["variant"], store.version
        p = m["parameters"]
        self.length = int(p["length"])
        codes = store.array(CODES)
        words = ["".join(ALPHABET[c] for c in row) for row in codes]
        if codes.shape[1] != self.length:
            raise StoreError(f"store {store.path}: words of {codes.shape[1]} letters, variant says {self.length}")
        self.lex = Lexicon(words, name=f"{p['source']}-{self.length}")
        self.seed_words = store.array(SEED_WORDS)
        self.hard_words = store.array(HARD_WORDS)
        self.letters = {"ours": hs.ScoredLetters(tuple(p["theta"])), "seed": hs.SeedLetters()}
        self.served = "ours"

    def warm(self) -> None:
        pass

    def probe(self) -> None:
        self._letter("ours", 0, "", "_" * self.length)

    # ------------------------------------------------------------------ validation
    def _letter(self, strategy: str, opp: int, asked: str, pattern: str) -> tuple[int, int]:
        lex = self.lex
        guessed = np.zeros(26, dtype=bool)
        for c in asked:
            guessed[ord(c) - 97] = True
        codes = lex.codes
        mine = np.arange(len(lex))
        pat = np.array([255 if ch == "_" else ord(ch) - 97 for ch in pattern], dtype=np.int16)
        theirs = np.arange(len(lex))
        for c in np.flatnonzero(guessed):
            mine = mine[np.all((codes[mine] == c) == (pat == c), axis=1)]
            theirs = theirs[np.all((codes[theirs] == c) == (codes[opp] == c), axis=1)]
        if len(mine) == 0:
            raise BadRequest(f"hangman.own_pattern {quote(pattern)}: no word of {self.variant} fits it with the "
                             f"letters asked {quote(asked)}")
        v = View(lex, 0, mine, int(opp), theirs, guessed, 0, 0, 10, len(asked))
        return int(self.letters[strategy].choose_letter(v, None)), len(mine)

    def sample(self, request, deadline: float | None, live=None) -> MoveResult:
        if request.WhichOneof("state") != "hangman":
            raise BadRequest(f"{self.variant} is a Hangman variant: set `hangman` in the request")
        strategy = request.strategy or self.served
        if strategy not in self.letters:
            raise BadRequest(f"unknown strategy {quote(strategy)} for {self.variant} "
                             f"(one of {', '.join(sorted(self.letters))})")
        st = request.hangman
        L = self.length
        if st.action == pb.HangmanState.CHOOSE_WORD:
            sub = self.hard_words if strategy == "ours" else self.seed_words
            i = int(sub[seeded_rng(request.game_seed, 1).integers(len(sub))])
            p = 1.0 / len(sub)
            dist = [(self.lex.words[int(j)], p) for j in sub] if request.want_distribution else []
            return MoveResult(self.lex.words[i], p, dist, "book", strategy, 0, len(self.lex), True)
        if st.action != pb.HangmanState.CHOOSE_LETTER:
            raise BadRequest("hangman.action must be CHOOSE_WORD or CHOOSE_LETTER")
        opp_word, asked, pattern = st.opponent_word, st.asked, st.own_pattern
        if opp_word not in self.lex.index:
            raise BadRequest(f"hangman.opponent_word {quote(opp_word)} is not a word of {self.variant} "
                             f"({len(self.lex)} words of {L} letters)")
        if not all("a" <= c <= "z" for c in asked):
            raise BadRequest(f"hangman.asked {quote(asked)}: letters a-z only")
        if len(set(asked)) != len(asked):
            dup = next(c for c in asked if asked.count(c) > 1)
            raise BadRequest(f"hangman.asked {quote(asked)}: letter {dup!r} asked twice")
        if len(pattern) != L or not all(c == "_" or "a" <= c <= "z" for c in pattern):
            raise BadRequest(f"hangman.own_pattern {quote(pattern)}: {L} characters, a-z or '_'")
        missing = sorted({c for c in pattern if c != "_" and c not in asked})
        if missing:
            raise BadRequest(f"hangman.own_pattern {quote(pattern)} shows {''.join(missing)!r}, never asked")
        if "_" not in pattern:
            raise BadRequest(f"hangman.own_pattern {quote(pattern)} is complete: the game is over")
        if set(opp_word) <= set(asked):
            raise BadRequest(f"hangman.opponent_word {quote(opp_word)} is complete: the game is over")
        c, n = self._letter(strategy, self.lex.index[opp_word], asked, pattern)
        move = ALPHABET[c]
        dist = [(move, 1.0)] if request.want_distribution else []
        return MoveResult(move, 1.0, dist, "live", strategy, 0, n, True)

    # ------------------------------------------------------------------ listing
    def get_words(self, reply) -> None:
        """GetWords: the list in alphabetical order (a client checks the word it chooses without sending it)."""
        reply.words.extend(sorted(self.lex.words))
        reply.word_length = self.length

    def variant_info(self, v) -> None:
        v.words, v.word_length = len(self.lex), self.length
        for name in ("ours", "seed"):
            v.strategies.add(name=name, description=DESCRIPTIONS[name], members=1, served_default=name == self.served)

    def stats(self, v) -> None:
        m = self.manifest
        v.served_strategy, v.words = self.served, len(self.lex)
        s = v.strategies.add(strategy="ours", description=DESCRIPTIONS["ours"])
        for k, val in m["figures"].items():
            s.figures[k] = float(val)
        s.labels["theta"] = ",".join(f"{x:.4g}" for x in m["parameters"]["theta"])
        games = int(m["figures"].get("ours_vs_seed_games", 0))
        figures.label(s, "hangman", "ours_vs_seed", f"measured by play ({games} games against the seed method)")
        seed = v.strategies.add(strategy="seed", description=DESCRIPTIONS["seed"])
        figures.label(seed, "hangman", "", figures.NOT_MEASURED)
