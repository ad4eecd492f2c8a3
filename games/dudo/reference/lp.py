"""Exact value of a Dudo round by the sequence-form linear program (Koller, Megiddo & von
Stengel), solved with scipy's HiGHS.  Independent of the CFR code: it builds the unabstracted
game tree from ``rules`` directly.  Practical for 1 vs 1 (4,096 claim histories).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from games.dudo.rules import claim, roll_arrays, rolls


def sequence_form_value(d_open: int = 1, d_other: int = 1, utility=None):
    """Value for the opener (+-1 units: +1 = the opener wins) of the round with these dice.

    ``utility(challenger_is_opener, claim_n, actual) -> opener's utility``; default: the loser of
    the challenge loses the game (exact for 1 vs 1).  Returns (value, opener realisation plan as
    {(roll, history, action): prob}).
    """
    D = d_open + d_other
    K = 6 * D
    if utility is None:
        def utility(ch_is_opener, n, t):
            challenger_loses = t >= n
            opener_wins = (not challenger_loses) if ch_is_opener else challenger_loses
            return 1.0 if opener_wins else -1.0
    R = [rolls(d_open), rolls(d_other)]
    P = [roll_arrays(d_open)[0], roll_arrays(d_other)[0]]
    RC = [roll_arrays(d_open)[2], roll_arrays(d_other)[2]]
    seqs = [{(): 0}, {(): 0}]          # per player: sequence key -> column
    infosets = [[], []]                 # per player: (parent seq, [child seqs])

    def seq_id(p, key):
        d = seqs[p]
        if key not in d:
            d[key] = len(d)
        return d[key]

    # enumerate histories depth first: hist tuple of claims; mover = len % 2 (0 = opener)
    A = {}
    stack = [()]
    while stack:
        h = stack.pop()
        p = len(h) % 2
        last = h[-1] if h else -1
        acts = ([-1] if h else []) + list(range(last + 1, K))  # -1 = Dudo
        for x in range(len(R[p])):
            parent = (x, h[:-2], h[-2]) if len(h) >= 2 else ()
            pid = seq_id(p, parent)
            infosets[p].append((pid, [seq_id(p, (x, h, a)) for a in acts]))
        if h:
            n, r = claim(last, D)
            for x0 in range(len(R[0])):
                for x1 in range(len(R[1])):
                    t = int(RC[0][x0, r - 1] + RC[1][x1, r - 1])
                    u = utility(p == 0, n, t) * P[0][x0] * P[1][x1]
                    xs = (x0, x1)
                    own = (xs[p], h, -1)
                    opp = (xs[1 - p], h[:-1], h[-1])
                    s0, s1 = (own, opp) if p == 0 else (opp, own)
                    k = (seq_id(0, s0), seq_id(1, s1))
                    A[k] = A.get(k, 0.0) + u
        for c in range(last + 1, K):
            stack.append(h + (c,))
    n0, n1 = len(seqs[0]), len(seqs[1])

    def constraints(p, n):
        rows, cols, vals = [0], [0], [1.0]
        for i, (pid, kids) in enumerate(infosets[p], start=1):
            rows.append(i); cols.append(pid); vals.append(-1.0)
            for k in kids:
                rows.append(i); cols.append(k); vals.append(1.0)
        m = len(infosets[p]) + 1
        rhs = np.zeros(m)
        rhs[0] = 1.0
        return sp.csr_matrix((vals, (rows, cols)), shape=(m, n)), rhs

    E, e = constraints(0, n0)
    F, f = constraints(1, n1)
    keys = np.array(list(A.keys()))
    Am = sp.csr_matrix((np.array(list(A.values())), (keys[:, 0], keys[:, 1])), shape=(n0, n1))
    # max_{r0 >= 0, q} f.q  s.t.  E r0 = e,  F^T q - A^T r0 <= 0
    mq = F.shape[0]
    c = np.concatenate([np.zeros(n0), -f])
    A_ub = sp.hstack([-Am.T, F.T]).tocsr()
    b_ub = np.zeros(n1)
    A_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], mq))]).tocsr()
    bounds = [(0, None)] * n0 + [(None, None)] * mq
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=e, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(res.message)
    plan = {k: res.x[i] for k, i in seqs[0].items()}
    return -res.fun, plan
