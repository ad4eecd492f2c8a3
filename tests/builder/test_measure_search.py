"""builder.measure_search: the responder's figure of the served searched policy, published as a new version of
the store with the data unchanged; checked against the served policy's exact figure (games.dudo.reference.exact_check,
independent of the solvers and of the responder): a lower bound that finds a large share of it."""

import pytest

from builder.dudo import build_dudo_store
from builder.measure_search import exact_as_served, later_rounds, main, served_seat_policy, whole_game
from games.dudo.build.params import DudoParams
from games.dudo.reference import exact_check as xc
from games.dudo.measure.lookahead import validation
from games.storage import Store, current_stores
from tests.server.test_dudo_large_search_serving import PARAMS


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("measure")
    build_dudo_store(PARAMS, r)
    return r


def test_the_figure_is_a_lower_bound_of_the_served_policys_exact_one(root, capsys):
    before = Store(current_stores(root, "dudo")[PARAMS.variant])
    policy_for_seat, _ = served_seat_policy(before, 1, 1)
    served = lambda own, opp, hist: policy_for_seat(len(hist) % 2 == 1)(hist)   # noqa: E731 - one seat a call
    exact = xc.exact_figures(served, PARAMS.max_dice, 2)[(1, 1)]["exploitability"]
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--games", "400", "--seed", "3"]) == 0
    after = Store(current_stores(root, "dudo")[PARAMS.variant])
    assert after.version != before.version
    st = after.manifest["rounds"]["1v1"]
    got, se = st["served_exploitability"], st["served_exploitability_stderr"]
    assert got <= exact + 3 * se
    assert got >= 0.5 * exact - 3 * se, (got, se, exact)
    assert "lower bound" in st["served_kind"] and st["served_games"] == 400
    from server.backends.dudo import DudoBackend
    from protos import gamestrategy_pb2 as pb
    v = pb.VariantStats()
    DudoBackend(after).stats(v)
    rs = {x.strategy: x for x in v.strategies}["round 1v1"]
    assert rs.headline == "served_exploitability"
    assert rs.headline_kind == f"{st['served_kind']}; {validation(st['served_responder'])}"    # and what validated it
    assert validation(st["served_responder"]).startswith("validated share") and "validated share" not in st["served_kind"]
    assert rs.labels["responder_validation"] == validation(st["served_responder"])
    assert rs.units["served_exploitability"] == "win probability, both seats summed"
    from builder.readme_tables import _dudo
    served, text, kind = _dudo(after.manifest)        # the README's strength row states the searched figure
    assert served == "search" and f"as served (search): exploitability {got:.3f}" in text
    assert kind.startswith("lower bound: lookahead responder") and _dudo(before.manifest)[1].count("not measured")
    assert list(after.items("windows")) == list(before.items("windows"))
    assert list(after.items("arrays")) == list(before.items("arrays"))
    old = {k: v for k, v in before.manifest["rounds"]["1v1"].items()}
    assert {k: st[k] for k in old} == old                      # the stored rows' figures kept as they were


def test_bad_arguments_exit_2_with_one_line(root, capsys):
    assert main(["--root", str(root), "--variant", "nosuch"]) == 2
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--rounds", "4v4"]) == 2
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--whole-game", "--games", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "nosuch" in err[0] and "searches the rounds 1v1" in err[1]
    assert "--games 1: at least 2" in err[2]
    with pytest.raises(SystemExit) as e:
        main(["--root", str(root), "--rounds", "five"])
    assert e.value.code == 2


def test_the_rows_measured_by_the_same_responder_publish_nothing(root, capsys):
    before = current_stores(root, "dudo")[PARAMS.variant]
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--games", "50", "--rows"]) == 0
    assert "1v1 (fsicfr): " in capsys.readouterr().out
    assert current_stores(root, "dudo")[PARAMS.variant] == before


# two dice a player; 1v1 exact, 2v1 a lower bound, so the whole game from 2v1 is measured on 1v1's exact seats
PARAMS2 = DudoParams(max_dice=2, iterations=40, memory=1, perfect_recall_total=0, exact_br_total=2)


@pytest.fixture(scope="module")
def store2(tmp_path_factory):
    r = tmp_path_factory.mktemp("whole")
    build_dudo_store(PARAMS2, r)
    return Store(current_stores(r, "dudo")[PARAMS2.variant])


def rows_seat_policy(store, opener, other, strategy):
    """The stored rows alone (no endgame re-solved: cheap enough for the exact walk of a 3-dice round)."""
    from games.dudo.abstraction.infoset import history_window
    from games.dudo.store import store_memories
    stored = xc.stored_policy(lambda key: store.get("windows", key), store_memories(store.manifest), history_window)

    def policy_for_seat(resp_is_opener):
        own, opp = (other, opener) if resp_is_opener else (opener, other)
        return lambda hist: stored(own, opp, tuple(hist))
    return policy_for_seat, {}


def test_the_whole_game_figure_is_a_lower_bound_of_the_exact_one(store2):
    assert later_rounds(store2.manifest, [(2, 1)]) == [(1, 1), (2, 1)]
    assert exact_as_served(store2.manifest["rounds"]["1v1"])
    assert not exact_as_served(store2.manifest["rounds"]["2v1"])
    out = whole_game(store2, [(2, 1)], lambda r: 300, 5, 1, 4, log=lambda *a: None, strategy="fsicfr", processes=1,
                     seat_policy=rows_seat_policy)
    assert set(out) == {"2v1"}                           # 1v1 enters with its exact figures, not measured again
    st = out["2v1"]
    from games.dudo.abstraction.infoset import history_window
    from games.dudo.store import store_memories
    rows = xc.stored_policy(lambda key: store2.get("windows", key), store_memories(store2.manifest), history_window)
    exact = xc.exact_figures(rows, 2, 3)                # the whole game from 2v1 on 1v1's exact best responses
    assert exact[(1, 1)]["br_opener"] == pytest.approx(store2.manifest["rounds"]["1v1"]["br_opener"], abs=1e-9)
    e = exact[(2, 1)]
    got, se = st["served_game_exploitability"], st["served_game_stderr"]
    assert got <= e["exploitability"] + 3 * se
    assert got >= 0.5 * e["exploitability"] - 3 * se, (got, se, e)
    assert st["served_game_br_opener"] <= e["br_opener"] + 3 * se
    assert st["served_game_br_other"] <= e["br_other"] + 3 * se
    assert "game's end" in st["served_game_kind"] and st["served_game_games"] == 300


def test_each_round_values_the_later_ones_by_their_measured_seats(store2, monkeypatch):
    """The chain's plumbing: a round's responder gets every later round's figures (the exact ones as stored,
    the measured ones as measured) and its stated error carries theirs."""
    import games.dudo.serving.respond as respond
    seen = {}

    def fake(policy_for_seat, round_, store, games, seed, resp_open=None, resp_other=None, **kw):
        seen[round_] = (dict(resp_open), dict(resp_other))
        v = round_[0] / 4 + round_[1] / 16
        return dict(value=2 * v - 1, stderr=0.002, br_opener=v, br_other=v, br_opener_stderr=0.001,
                    br_other_stderr=0.003, responder="fake")
    monkeypatch.setattr(respond, "respond_on_store", fake)
    man = store2.manifest["rounds"]
    out = whole_game(store2, [(2, 2)], lambda r: 2, 0, 1, 4, log=lambda *a: None, strategy="fsicfr", processes=1)
    assert set(seen) == {(2, 1), (2, 2)}
    assert seen[(2, 1)] == ({(1, 1): man["1v1"]["br_opener"]}, {(1, 1): man["1v1"]["br_other"]})
    assert seen[(2, 2)][0] == {(1, 1): man["1v1"]["br_opener"], (2, 1): 0.5625}
    assert seen[(2, 2)][1] == {(1, 1): man["1v1"]["br_other"], (2, 1): 0.5625}
    assert out["2v1"]["served_game_stderr"] == pytest.approx(0.002)
    assert out["2v2"]["served_game_stderr"] == pytest.approx((0.002 ** 2 + (2 * 0.003) ** 2) ** 0.5)
    assert out["2v2"]["served_game_own_stderr"] == 0.002


def test_unmeasured_measures_each_store_once(root, store2, capsys):
    """What `make serve` runs after its build: the stores whose searched rounds have no whole-game figure are
    measured and published; run again, nothing is left to do. A store without searched rounds is left alone."""
    before = current_stores(root, "dudo")[PARAMS.variant]
    assert "served_game_exploitability" not in Store(before).manifest["rounds"]["1v1"]
    assert main(["--root", str(root), "--unmeasured", "--games", "30"]) == 0
    out = capsys.readouterr().out
    assert f"measuring {PARAMS.variant}'s served policy" in out and "published" in out
    after = Store(current_stores(root, "dudo")[PARAMS.variant])
    assert after.path != before and after.manifest["rounds"]["1v1"]["served_game_games"] == 30
    assert main(["--root", str(root), "--unmeasured"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert current_stores(root, "dudo")[PARAMS.variant] == after.path
    assert main(["--root", str(store2.path.parents[2]), "--unmeasured"]) == 0     # no searched round there
    assert "nothing to do" in capsys.readouterr().out


def test_the_whole_game_from_the_last_round_is_its_own_share_and_becomes_the_headline(root, capsys):
    """From 1v1 the game ends with the round, so its whole-game figure is the round's own share, bit for bit with
    the same seed and rounds; once published it is the round's headline, in GetStats and the README alike."""
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--games", "60", "--seed", "4"]) == 0
    share = Store(current_stores(root, "dudo")[PARAMS.variant]).manifest["rounds"]["1v1"]
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--games", "60", "--seed", "4",
                 "--whole-game"]) == 0
    after = Store(current_stores(root, "dudo")[PARAMS.variant])
    st = after.manifest["rounds"]["1v1"]
    assert st["served_game_exploitability"] == share["served_exploitability"]
    assert st["served_game_stderr"] == share["served_exploitability_stderr"]
    from server.backends.dudo import DudoBackend
    from protos import gamestrategy_pb2 as pb
    v = pb.VariantStats()
    DudoBackend(after).stats(v)
    rs = {x.strategy: x for x in v.strategies}["round 1v1"]
    assert rs.headline == "served_game_exploitability"
    assert rs.headline_kind == f"{st['served_game_kind']}; {validation(st['served_responder'])}"
    assert rs.labels["responder_validation"].startswith("validated share")
    assert rs.units["served_game_exploitability"] == "win probability, both seats summed"
    assert "served_exploitability" in rs.figures                 # the round's own share stays, labelled
    from builder.readme_tables import _dudo
    _, text, kind = _dudo(after.manifest)
    assert f"exploitability {st['served_game_exploitability']:.3f}" in text and "game's end" in kind
