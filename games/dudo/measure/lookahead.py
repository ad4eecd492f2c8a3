"""A responder that searches against the policy it faces: depth-limited expectimax over the policy's
own replies (docs/dudo-search-serving.md, "A responder strong against search").

The rows' responder (``responder``) values each of its actions by the memory-m' best response to the *stored
rows* (``lbr.responder_tables``), so against a searched policy, which answers differently from the
rows exactly where the rows are weak, it plays into lines search has closed.  This responder looks
ahead instead: at its decision after history h (its roll x known, the exact posterior over the
policy's roll from the policy's own probabilities along h) it expands Dudo and the ``width`` claims of
highest depth-0 value; for a claim c it calls the policy at the hypothetical history h + (c,) and takes
the posterior expectation over the policy's reply: the policy's Dudo valued exactly, each claim b
leading to the responder's next decision, valued by the same search one reply shallower.  At depth 0
an action is valued as ``responder`` values it (Dudo exactly, a claim by the best response to the
rows below it).  It is Lisý & Bowling's local best response (AAAI 2017: a one-action lookahead with
the policy's true action probabilities and the posterior over its private state) extended to
``depth`` replies of the policy, with the rows' best response in place of LBR's fixed rollout.

Why it is a lower bound: its action depends only on what it observes (its roll x and the history h):
the policy is a fixed function of the history (a chained re-solve is deterministic, the same bits
whatever was computed before), the posterior is the policy's own along h, and the leaf tables are
fixed.  So it is one fixed strategy of the responder, and its value against the policy is at most the
policy's best-response value, however good its lookahead values are; sampling adds noise, not bias.

Cost: one policy call per hypothetical history (a re-solve for a searched policy, which should keep its
answers by history as ``responder.SearchedPolicy`` does); at depth 1, ``width`` calls per decision, of
which the claim played is one the game needs anyway.
"""
from __future__ import annotations

import numpy as np

from games.dudo.measure.lbr import ResponderTables
from games.dudo.measure.responder import challenge_payoffs, rows_action_values

NAME = "lookahead responder (depth {depth}, width {width}, over the policy's own replies)"

# what the validation against the searched policy's exact figure found for a responder (docs/dudo-search-serving.md,
# "Validation on the exact rounds"; ``research.dudo_responder validate``), sampled as ``serving.respond`` states it
VALIDATION = {NAME.format(depth=1, width=4): "validated share of the searched policy's exact figure: 0.84-0.98 on "
                                             "1v1, 1v2 and 2v1 (12-18 claims; 0.88-0.98 against the DCFR re-solves "
                                             "served), 0.86-0.98 on 2v2, 1v3 and 3v1 (24 claims, the exact figure "
                                             "bracketed); a 5v5 round has 60 claims"}


def validation(responder: str) -> str:
    """What the validation found for the responder named ``responder`` (its name may go on, e.g. with its leaves'
    memory), or "" where it was not validated."""
    return next((v for name, v in VALIDATION.items() if responder.startswith(name)), "")


class LookaheadChooser:
    """``choose(x, hist, w, L, post) -> slot`` of the responder of tables ``t`` against ``policy``
    (``policy(hist) -> P[slot, roll]`` of the fixed player, in the rolls of ``t``'s fixed side).
    ``depth``: policy replies searched; ``width``: claims expanded at each searched decision (those of
    highest depth-0 value); ``min_prob``: a reply of predictive probability at most this is valued at
    depth 0 (no policy call below it)."""

    def __init__(self, t: ResponderTables, policy, depth: int = 1, width: int = 4, min_prob: float = 0.0):
        if depth < 0 or width < 1:
            raise ValueError(f"depth={depth}, width={width}: need depth >= 0 and width >= 1")
        self.t, self.policy, self.depth, self.width, self.min_prob = t, policy, depth, width, min_prob
        self.Uf = 2 * t.T_fix - 1       # +-1 units, the fixed player challenging
        self.memo: dict = {}            # (x, hist, depth) -> action values; the posterior is hist's

    @property
    def name(self) -> str:
        return self.name_of(self.depth, self.width)

    @staticmethod
    def name_of(depth: int, width: int) -> str:
        return NAME.format(depth=depth, width=width)

    def __call__(self, x, hist, w, L, post) -> int:
        return int(np.argmax(self.values(x, tuple(hist), w, L, post, self.depth)))

    def values(self, x, hist, w, L, post, depth) -> np.ndarray:
        """The responder's action values at its decision after ``hist`` (window ``w``, last claim ``L``),
        searched ``depth`` policy replies deep; claims not expanded are -inf."""
        key = (x, hist, depth)
        got = self.memo.get(key)
        if got is not None:
            return got
        Q0 = rows_action_values(self.t, x, w, L, post)
        if depth == 0:
            self.memo[key] = Q0
            return Q0
        Q = np.full(Q0.size, -np.inf)
        Q[0] = Q0[0]
        for j in 1 + np.argsort(-Q0[1:], kind="stable")[:self.width]:
            Q[j] = self._after_claim(x, hist, w, L + int(j), int(j), post, depth)
        self.memo[key] = Q
        return Q

    def _after_claim(self, x, hist, w, c, j, post, depth) -> float:
        """The responder's expected value after it claims ``c`` (slot ``j`` at window ``w``): the policy
        replies at hist + (c,) with its own probabilities."""
        gs = self.t.gs
        h1 = hist + (c,)
        w1 = int(gs.child[gs.act_off[w] + j])
        joint = np.asarray(self.policy(h1)) * post       # [reply, fixed roll]
        v = float(joint[0] @ challenge_payoffs(self.t, self.Uf, c, x))
        for b in range(1, gs.K - c):
            q = joint[b].sum()
            if q > 0:
                below = depth - 1 if q > self.min_prob else 0
                Qb = self.values(x, h1 + (c + b,), int(gs.child[gs.act_off[w1] + b]), c + b, joint[b] / q, below)
                v += q * float(Qb.max())
        return v
