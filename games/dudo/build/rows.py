"""The rows a Dudo store holds, written from a solved game: every reachable window's quantised rows
(``iter_rows``, in ``games.dudo.store``'s format), the strategy they hold (``quantised_strategy``, what the build
measures and continues from) and the manifest's per-round statistics and curves."""
from __future__ import annotations

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.solvers.kernels import structural_reach
from games.dudo.store import encode_window, window_key
from games.quantise import UNIT, largest_remainder


@njit(cache=True)
def _quantise_rows(strat, ns, rbase, act_off, last, NW, unit):
    for s in range(ns.size):
        n = ns[s]
        for w in range(NW):
            a0 = 1 if last[w] < 0 else 0
            k = act_off[w + 1] - act_off[w] - a0
            base = rbase[s] + (act_off[w] + a0) * n
            p = np.empty(k)
            u = np.empty(k, dtype=np.int64)
            for x in range(n):
                for j in range(k):
                    p[j] = strat[base + j * n + x]
                largest_remainder(p, u, unit)
                for j in range(k):
                    strat[base + j * n + x] = u[j] / unit


def quantised_strategy(g, strat, in_place: bool = False) -> np.ndarray:
    """Group ``g``'s strategy as its store rows hold it: every (side, window, roll) distribution quantised
    (``encode_window``'s units / ``UNIT``; ``decode_window`` of the rows gives the same numbers), a new
    array (``in_place``: ``strat`` itself, a float64 array the caller owns).  The builder measures and
    continues from this, the strategy a server reads, not the solver's floats (they differ by up to a
    unit, 1.5e-5, per probability)."""
    out = strat if in_place else np.array(strat, dtype=np.float64, copy=True)
    _quantise_rows(out, g.ns, g.rbase, g.act_off, g.last, g.NW, UNIT)
    return out


def iter_rows(sol):
    """(key, value) of every reachable (own dice, opponent dice, window) in key order: the window's
    rows of every roll, quantised (``encode_window``)."""
    for (a, b), g in sorted(sol.groups.items()):
        strat = sol.strategies[(a, b)]
        reach = structural_reach(g.ns, g.oth, g.root_w, g.order, g.act_off, g.child, g.NW)
        for own, opp in sorted({(a, b), (b, a)}):
            s = 0 if g.nsides == 1 else g.dice.index(own)
            n = int(g.ns[s])
            out = np.empty(n * (1 + 3 * (g.K + 1)), dtype=np.uint8)
            for w in range(g.NW):
                if not reach[s, w]:
                    continue
                a0 = 1 if g.last[w] < 0 else 0
                base = int(g.rbase[s] + g.act_off[w] * n)
                size = encode_window(strat, base, n, a0, int(g.act_off[w + 1] - g.act_off[w]), out)
                yield window_key(own, opp, w), out[:size].tobytes()


def round_stats(sol) -> dict[str, dict]:
    """Per-round statistics for the manifest (and ``GetStats``): numbers and labels."""
    out = {}
    for (op, oth), st in sorted(sol.stats.items()):
        out[f"{op}v{oth}"] = {k: (v if isinstance(v, str) else float(v)) for k, v in st.items()
                              if isinstance(v, (str, int, float, np.floating, np.integer))}
    return out


def round_curves(sol) -> dict[str, dict]:
    """Each round's training curve of ``training.train_to_floor`` (the group's worst round's
    exploitability at every doubling): {round: {iterations, exploitability, seconds}} (the seconds,
    under a key naming seconds, stay outside the content hash); empty without the floor rule."""
    out = {}
    for (op, oth), st in sorted(sol.stats.items()):
        if "curve_iterations" in st:
            out[f"{op}v{oth}"] = dict(iterations=[int(x) for x in st["curve_iterations"]],
                                      exploitability=[float(x) for x in st["curve_exploitability"]],
                                      seconds=[float(x) for x in st["curve_seconds"]])
    return out
