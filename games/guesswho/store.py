"""The Guess Who store's format: the named arrays its builder writes and its backend reads."""

BID_OPTIMAL = "bid_optimal"  # (N+1) x (N+1): the optimal bid per (own count, opponent count)
WIN_OPTIMAL = "win_optimal"  # (N+1) x (N+1): the win probability under optimal play
