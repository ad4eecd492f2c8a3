"""A round's sampled lower bound on the exploitability of any Dudo policy, both seats summed as GetStats
states it: the lookahead responder (``measure.lookahead``) against the policy itself, on the responder
tables of the stored rows.  Its validated share of the exact figure is docs/dudo-search-serving.md's
"A responder strong against search" (``research`` script ``dudo_responder validate``)."""
from __future__ import annotations

import multiprocessing
import os

import numpy as np

from games.parent_death import die_with_parent
from games.storage import Store
from games.dudo.serving.endgame_store import store_W, stored_group
from games.dudo.abstraction.infoset import dominates
from games.dudo.measure.lbr import responder_tables
from games.dudo.measure.responder import sample_response
from games.dudo.measure.lookahead import LookaheadChooser


def respond(policy_for_seat, round_: tuple[int, int], g, strat: np.ndarray, W: dict, resp_open: dict,
            resp_other: dict, max_dice: int, games: int, seed: int = 0, m_resp=None, depth: int = 1,
            width: int = 4, control: bool = True, parallel_seats: bool = False) -> dict:
    """The lookahead responder's figure in ``round_`` = (opener's dice, other's dice) against the policy
    ``policy_for_seat(resp_is_opener)`` (the fixed player's ``policy(hist) -> P[slot, roll]`` in the seat
    facing the responder), ``games`` sampled rounds a seat, deterministic from ``seed``.  ``g``, ``strat``:
    the round's stored group and rows (the responder's leaf values: the memory-``m_resp`` best response to
    them; by default ``responder_memory``); ``resp_open`` / ``resp_other``: the responder's winning
    probabilities in the later rounds; ``control``: each round's value with AIVAT's control variates (``measure.responder.sample_response``: the same mean,
    on the exact rounds a tenth of the standard error or less); ``parallel_seats``: the responder's seat as the
    opener in a forked process beside the other (the same figures, in about half the wall on two idle cores).

    Returns value (br_opener + br_other - 1, a lower bound of the policy's exploitability in expectation),
    stderr, games (a seat), responder (its name and memory), br_opener, br_other and their standard errors."""
    opener = round_[0]
    m_resp = responder_memory(g) if m_resp is None else m_resp

    def seat(resp_is_opener: bool):
        t = responder_tables(g, strat, opener, resp_is_opener, m_resp, W, resp_open, resp_other, max_dice)
        policy = policy_for_seat(resp_is_opener)
        choose = LookaheadChooser(t, policy, depth=depth, width=width)
        return sample_response(t, policy, resp_is_opener, games, seed=seed + (0 if resp_is_opener else 1),
                               choose=choose, control=control)

    seats = both_seats_forked(seat) if parallel_seats else {s: seat(s) for s in (True, False)}
    o, n = seats[True], seats[False]
    return dict(value=o.value + n.value - 1.0, stderr=float(np.hypot(o.stderr, n.stderr)), games=games,
                responder=responder_name(depth, width, m_resp), br_opener=o.value, br_opener_stderr=o.stderr,
                br_other=n.value, br_other_stderr=n.stderr)


def responder_memory(g):
    """The responder's memory on the stored group ``g``: 2, where that remembers all the rows' memory does (its
    tables lift the rows: ``bound.lift_strategy``), else the rows' own memory."""
    return 2 if dominates(g.K, 2, g.m) else g.m


def responder_name(depth: int, width: int, m_resp) -> str:
    return f"{LookaheadChooser.name_of(depth, width)}, leaves of memory {m_resp}"


def both_seats_forked(seat) -> dict:
    """{True: seat(True), False: seat(False)}, seat(True) computed in a forked child meanwhile."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    parent = os.getpid()

    def child():
        die_with_parent(parent=parent)
        try:
            send.send(("ok", seat(True)))
        except BaseException as e:  # noqa: BLE001 - reported to the parent, which raises it
            send.send(("error", f"{type(e).__name__}: {e}"))

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    try:
        other = seat(False)
        status, opener = recv.recv()
    finally:
        proc.join()
    if status != "ok":
        raise RuntimeError(f"the opener seat's responder failed: {opener}")
    return {True: opener, False: other}


def respond_on_store(policy_for_seat, round_: tuple[int, int], store: Store, games: int, seed: int = 0,
                     resp_open: dict | None = None, resp_other: dict | None = None, **kw) -> dict:
    """``respond`` on a store's round: its stored group and rows, its continuation values; the responder's
    later rounds default to the store's values (it plays on as the store does: the round's own share)."""
    a, b = round_
    g, strat, _ = stored_group(store, (min(a, b), max(a, b)))
    W = store_W(store.manifest)
    resp_open = dict(W) if resp_open is None else resp_open
    resp_other = {r: 1.0 - v for r, v in W.items()} if resp_other is None else resp_other
    return respond(policy_for_seat, round_, g, strat, W, resp_open, resp_other,
                   int(store.manifest["parameters"]["max_dice"]), games, seed, **kw)
