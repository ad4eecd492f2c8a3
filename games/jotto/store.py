"""The Jotto store's format: array and database names, the book codec, and reading the served strategies.

Arrays (``Store.array``): ``common`` (uint8 per word: a common word), and per strategy
``<array>:<strategy>`` for the arrays below. Books: one named database ``book:<strategy>`` whose key is
``state_key`` of a consistent-word set and whose value is ``encode_book_value``'s (count, members, moves).
"""
from __future__ import annotations

import struct

import numpy as np

from games.jotto.oracle import KINDS, state_key
from games.jotto.strategy import GuesserStrategy
from games.storage import StoreManifest

COMMON = "common"
HIDER = "hider"  # float64[D]: the hider strategy served with the guesser
WEIGHTS = "weights"  # float64[m]: the guesser mixture
MEMBER_HIDERS = "member_hiders"  # float64[m, D]: each member's oracle input (not fictitious play)
FP_BR_LENS = "fp_br_lens"  # fictitious play: lengths of the best-response sets s_{h,t} ...
FP_BR_FLAT = "fp_br_flat"  # ... and the sets, concatenated
FP_EPSILON = "fp_epsilon"
GUARANTEE_HISTORY = "guarantee_history"
FP_CURVES = "fp_curves"  # float64[T+1, 3]: fictitious play per iteration (FPState.curves)
DO_CURVES = "do_curves"  # float64[rounds, 2]: the double oracle per round (DOState.curves)

# float64[rounds, 5]: the exact double oracle per round (CertifiedDO.curves without its seconds, which the
# manifest's round_seconds holds: timings stay out of the content hash)
CERT_CURVES = "cert_curves"
MEMBER_EXACT = "member_exact"  # uint8[m]: 1 where a member is an exact tree (its moves all in the book)
MEMBER_KINDS = "member_kinds"  # int64[m]: each member's oracle kind, where the manifest's `kind` is "mixed"
MIXED = "mixed"  # a strategy's `kind` when its members use different oracles (KINDS: the oracle names)

book_key = state_key  # the key of a consistent-word set in a book

BOOK_VALUE = struct.Struct("<II")  # (consistent-word count, number of (member, move) pairs)


def array_key(array: str, strategy: str) -> str:
    return f"{array}:{strategy}"


def book_db(strategy: str) -> str:
    return f"book:{strategy}"


def encode_book_value(n_consistent: int, members: np.ndarray, moves: np.ndarray) -> bytes:
    pairs = np.empty((len(members), 2), dtype="<u4")
    pairs[:, 0] = members
    pairs[:, 1] = moves
    return BOOK_VALUE.pack(n_consistent, len(members)) + pairs.tobytes()


def decode_book_value(raw: bytes) -> tuple[int, np.ndarray, np.ndarray]:
    n, k = BOOK_VALUE.unpack_from(raw)
    pairs = np.frombuffer(raw, dtype="<u4", offset=BOOK_VALUE.size, count=2 * k).reshape(k, 2)
    return n, pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)


def book_moves(store, strategy: str, D: int, state: np.ndarray) -> dict[int, int] | None:
    """{member: move} of the book entry of a consistent-word set, or None where the book has none."""
    raw = store.get(book_db(strategy), book_key(D, state))
    if raw is None:
        return None
    n, members, moves = decode_book_value(raw)
    if n != len(state):  # a key collision: not this set's entry
        return None
    return dict(zip(members.tolist(), moves.tolist()))


def read_strategies(store) -> dict[str, GuesserStrategy]:
    """The guesser strategies a store serves, by name, from its manifest and arrays."""
    out: dict[str, GuesserStrategy] = {}
    for name, info in store.manifest["strategies"].items():
        explicit = fp = None
        if info.get("t_star") is not None:
            lens = store.array(array_key(FP_BR_LENS, name))
            flat = store.array(array_key(FP_BR_FLAT, name))
            fp = list(np.split(flat, np.cumsum(lens)[:-1])) if len(lens) else []
        else:
            explicit = store.array(array_key(MEMBER_HIDERS, name))
        mixed = info["kind"] == MIXED
        kinds = store.array(array_key(MEMBER_KINDS, name)) if mixed else None
        out[name] = GuesserStrategy(name, -1 if mixed else KINDS[info["kind"]], store.array(array_key(WEIGHTS, name)),
                                    store.array(array_key(HIDER, name)), explicit, fp, kinds, info.get("book_threshold"))
    return out


class JottoManifest(StoreManifest):
    """A Jotto store's manifest (``games.storage.check_manifest`` checks it when a backend loads)."""

    words: list        # the dictionary's words, in index order
    dictionary: dict   # source, filter, length, size, sha256
    served: str        # the strategy served by default
    strategies: dict   # per strategy: kind, members, figures, book entries, description, ...
