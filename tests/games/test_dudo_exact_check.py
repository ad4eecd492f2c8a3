"""The exact figures a Dudo store states (value, each seat's perfect-recall best response, exploitability)
are those of the rows it serves, checked by an independent computation (games.dudo.reference.exact_check: the
paper's rules, every claim history walked in plain numpy) against the rows read back from a built store;
the independent best response is itself checked against the sequence-form LP's equilibrium of 1v1."""
import numpy as np
import pytest

from games.dudo.reference import exact_check as xc
from games.dudo.abstraction.infoset import history_window
from games.dudo.rules import claim_table
from games.dudo.build.params import DudoParams
from games.dudo.build.rows import iter_rows
from games.storage import Store
from tests.conftest import built_dudo_manifest

# 2 dice a player, memory 4 beyond 1v1 (as the default store's 1v2 and 2v2), a few iterations; the exact best
# response up to 3 dice in play (1v1, 2v1): 2v2's 2**24 claim histories take minutes in plain numpy
SMALL = DudoParams(max_dice=2, iterations=10, memory=4, exact_br_total=3)
SEATS = ("value", "br_opener", "br_other", "exploitability")


def test_claim_order_is_the_papers():
    # the paper's table for 2 players with 1 die each (strengths 0..11)
    assert xc.claim_order(2) == [(1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 1),
                                 (2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 1)]
    six = xc.claim_order(6)     # "1x1, 2x1 and 3x1 immediately precede 2x2, 4x2 and 6x2"
    for k in (1, 2, 3):
        assert six.index((2 * k, 2)) == six.index((k, 1)) + 1
    for D in range(2, 11):
        order = xc.claim_order(D)
        assert sorted(order) == sorted((n, r) for n in range(1, D + 1) for r in range(1, 7))
        assert order == list(claim_table(D))        # the order the store's claim strengths use


def test_challenge_outcomes_are_the_papers():
    # Cal challenges Bob's 7x6: 10 count -> Cal loses 3; 5 -> Bob loses 2; 7 -> Cal loses 1; the winner opens
    assert xc.after_challenge(5, 5, 7, 10) == (False, 5, 2)
    assert xc.after_challenge(5, 5, 7, 5) == (True, 5, 3)
    assert xc.after_challenge(5, 5, 7, 7) == (False, 5, 4)
    assert xc.counting((1, 2, 6, 6), 6) == 3 and xc.counting((1, 2, 6, 6), 1) == 1
    assert sum(xc.roll_probability(r) for r in xc.rolls_of(3)) == pytest.approx(1.0, abs=1e-15)


def test_a_best_response_to_the_lp_equilibrium_gains_nothing():
    """The opener's sequence-form LP strategy of 1v1 (games.dudo.reference.lp, exact) guarantees the game value:
    the independent perfect-recall best responder in the other seat wins exactly 1 - value."""
    from games.dudo.reference.lp import sequence_form_value
    v, plan = sequence_form_value(1, 1)
    assert v == pytest.approx(-7 / 258, abs=1e-9)

    def lp_policy(own, opp, hist):
        last = hist[-1] if hist else -1
        P = np.zeros((12 - last, 6))
        for x in range(6):
            parent = plan[(x, hist[:-2], hist[-2])] if len(hist) >= 2 else 1.0
            for j in range(1 if last < 0 else 0, 12 - last):
                P[j, x] = plan.get((x, hist, -1 if j == 0 else last + j), 0.0) / parent if parent > 1e-12 else 0.0
        return P

    W = 0.5 * (1 - 7 / 258)
    assert xc.best_response(1, 1, 1, lp_policy, {}, {}) == pytest.approx(1 - W, abs=1e-7)
    # and a responder gains against a strategy that is not an equilibrium: uniform claims, never Dudo
    def naive(own, opp, hist):
        last = hist[-1] if hist else -1
        P = np.zeros((12 - last, 6))
        P[1:] = 1.0 / max(1, 11 - last)
        if last == 11:
            P[0] = 1.0
        return P
    assert xc.best_response(1, 1, 1, naive, {}, {}) > 1 - W + 0.1


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    root, manifest = built_dudo_manifest(SMALL, tmp_path_factory.mktemp("dudoexact"))
    store = Store((root / "dudo" / SMALL.variant / "current").resolve())
    yield store, manifest
    store.close()


def store_memories_of(manifest):
    return {(int(a), int(b)): (None if m == "perfect" else int(m)) for a, b, m in manifest["memory_by_group"]}


@pytest.fixture(scope="module")
def stored_figures(small_store):
    """The independent exact figures of the rows the small store serves (1v1, 2v1)."""
    store, manifest = small_store
    policy = xc.stored_policy(lambda key: store.get("windows", key), store_memories_of(manifest), history_window)
    return xc.exact_figures(policy, SMALL.max_dice, 3)


def test_stated_exact_figures_are_those_of_the_served_rows(small_store, stored_figures):
    """1v1 and 2v1 (exact rounds): each seat's stated figure equals the independent exact best response
    against the rows the server reads (quantised), with the responder best-responding in later rounds."""
    _, manifest = small_store
    assert set(stored_figures) == {(1, 1), (2, 1)}
    for (a, b), f in stored_figures.items():
        stated = manifest["rounds"][f"{a}v{b}"]
        assert stated["br_kind"] == "exact-perfect-recall"
        for k in SEATS:
            assert stated[k] == pytest.approx(f[k], abs=1e-9), (f"{a}v{b}", k)


def test_stated_1v2_figures_are_those_of_its_rows(tmp_path):
    """1v2 (a round only a game of 3 or more dice a player opens with 1 die against 2), solved as the
    builder does up to 3 dice in play; its rows as a store holds them (``rows.iter_rows``)."""
    from games.dudo.build.solve_game import solve_game
    sol = solve_game(max_dice=3, m=4, iterations=20, progress=False, log=None, max_total=3,
                     checkpoint_dir=str(tmp_path))
    rows = dict(iter_rows(sol))
    policy = xc.stored_policy(rows.get, {k: g.m for k, g in sol.groups.items()}, history_window)
    W, r_open, r_other = {}, {}, {}
    for a, b in [(1, 1), (1, 2)]:
        st = sol.stats[(a, b)]
        W[(a, b)] = xc.self_play_value(a, b, policy, W)
        r_open[(a, b)] = xc.best_response(a, b, 0, policy, r_open, r_other)
        r_other[(a, b)] = xc.best_response(a, b, 1, policy, r_open, r_other)
        assert st["value"] == pytest.approx(W[(a, b)], abs=1e-9)
        assert st["br_opener"] == pytest.approx(r_open[(a, b)], abs=1e-9)
        assert st["br_other"] == pytest.approx(r_other[(a, b)], abs=1e-9)


def test_served_exact_figures_are_no_worse_than_the_stored(small_store, stored_figures):
    """The policy a server answers on the exact rounds (1v1, 2v1): the store's rows, and an endgame re-solved
    live wherever the backend would (``DudoBackend.resolves``, the served module's functions in-process, no
    deadline); its exact figure, measured independently, is at most the stored rows' (here equal: the exact
    rounds are served from the store), and equals the stated one."""
    from games.dudo.serving.endgame_store import store_blueprint, store_W
    from games.dudo.policy.served import served_policy
    from server.backends.dudo import ENDGAME, DudoBackend
    store, manifest = small_store
    backend = DudoBackend(store)
    stored = xc.stored_policy(lambda key: store.get("windows", key), store_memories_of(manifest), history_window)
    served = served_policy(stored, store_blueprint(store), store_W(manifest), ENDGAME, rounds=backend.resolves)
    got = xc.exact_figures(served, SMALL.max_dice, 3)
    for (a, b), f in got.items():
        stated = manifest["rounds"][f"{a}v{b}"]
        assert stated["served"] == "stored rows"
        assert f["exploitability"] <= stored_figures[(a, b)]["exploitability"] + 1e-12
        for k in SEATS:
            assert stated[k] == pytest.approx(f[k], abs=1e-9), (f"{a}v{b}", k)
    assert not any(v is not None for v in served.solved.values())      # nothing re-solved on exact rounds
