"""The lookahead responder (games.dudo.measure.lookahead) and the round figure the server states with it
(games.dudo.serving.respond), checked on 1v1 against independent computations: exploit.py's exact best response
to the stored rows and continual.seat_best_response's exact best response to the searched policy (the serving
setting: depth 2, A = 6 (every 1v1 round has 12 claims, fewer than serving's 14), 100 CFR+ iterations, int8
leaves, max-margin gadget, on a memory-2 blueprint of 200 iterations)."""
import numpy as np
import pytest

from research.dudo_design import continuations, train
from games.dudo.measure.exploit import payoff_tables
from games.dudo.search.continual import continuation_values, seat_best_response
from games.dudo.measure.exploit import best_response_value
from games.dudo.measure.lbr import responder_tables
from games.dudo.search.abstract_resolve import AbstractResolver, int8_continuations, top_claims
from games.dudo.measure.responder import SearchedPolicy, rows_choice, sample_response, stored_policy, strategy_value
from games.dudo.measure.lookahead import LookaheadChooser
from games.dudo.serving.respond import respond, responder_memory, responder_name

# the lookahead responder (depth 1, width 4) finds 0.925 of the exact figure of search on this round
# (research.dudo_responder validate --group 1v1); the rows' responder 0.577
SHARE_FLOOR = 0.85


@pytest.fixture(scope="module")
def round_1v1():
    W, bo, bn = continuations(2, log=lambda *x: None)
    g, st, _ = train(1, 1, 2, 200, W)
    top = top_claims(st, g, 6)
    seats = {}
    for resp_opens in (True, False):
        cont = int8_continuations(continuation_values(1, 1, 2, st, W, 1, not resp_opens))

        def searched(cont=cont, resp_opens=resp_opens):
            return AbstractResolver(1, 1, not resp_opens, W, cont, top, depth=2, iterations=100, gadget="maxmargin",
                                    A=6, near=1)
        exact = seat_best_response(searched(), payoff_tables(1, 1, W, bo, bn))
        t = responder_tables(g, st, 1, resp_opens, 2, W, bo, bn, 5)
        seats[resp_opens] = dict(policy=SearchedPolicy(searched()), exact=exact, t=t)
    return dict(W=W, bo=bo, bn=bn, g=g, st=st, seats=seats)


def test_full_lookahead_is_the_exact_best_response(round_1v1):
    """Searched to the round's end over every claim, the responder is the perfect-recall best response: its
    exact value against the stored rows is exploit.py's best response value."""
    r = round_1v1
    rows = stored_policy(r["g"], r["st"], 0)
    for resp_opens in (True, False):
        t = r["seats"][resp_opens]["t"]
        full = LookaheadChooser(t, rows, depth=r["g"].K, width=r["g"].K)
        assert strategy_value(t, rows, resp_opens, full) == pytest.approx(
            best_response_value(r["g"], r["st"], 1, resp_opens, r["bo"], r["bn"]), abs=1e-9)


def test_lookahead_finds_most_of_search_exploitability(round_1v1):
    """Against search each seat's responder is below the exact best response (a fixed strategy: a lower bound),
    and both seats together find at least SHARE_FLOOR of the exact figure."""
    seats = round_1v1["seats"]
    total, exact = -1.0, -1.0
    for resp_opens, s in seats.items():
        v = strategy_value(s["t"], s["policy"], resp_opens, LookaheadChooser(s["t"], s["policy"], depth=1, width=4))
        assert v <= s["exact"] + 1e-9
        total += v
        exact += s["exact"]
    assert total >= SHARE_FLOOR * exact, (total, exact)


def test_rows_responder_misses_what_the_lookahead_finds(round_1v1):
    """The floor is one the rows' responder (measure.responder's) does not reach: the lookahead is what finds it."""
    seats = round_1v1["seats"]
    total = sum(strategy_value(s["t"], s["policy"], o, rows_choice(s["t"])) for o, s in seats.items()) - 1
    exact = sum(s["exact"] for s in seats.values()) - 1
    assert total < SHARE_FLOOR * exact


def test_enumerated_value_is_what_sampling_estimates(round_1v1):
    """strategy_value (every reply enumerated) and sample_response (replies sampled) agree for the rows'
    responder against the rows, within 4 standard errors."""
    r = round_1v1
    rows = stored_policy(r["g"], r["st"], 0)
    for resp_opens in (True, False):
        t = r["seats"][resp_opens]["t"]
        s = sample_response(t, rows, resp_opens, 4000, seed=2)
        assert abs(s.value - strategy_value(t, rows, resp_opens)) < 4 * s.stderr


def test_control_variates_keep_the_mean_and_cut_the_error(round_1v1):
    """sample_response(control=True) against search: within 4 of its (small) standard errors of the responder's
    exact value, with a fifth of the plain estimate's standard error or less (measured: a fiftieth)."""
    for resp_opens, s in round_1v1["seats"].items():
        choose = LookaheadChooser(s["t"], s["policy"], depth=1, width=4)
        exact = strategy_value(s["t"], s["policy"], resp_opens, choose)
        plain = sample_response(s["t"], s["policy"], resp_opens, 2000, seed=4, choose=choose)
        cv = sample_response(s["t"], s["policy"], resp_opens, 2000, seed=4, choose=choose, control=True)
        assert abs(cv.value - exact) < 4 * cv.stderr
        assert cv.stderr < plain.stderr / 5


def test_respond_states_a_lower_bound_deterministically(round_1v1):
    """respond's figure: both seats' sampled values summed, within 4 standard errors of the responder's exact
    value, below the exact figure plus 4 standard errors, at least SHARE_FLOOR of it on this seed, and the same
    figure from the same seed."""
    r = round_1v1
    seats = r["seats"]

    def run(games):
        return respond(lambda resp_opens: seats[resp_opens]["policy"], (1, 1), r["g"], r["st"], r["W"], r["bo"],
                       r["bn"], 5, games, seed=0)
    out = run(4000)
    exact = sum(s["exact"] for s in seats.values()) - 1
    enumerated = sum(strategy_value(s["t"], s["policy"], o, LookaheadChooser(s["t"], s["policy"], depth=1, width=4))
                     for o, s in seats.items()) - 1
    assert out["games"] == 4000 and out["responder"] == responder_name(1, 4, 2)
    assert out["value"] == pytest.approx(out["br_opener"] + out["br_other"] - 1)
    assert abs(out["value"] - enumerated) < 4 * out["stderr"]
    assert out["value"] < exact + 4 * out["stderr"]
    assert out["value"] >= SHARE_FLOOR * exact
    assert run(300) == run(300)
    both = respond(lambda resp_opens: seats[resp_opens]["policy"], (1, 1), r["g"], r["st"], r["W"], r["bo"],
                   r["bn"], 5, 300, seed=0, parallel_seats=True)
    assert both == run(300)                 # the seats in two processes: the same figures


def test_bad_settings_are_refused(round_1v1):
    t = round_1v1["seats"][True]["t"]
    with pytest.raises(ValueError, match="width"):
        LookaheadChooser(t, lambda h: None, depth=1, width=0)
    with pytest.raises(ValueError, match="depth"):
        LookaheadChooser(t, lambda h: None, depth=-1)


def test_rows_remembering_more_than_two_claims_get_a_responder_of_their_memory(round_1v1):
    """The full store's rows remember more than 2 claims (memory 3 and more): the responder's tables lift the rows,
    so its memory is theirs (memory 2 cannot lift them), and its figure stays below the exact best response to them."""
    r = round_1v1
    g3, st3, _ = train(1, 1, 3, 50, r["W"])
    assert responder_memory(r["g"]) == 2 and responder_memory(g3) == 3
    rows = stored_policy(g3, st3, 0)
    out = respond(lambda resp_opens: rows, (1, 1), g3, st3, r["W"], r["bo"], r["bn"], 5, 400, seed=0)
    exact = sum(best_response_value(g3, st3, 1, o, r["bo"], r["bn"]) for o in (True, False)) - 1
    assert out["responder"] == responder_name(1, 4, 3)
    assert out["value"] < exact + 4 * out["stderr"]
    assert out["value"] > 0.5 * exact


def test_the_validation_getstats_states_is_the_docs():
    """The validated shares GetStats appends to a searched round's kind are those docs/dudo-search-serving.md's
    validation tables measured (0.84-0.98 the sampled shares on 12-18 claims, 0.86-0.98 on 24)."""
    import re
    from pathlib import Path
    from games.dudo.measure.lookahead import VALIDATION, validation
    doc = (Path(__file__).parents[2] / "docs" / "dudo-search-serving.md").read_text()
    for text in VALIDATION.values():
        for lo, hi in re.findall(r"(0\.\d\d)-(0\.\d\d)", text):
            assert f"{lo}–{hi}" in doc or f"{lo}-{hi}" in doc, (lo, hi)
    assert validation("lookahead responder (depth 1, width 4, over the policy's own replies), leaves of memory 2")
    assert validation("lookahead responder (depth 1, width 8, over the policy's own replies)") == ""
