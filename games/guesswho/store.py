"""The Guess Who store's format: the named arrays its builder writes and its backend reads."""
from games.storage import StoreManifest

BID_OPTIMAL = "bid_optimal"  # (N+1) x (N+1): the optimal bid per (own count, opponent count)
WIN_OPTIMAL = "win_optimal"  # (N+1) x (N+1): the win probability under optimal play


class GuessWhoManifest(StoreManifest):
    """A Guess Who store's manifest (``games.storage.check_manifest`` checks it when a backend loads)."""

    n: int                # characters per player
    figures: dict         # exact figures (first mover's win probability per N vs N, ...)
    strategies: dict      # per strategy: its figures
    tuned_theta: list     # the parametric strategy the optimiser tuned
    tuned_games: int      # games the optimiser played
