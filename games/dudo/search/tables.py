"""The tables a store keeps so that a server can search a large Dudo round (``abstract_resolve.AbstractResolver``):
its leaves and its round-start re-solves, computed once at build time from the stored (quantised) rows.

Per dice group {a, b} (a <= b), ``search/{a}v{b}/``:

* ``V``: int8 value matrices (``abstract_resolve.int8_continuations``'s step) in the reference kernel's layout
  (``voff``): row 0 the blueprint played by both sides, row ``1 + s`` side ``s`` best-responding
  (``kernels.br_backward``) to the blueprint of the other side.  A requester whose opponent plays side
  ``o`` reads rows ``(0, 1 + o)``: the opponent's two continuation strategies at the leaves (Brown,
  Sandholm & Amos, "Depth-Limited Solving for Imperfect-Information Games", NeurIPS 2018).
* ``voff``, ``top`` (the claims the blueprint plays most per side and window, ``abstract_resolve.top_claims``).

Per seat of each round, ``search/{own}v{opp}{o|n}/`` (``o``: the requester opens): the re-solve at the
round's root (every claim kept), which is the same for every request (``root_strategy`` where the
requester moves first, ``vO``, ``cfirst``, ``nch``, ``last``).  Where the opponent opens, the re-solves of the
requester's first decision whose subgame has at least ``FIRST_REPLY_LEAVES`` leaves (the opponent's first claim
low: the largest re-solves of the round, each a function of that claim alone) are stored too, under
``first/{claim}/`` with the same names, ``first_claims`` listing the claims: a server reads them instead of
computing them, the same bits.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.dudo.search.continual import Continuations
from games.dudo.abstraction.dag import make_group
from games.dudo.solvers.kernels import br_backward
from games.dudo.search.abstract_resolve import AbstractResolver, top_claims
from games.dudo.search.resolve import INT8_STEP, Resolve


@dataclass(frozen=True)
class LargeSearchSpec:
    """How the large rounds are searched: rounds with at least ``min_total`` dice in play, depth-``depth``
    re-solves of ``iterations`` iterations of ``regrets`` ("cfr+" or "dcfr", ``resolve.REGRET_SCHEMES``) keeping
    ``A`` own claims (``near`` of them the next ones), int8 leaves, max-margin gadget (docs/dudo-search-serving.md,
    sections 5, 6 and 8)."""
    min_total: int = 6
    depth: int = 2
    iterations: int = 100
    A: int = 14
    near: int = 1
    gadget: str = "maxmargin"
    # a store whose manifest names no scheme was built with CFR+ re-solves (its round-start re-solves are stored)
    regrets: str = "cfr+"
    # groups {a, b} (a <= b) whose rounds keep the stored rows although they have min_total dice: the
    # searched policy was measured more exploitable there than the rows
    rows_groups: tuple = ()
    # rounds (opener, other) with fewer than min_total dice whose seats' tables are stored too: each is served by
    # search once the exact walk of its searched policy (``builder.measure_search``) states a figure below the
    # rows' exact one, and keeps the rows otherwise
    exact_rounds: tuple = ()

    def __post_init__(self):
        from games.dudo.search.resolve import regret_scheme
        object.__setattr__(self, "rows_groups", tuple(tuple(int(x) for x in g) for g in self.rows_groups))
        object.__setattr__(self, "exact_rounds", tuple(tuple(int(x) for x in r) for r in self.exact_rounds))
        for op, oth in self.exact_rounds:
            if op + oth >= self.min_total:
                raise ValueError(f"exact round {op}v{oth}: it has min_total = {self.min_total} dice or more, "
                                 f"searched as a large round")
        regret_scheme(self.regrets)

    def label(self) -> str:
        return (f"depth {self.depth}, {self.A} own claims, {self.iterations} {self.regrets.upper()} iterations a "
                f"re-solve, int8 leaves, {self.gadget} gadget")

    def covers(self, opener: int, other: int) -> bool:
        """Whether the round is a large one, searched whatever its figures say."""
        return opener + other >= self.min_total and (min(opener, other), max(opener, other)) not in self.rows_groups

    def tabled_rounds(self, a: int, b: int) -> list[tuple[int, int]]:
        """The rounds (opener, other) of group {a, b} whose seats' search tables a store keeps: both of a large
        group's, and its ``exact_rounds``."""
        rounds = sorted({(a, b), (b, a)})
        return [r for r in rounds if self.covers(*r) or r in self.exact_rounds]


def group_key(a: int, b: int) -> str:
    return f"search/{min(a, b)}v{max(a, b)}"


def seat_key(own: int, opp: int, opened: bool) -> str:
    return f"search/{own}v{opp}{'o' if opened else 'n'}"


def _int8(V: np.ndarray, out: np.ndarray) -> None:
    step = 1 << 22
    for lo in range(0, V.size, step):
        x = np.asarray(V[lo:lo + step], dtype=np.float32)
        if x.size and np.abs(x).max() > 1.0 + 1e-6:
            raise ValueError("int8 leaves need values in [-1, 1]")
        out[lo:lo + step] = np.rint(x * np.float32(1.0 / INT8_STEP))


def leaf_tables(a: int, b: int, m, strat: np.ndarray, W, A: int) -> dict[str, np.ndarray]:
    """{name: array} of group {a, b}'s leaves (``V``, ``voff``) and ``top`` claims from its stored strategy
    ``strat`` (memory ``m``, the solvers' layout), the rounds below valued by ``W``."""
    from games.dudo.solvers.abstract_cfr import FastSolver
    split = a == b
    g = make_group(a, b, m, W, split=split)
    full = np.concatenate([strat, strat]) if split else strat
    sol = FastSolver(g, kernel="reference", train=False)
    sol._forward(full)
    V = np.empty((3, sol.V.size), dtype=np.int8)
    sol._backward(full, False)
    _int8(sol.V, V[0])
    for s in range(2):
        choice = np.full(g.nrows, -1, dtype=np.int64)
        br_backward(full, sol.V, sol.oreach, g.ns, g.oth, g.rc, g.claim_r, g.terminal, g.rbase, g.order,
                    g.act_off, g.last, g.child, g.NW, sol.reachable, s, sol.voff, choice)
        _int8(sol.V, V[1 + s])
    unsplit = make_group(a, b, m, W) if split else g
    return dict(V=V, voff=sol.voff.astype(np.int64), top=top_claims(strat, unsplit, A))


def continuations(tables: dict, a: int, b: int, m, own: int, opened: bool) -> Continuations:
    """The requester's (``own`` dice; ``opened``: it opens) continuations on group {a, b}'s stored tables."""
    side = _sides(a, b, own, opened)
    act_off, child, K = _window_layout(a, b, m)
    return Continuations(tables["V"], tables["voff"], side, act_off, child, m, K, ("blueprint", "br"),
                         cidx=np.array([0, 1 + int(side[1])], dtype=np.int64))


def _sides(a: int, b: int, own: int, opened: bool) -> np.ndarray:
    """Group sides of (requester, opponent): with equal dice side 0 opens; else the side holding ``own`` dice."""
    if a == b:
        return np.array([0, 1] if opened else [1, 0], dtype=np.int64)
    s = (a, b).index(own)
    return np.array([s, 1 - s], dtype=np.int64)


def _window_layout(a: int, b: int, m):
    from games.dudo.abstraction.infoset import window_tables
    K = 6 * (a + b)
    _, _, act_off, child = window_tables(K, m)
    return act_off, child, K


def resolver(tables: dict, a: int, b: int, m, W, own: int, opp: int, opened: bool,
             spec: LargeSearchSpec, threads: int = 1) -> AbstractResolver:
    """The requester's searched policy on group {a, b}'s stored tables."""
    cont = continuations(tables, a, b, m, own, opened)
    return AbstractResolver(own, opp, opened, W, cont, tables["top"], depth=spec.depth, iterations=spec.iterations,
                            gadget=spec.gadget, A=spec.A, near=spec.near, root_full=True, threads=threads,
                            regrets=spec.regrets)


def root_tables(res: Resolve) -> dict[str, np.ndarray]:
    out = dict(vO=res.vO, cfirst=res.cfirst, nch=res.nch, last=res.last)
    if res.root_strategy is not None:
        out["root_strategy"] = res.root_strategy
    return out


def root_from_tables(t: dict, L0: int = -1) -> Resolve:
    return Resolve(t.get("root_strategy"), t["vO"], t["cfirst"], t["nch"], t["last"], L0, 0.0,
                   int(t["last"].size), 0)


# the requester's first decisions whose re-solve is stored where the opponent opens: subgames of at least this many
# leaves (the default store: at 5v5 the opening claims up to 11, 1.4-2.2 s of wall each on two threads, the slowest
# searched moves; at 5v4 and 4v5 the lowest 5 and 6; no other round has a subgame this large)
FIRST_REPLY_LEAVES = 550


def first_replies(pol, root: Resolve, min_leaves: int | None = None):
    """(claim, re-solve) of the requester's first decision after each opening claim of the opponent whose subgame
    has at least ``min_leaves`` leaves: what ``large_search.chain`` computes there, from the round's root re-solve
    ``root`` (the requester does not open)."""
    from games.dudo.search.endgame import REQ
    min_leaves = FIRST_REPLY_LEAVES if min_leaves is None else min_leaves
    for c in range(pol.K - 1):
        if int(pol._layout((c,), c, REQ)[4].sum()) >= min_leaves:
            yield c, pol.resolve((c,), pol.prior_req.copy(), root.target((c,)))


def seats(a: int, b: int, rounds=None):
    """(own, opp, opened) of every requester seat of group {a, b}'s rounds (``rounds``: of those (opener, other)
    only)."""
    out = {(own, a + b - own, opened) for own in (a, b) for opened in (True, False)}
    if rounds is not None:
        out = {s for s in out if (s[:2] if s[2] else s[1::-1]) in set(rounds)}
    return sorted(out)


def group_tables(sol, spec: LargeSearchSpec, key: tuple[int, int], log=None):
    """(name, array) of group ``key``'s search tables from a solved game ``sol`` (``solve_game.DudoSolution``, its
    stored quantised strategies): the leaves, then each seat's root re-solve and, where the opponent opens, its
    largest first replies (``first_replies``)."""
    import time
    a, b = key
    g = sol.groups[key]
    W = {r: v for r, v in sol.W.items() if sum(r) < a + b}
    strat = np.asarray(sol.strategies[key], dtype=np.float64)
    t0 = time.process_time()
    t = leaf_tables(a, b, g.m, strat, W, spec.A)
    t1 = time.process_time()
    gk = group_key(a, b)
    for n, arr in t.items():
        yield f"{gk}/{n}", arr
    for own, opp, opened in seats(a, b, spec.tabled_rounds(a, b)):
        pol = resolver(t, a, b, g.m, W, own, opp, opened, spec, threads=2)    # the same bits as one thread
        root = pol.resolve((), pol.prior_req.copy())
        sk = seat_key(own, opp, opened)
        for n, arr in root_tables(root).items():
            yield f"{sk}/{n}", arr
        if not opened:
            claims = []
            for c, res in first_replies(pol, root):
                claims.append(c)
                for n, arr in root_tables(res).items():
                    yield f"{sk}/first/{c}/{n}", arr
            yield f"{sk}/first_claims", np.array(claims, dtype=np.int64)
    if log:
        log(f"search tables of {a}v{b}: leaves {t['V'].nbytes / 1e6:.0f} MB in {t1 - t0:.1f} CPU s, stored re-solves "
            f"{time.process_time() - t1:.1f} CPU s")


def searched_groups(sol, spec: LargeSearchSpec) -> list[tuple[int, int]]:
    """The groups with search tables: a round searched (enough dice in play and not kept on the rows, or an exact
    round to search) and an abstraction to search on."""
    return [k for k in sorted(sol.groups) if spec.tabled_rounds(*k) and sol.groups[k].m is not None]
