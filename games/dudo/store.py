"""The Dudo store's format: its parameters, the information-set key and row codec, and the manifest's
parameters and per-round statistics; the builder writes it and the server reads it through this module."""
from __future__ import annotations

import struct
from dataclasses import asdict, dataclass

import numpy as np

ROW_HEADER = struct.Struct("<H")  # number of actions; then int16 actions (-1 = Dudo) and float64 probs


@dataclass(frozen=True)
class DudoParams:
    max_dice: int
    iterations: int
    memory: int = 3  # the paper's m: claims remembered
    perfect_recall_total: int = 2  # groups with at most this many dice in play are solved without forgetting
    exact_br_total: int = 4  # exact perfect-recall best response up to this many dice in play
    # (total dice in play, iterations) overriding ``iterations`` for the groups of that total
    iterations_by_total: tuple = ()

    @property
    def variant(self) -> str:
        return f"dudo-m{self.memory}-{self.max_dice}dice"


def infoset_key(iid: int) -> bytes:
    return struct.pack(">Q", iid)  # big-endian: LMDB's key order is the ID order


def encode_row(actions, probs) -> bytes:
    a = np.asarray(actions, dtype="<i2")
    return ROW_HEADER.pack(len(a)) + a.tobytes() + np.asarray(probs, dtype="<f8").tobytes()


def decode_row(raw: bytes) -> tuple[np.ndarray, np.ndarray]:
    (n,) = ROW_HEADER.unpack_from(raw)
    o = ROW_HEADER.size
    actions = np.frombuffer(raw, dtype="<i2", count=n, offset=o)
    probs = np.frombuffer(raw, dtype="<f8", count=n, offset=o + 2 * n)
    return actions, probs


def read_row(store, params: DudoParams, own: int, opp: int, roll, history) -> tuple[np.ndarray, np.ndarray]:
    """The stored (actions, probabilities) of one information set; StoreError if the store lacks it."""
    from games.dudo.infoset import infoset_id
    from games.storage import StoreError

    iid = infoset_id(own, opp, roll, history, params.memory, params.max_dice, params.perfect_recall_total)
    raw = store.get("infosets", infoset_key(iid))
    if raw is None:
        raise StoreError(f"store {store.path}: no information set {iid}")
    return decode_row(raw)


def group_iterations(default: int, by_total: tuple, a: int, b: int) -> int:
    """Iterations of group {a, b}: the schedule's entry for a + b dice in play, else ``default``."""
    return dict(by_total).get(a + b, default)


def iter_rows(sol):
    """(key, row) of every information set in key order (ID order, so LMDB fills its pages):
    the same rows as ``sol.iter_infosets()``, encoded a roll at a time."""
    from games.dudo.infoset import block_offsets
    for (own, opp), (off, _size) in sorted(block_offsets(sol.m, sol.max_dice, sol.perfect_recall_total).items(),
                                           key=lambda kv: kv[1][0]):
        key = sol.group_key(own, opp)
        if key not in sol.groups:
            continue
        g, strat = sol.groups[key], sol.strategies[key]
        side = 0 if g.nsides == 1 else g.dice.index(own)
        n, NW = int(g.ns[side]), g.NW
        total = int(g.act_off[-1])
        a0 = (g.last < 0).astype(np.int64)
        lo = g.act_off[:-1] + a0
        hi = g.act_off[1:]
        prefix = [ROW_HEADER.pack(int(hi[w] - lo[w]))
                  + np.array([-1 if j == 0 else int(g.last[w]) + j for j in range(int(a0[w]), int(hi[w] - g.act_off[w]))],
                             dtype="<i2").tobytes() for w in range(NW)]
        lo8, hi8 = (8 * lo).tolist(), (8 * hi).tolist()
        block = np.asarray(strat[g.rbase[side]:g.rbase[side] + total * n]).reshape(total, n)
        for x in range(n):
            pb = np.ascontiguousarray(block[:, x], dtype="<f8").tobytes()
            kb = (off + x * NW + np.arange(NW, dtype=np.int64)).astype(">u8").tobytes()
            for w in range(NW):
                yield kb[8 * w:8 * w + 8], prefix[w] + pb[lo8[w]:hi8[w]]


def round_stats(sol) -> dict[str, dict]:
    out = {}
    for (op, oth), st in sorted(sol.stats.items()):
        out[f"{op}v{oth}"] = {k: (v if isinstance(v, str) else float(v)) for k, v in st.items()
                              if isinstance(v, (str, int, float, np.floating, np.integer))}
    return out


def manifest_parameters(params: DudoParams) -> dict:
    """The parameters as recorded in the manifest (an empty schedule is left out, so stores built
    before it existed keep their manifest)."""
    d = asdict(params)
    if not d["iterations_by_total"]:
        del d["iterations_by_total"]
    else:
        d["iterations_by_total"] = [list(x) for x in d["iterations_by_total"]]
    return d
