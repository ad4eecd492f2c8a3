"""Build the Dudo store: every dice-count group solved bottom-up, every information set with its
whole action distribution, and the per-round statistics (value, exploitability and its kind)."""
from __future__ import annotations

import struct
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from games.dudo.solve import solve_game
from games.storage import StoreWriter, code_version

ROW_HEADER = struct.Struct("<H")  # number of actions; then int16 actions (-1 = Dudo) and float64 probs


@dataclass(frozen=True)
class DudoParams:
    max_dice: int
    iterations: int
    memory: int = 3  # the paper's m: claims remembered
    perfect_recall_total: int = 2  # groups with at most this many dice in play are solved without forgetting
    exact_br_total: int = 4  # exact perfect-recall best response up to this many dice in play

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


def solve(params: DudoParams, progress: bool = True, checkpoint_dir: str | None = None):
    return solve_game(max_dice=params.max_dice, m=params.memory, iterations=params.iterations,
                      perfect_recall_total=params.perfect_recall_total, exact_br_total=params.exact_br_total,
                      progress=progress, checkpoint_dir=checkpoint_dir, log=lambda *a, **k: None)


def round_stats(sol) -> dict[str, dict]:
    out = {}
    for (op, oth), st in sorted(sol.stats.items()):
        out[f"{op}v{oth}"] = {k: (v if isinstance(v, str) else float(v)) for k, v in st.items()
                              if isinstance(v, (str, int, float, np.floating, np.integer))}
    return out


def build_dudo_store(params: DudoParams, root: Path) -> Path:
    t0 = time.perf_counter()
    work = Path(root) / ".work" / "dudo" / params.variant
    work.mkdir(parents=True, exist_ok=True)
    sol = solve(params, checkpoint_dir=str(work))
    writer = StoreWriter(root, "dudo", params.variant)
    try:
        n = writer.put_many("infosets", ((infoset_key(int(iid)), encode_row(actions, probs))
                                         for iid, _o, _p, _r, _w, actions, probs in sol.iter_infosets()))
        manifest = dict(game="dudo", variant=params.variant, parameters=asdict(params), infosets=n,
                        rounds=round_stats(sol), code_version=code_version(),
                        build_seconds=time.perf_counter() - t0)
        path = writer.publish(manifest)
    except BaseException:
        writer.abort()
        raise
    for p in work.glob("*.npz"):
        p.unlink()
    return path
