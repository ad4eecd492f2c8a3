"""What GetStats' figures are: each figure's unit (every probability says so) and each strategy's headline, the
one figure that says how good it is as served, with its kind. The words are defined in docs/glossary.md."""
from __future__ import annotations

GLOSSARY = "docs/glossary.md"

WIN_PROBABILITY = "win probability"
BOTH_SEATS = "win probability, both seats summed"
GUESSES = "guesses"
COUNT = "count"
SECONDS = "seconds"

EXACT = "exact"
NOT_MEASURED = "not measured"

# units by game: exact keys first, then by a key's ending; a key none of them names has no unit ("")
_UNITS = {
    "jotto": {
        "guarantee": GUESSES, "hider_vs_gbr": GUESSES, "self_play": GUESSES, "epsilon": GUESSES,
        "epsilon_hider": GUESSES, "epsilon_guesser": GUESSES, "gap": GUESSES, "value_lower": GUESSES,
        "value_upper": GUESSES, "value_gap": GUESSES, "hedge_guarantee": GUESSES, "mixture_size": COUNT,
        "members": COUNT, "iterations": COUNT, "t_star": COUNT, "book_entries": COUNT, "columns": COUNT,
        "hedge_iterations": COUNT, "hedge_eta": "step size",
    },
    "dudo": {
        "exploitability": BOTH_SEATS, "improved_exploitability": BOTH_SEATS, "improved_stderr": BOTH_SEATS,
        "stored_exploitability": BOTH_SEATS, "search_exploitability": BOTH_SEATS,
        "served_exploitability": BOTH_SEATS, "served_exploitability_stderr": BOTH_SEATS, "served_games": "games",
        "served_game_exploitability": BOTH_SEATS, "served_game_stderr": BOTH_SEATS,
        "served_game_own_stderr": BOTH_SEATS, "served_game_games": "games",
        "served_game_br_opener": "win probability (the responder as opener, to the game's end)",
        "served_game_br_other": "win probability (the responder as the other, to the game's end)",
        "value": "win probability (the opener's)", "br_opener": "win probability (a best response as opener)",
        "br_other": "win probability (a best response as the other)", "stored_br_opener": WIN_PROBABILITY,
        "stored_br_other": WIN_PROBABILITY, "improved_left": "probability (share of the responder's turns)",
        "iterations": COUNT, "iterations_trained": COUNT, "improved_games": "games", "memory": "claims",
    },
    "guesswho": {
        "vs_optimal": WIN_PROBABILITY, "vs_bisection": WIN_PROBABILITY, "optimal_first_mover": WIN_PROBABILITY,
        "bisection_vs_bisection": WIN_PROBABILITY, "bisection_vs_optimal": WIN_PROBABILITY,
        "optimal_vs_bisection": WIN_PROBABILITY, "optimiser_games": "games",
    },
    "hangman": {
        "mean_solo_asks": "letters asked", "mean_solo_asks_scored": "letters asked",
        "ours_vs_seed": "mean score (win 1, draw 1/2, loss 0): a win probability counting a draw as half",
        "ours_vs_seed_games": "games", "ours_vs_seed_wins": "games", "ours_vs_seed_draws": "games",
        "ours_vs_seed_losses": "games", "words": COUNT, "seed_words": COUNT, "hard_words": COUNT,
    },
}
_ENDINGS = (("seconds", SECONDS), ("_guesses", GUESSES), ("guesses_vs_uniform", GUESSES),
            ("guesses_vs_secret", GUESSES))


def unit_of(game: str, key: str) -> str:
    """The unit of figure ``key`` of a ``game`` strategy ("" where it has none, e.g. a parameter)."""
    unit = _UNITS.get(game, {}).get(key)
    if unit is not None:
        return unit
    return next((u for end, u in _ENDINGS if key.endswith(end)), "")


def label(s, game: str, headline: str, kind: str) -> None:
    """Fill a pb.StrategyStats' ``headline`` (a key of its figures, or "" where it has not got it),
    ``headline_kind`` (``NOT_MEASURED`` without one) and every figure's unit."""
    has = headline in s.figures
    s.headline = headline if has else ""
    s.headline_kind = kind if has else NOT_MEASURED
    for k in s.figures:
        unit = unit_of(game, k)
        if unit:
            s.units[k] = unit
