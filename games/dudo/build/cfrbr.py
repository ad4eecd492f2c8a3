"""CFR-BR (Johanson, Bard, Burch & Bowling, "Finding Optimal Abstract Strategies in Extensive-Form
Games", AAAI 2012) on one Dudo group: the abstract strategy (memory m, group ``g``) learns by CFR+
against responders that remember more (group ``g_fine``: a longer memory, or perfect recall).

CFR on the abstract game converges to an equilibrium *of the abstraction*, which can be far more
exploitable in the real game than the least exploitable abstract strategy.  Here each iteration the
responders move on the fine DAG (a CFR+ update, the default, or the paper's best response to the current
abstract strategy), and the abstract player's counterfactual regrets, computed on the fine DAG, are summed
into its coarse information sets (every fine window maps to the coarse window of its last claims,
``bound.suffix_map``).  With a perfect-recall fine group the best response is the real game's, as in the paper.

Each side's strategy learns against the other side's responder; with equal dice (one shared
side) the fine group is split into two seats and the shared strategy learns from both seats.
"""
from __future__ import annotations

import os
import time

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.measure.bound import _lift, suffix_map
from games.dudo.abstraction.dag import Group
from games.dudo.abstraction.infoset import dominates
from games.dudo.solvers.kernels import normalize_average, regret_matching
from games.dudo.solvers.abstract_cfr import FastSolver, abstract_best_response
from games.dudo.solvers.training import train


@njit(cache=True)
def _gather(src, dst, phi, n, base_small, base_big, act_off_small, act_off_big, NW_big):
    """dst (coarse rows) += src (fine rows) through phi: the reverse of ``bound._lift``."""
    for w in range(NW_big):
        if phi[w] < 0:
            continue
        na = act_off_big[w + 1] - act_off_big[w]
        s0 = base_big + act_off_big[w] * n
        d0 = base_small + act_off_small[phi[w]] * n
        for i in range(na * n):
            dst[d0 + i] += src[s0 + i]


class CFRBR:
    """CFR+ with linear averaging for the abstract strategy of ``g`` against responders on ``g_fine``.

    ``responder="br"``: the responder plays a best response each iteration (CFR-BR as in the paper;
    its average converges as 1/sqrt(T)).  ``"cfr"``: each responder side learns by CFR+ on the fine
    group (the asymmetric game of an abstract and a fine player, whose equilibrium gives the abstract
    player its strategy that is least exploitable by fine responders; CFR+ converges much faster)."""

    def __init__(self, g: Group, g_fine: Group, responder: str = "cfr", threads=1):
        """``threads``: the fine passes' numba threads, or a callable asked before each pass (as
        ``FastSolver``'s; the same bits on any number)."""
        if g.K != g_fine.K or not dominates(g.K, g_fine.m, g.m):
            raise ValueError("the fine group must have the same dice and remember at least as much")
        if g.nsides == 1 and g_fine.nsides != 2:
            raise ValueError("with equal dice the fine group must be split into two seats (split=True)")
        if responder not in ("br", "cfr"):
            raise ValueError(f"responder {responder!r}: 'br' or 'cfr'")
        self.g, self.gf, self.responder = g, g_fine, responder
        # (coarse side, fine side it plays, fine side of the responder)
        self.pairs = [(0, 0, 1), (1, 1, 0)] if g.nsides == 2 else [(0, 0, 1), (0, 1, 0)]
        self.phi = suffix_map(g_fine.order, g_fine.act_off, g_fine.child, g.act_off, g.child, g_fine.NW)
        self.reg = np.zeros(g.nrows)
        self.ssum = np.zeros(g.nrows)
        self._pred = np.zeros(1)
        # the fine solver's reg holds the responders' regrets; "record" passes leave the abstract
        # player's instantaneous regrets in its pred and touch no regret
        self.fine = FastSolver(g_fine, mode="record", alternate=False, threads=threads)
        self.fine.strat = np.zeros(1)       # unused: the profile below is the fine strategy
        self.profile = np.zeros(g_fine.nrows)
        self.t = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def current_strategy(self) -> np.ndarray:
        g = self.g
        out = np.zeros(g.nrows)
        regret_matching(self.reg, out, g.ns, g.rbase, g.NW, g.act_off, g.last, self._pred, False)
        return out

    def average_strategy(self) -> np.ndarray:
        g = self.g
        out = np.zeros(g.nrows)
        normalize_average(self.ssum, out, g.ns, g.rbase, g.NW, g.act_off, g.last)
        return out

    def _rows(self, fs):
        return int(self.gf.rbase[fs]), int(self.gf.rbase[fs + 1])

    def _pass(self, mode: str, phase: int):
        f = self.fine
        f.mode = mode
        f._forward(self.profile)
        f._backward(self.profile, True, float(self.t), phase=phase)

    def fsicfr_iteration(self):
        """One iteration (FSICFR passes on the fine DAG): the responders' move (best response or CFR+
        update), then the abstract strategy's CFR+ update from its regrets against them, summed over fine
        windows."""
        t0, c0 = time.perf_counter(), time.process_time()
        self.t += 1
        g, gf, f, prof = self.g, self.gf, self.fine, self.profile
        sigma = self.current_strategy()
        inst = np.zeros(g.nrows)
        acc = np.zeros(g.nrows)
        for cs, fs, bs in self.pairs:
            lo, hi = self._rows(fs)
            blo, bhi = self._rows(bs)
            if self.responder == "br":
                self._put(sigma, cs, fs)
                _, resp = abstract_best_response(gf, prof, bs)
                prof[blo:bhi] = resp[blo:bhi]
                del resp
            else:
                self._respond(bs)
                self._put(sigma, cs, fs)
                self._pass("cfr+", bs)      # the responder's alternating CFR+ update
                self._respond(bs)           # the pass reads the profile, so side fs still holds sigma
            f.pred[:] = 0.0
            f.ssum[lo:hi] = 0.0
            self._pass("record", fs)
            self._gather(f.pred, inst, cs, fs)
            self._gather(f.ssum, acc, cs, fs)
        np.maximum(self.reg + inst, 0.0, out=self.reg)
        self.ssum += acc
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0

    def _put(self, sigma, cs, fs):
        """The abstract strategy (side cs) into the profile's rows of fine side fs."""
        g, gf = self.g, self.gf
        lo, hi = self._rows(fs)
        self.profile[lo:hi] = 0.0
        _lift(sigma, self.profile, self.phi, int(g.ns[cs]), int(g.rbase[cs]), lo, g.act_off, gf.act_off, gf.NW)

    def _respond(self, bs):
        """The profile's rows of fine side bs: the responder's current strategy (regret matching)."""
        gf = self.gf
        regret_matching(self.fine.reg, self.profile, gf.ns[bs:bs + 1], gf.rbase[bs:], gf.NW, gf.act_off, gf.last,
                        self._pred, False)

    def _gather(self, src, dst, cs, fs):
        g, gf = self.g, self.gf
        _gather(src, dst, self.phi, int(g.ns[cs]), int(g.rbase[cs]), int(gf.rbase[fs]), g.act_off,
                gf.act_off, gf.NW)

    def solve(self, iterations: int, checkpoint: str | None = None, every: int = 0, progress: bool = False,
              desc: str = "", should_stop=None):
        return train(self, iterations, checkpoint, every, progress, desc or f"dudo {self.g.dice} vs fine",
                     should_stop)

    def save(self, path: str):
        tmp = path + ".tmp.npz"
        np.savez(tmp, reg=self.reg, ssum=self.ssum, fine_reg=self.fine.reg, t=self.t, seconds=self.seconds,
                 dice=np.array(self.g.dice), m=str(self.g.m), m_fine=str(self.gf.m), responder=self.responder)
        os.replace(tmp, path)

    def load(self, path: str):
        z = np.load(path)
        if (tuple(z["dice"]) != tuple(self.g.dice) or str(z["m"]) != str(self.g.m)
                or str(z["m_fine"]) != str(self.gf.m) or str(z["responder"]) != self.responder):
            raise ValueError("checkpoint is for another group or responder")
        self.reg[:] = z["reg"]
        self.ssum[:] = z["ssum"]
        self.fine.reg[:] = z["fine_reg"]
        self.t = int(z["t"])
        self.seconds = float(z["seconds"])
        return self
