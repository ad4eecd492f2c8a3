"""Guess Who as a race to one candidate (Nica 2015; Cauwet & Teytaud's parametric strategies)."""
from games.guesswho.game import (  # noqa: F401
    Bisection, ExactOptimal, GuessWhoGame, Parametric, RandomBaseline, RandomParametric,
    brute_force_value, match_value, optimal_bid, optimal_value, solve,
)
