"""Hangman evaluation: our strategy against the seed's per word length, and the word/letter rules apart.

    python -m builder.evaluation.hangman_evaluate --lengths 4,5,6,7,8 --cap 3000 --workers 2

Every row is one arena match (seats alternated, seeded) decided by an empirical Bernstein race.
"""
from __future__ import annotations

import argparse

from builder.evaluation.arena import match
from builder.evaluation.hangman import game_for, player

PAIRS = [
    ("ours", "seed", "ours (hard words + scored letters) vs seed"),
    ("seedwords+scored", "seed", "letters only: scored vs seed letters, both seed words"),
    ("uniform+scored", "uniform+seedletters", "letters only, uniform words both sides"),
    ("hardwords+seedletters", "seed", "words only: hard-word search vs seed criteria, seed letters"),
    ("seedwords+seedletters", "uniform+seedletters", "word choice, seed guessers: seed criteria vs uniform"),
    ("seedwords+scored", "uniform+scored", "word choice, scored guessers: seed criteria vs uniform"),
    ("ours", "seedwords+scored", "word choice, scored guessers: hard words vs seed criteria"),
    ("ours", "uniform+seedletters", "ours vs seed letters with uniform words"),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lengths", default="4,5,6,7,8")
    ap.add_argument("--pairs", default="all", help="comma-separated indices into PAIRS or 'all'")
    ap.add_argument("--cap", type=int, default=3000)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    pairs = PAIRS if args.pairs == "all" else [PAIRS[int(i)] for i in args.pairs.split(",")]
    print("| length | A | B | score of A (wins + draws/2) | anytime CI | games | W/D/L | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for L in (int(x) for x in args.lengths.split(",")):
        game = game_for(f"hangman{L}")
        for a, b, _ in pairs:
            r = match(game, player(a), player(b), seed=args.seed + L, delta=args.delta, cap=args.cap,
                      workers=args.workers)
            print(f"| {L} | {a} | {b} | {r.score:.4f} | [{r.low:.3f}, {r.high:.3f}] | {r.games} | "
                  f"{r.wins}/{r.draws}/{r.losses} | {r.verdict} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
