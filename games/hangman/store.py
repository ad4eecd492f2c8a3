"""The Hangman store's format: the named arrays its builder writes and its backend reads."""
from games.storage import StoreManifest

CODES = "codes"              # the words (sorted) as letter codes
SOLO = "solo"                # (N, 2): asks and misses of the seed's guesser per word (words sorted)
SOLO_SCORED = "solo_scored"  # (N, 2): the same for our scored-letters guesser
SEED_WORDS = "seed_words"    # indices of the seed method's word subset
HARD_WORDS = "hard_words"    # indices of the hard-word subset


class HangmanManifest(StoreManifest):
    """A Hangman store's manifest (``games.storage.check_manifest`` checks it when a backend loads)."""

    length: int           # word length
    figures: dict         # evaluation figures (mean asks, ours against the seed strategy, ...)
