"""A store's figures against the exact guesser best response, checked against every decision tree."""
from fractions import Fraction

import pytest

from games.jotto.dictionary import register_list_file
from games.storage import Store
from tests.games import jotto_reference as ref

WORDS = ["as", "by", "it", "lo", "mi", "up", "we", "ya"]


def tiny_store(tmp_path, name: str, words, params, out: str = "stores", **kw) -> Store:
    """The 2-letter store of ``params`` over ``words``, as the word list file ``name`` (built under tmp_path/out)."""
    from builder.jotto import build_jotto_store

    lst = tmp_path / f"{name}.txt"
    lst.write_text("\n".join(words) + "\n")
    register_list_file(name, lst)
    return Store(build_jotto_store(f"jotto-file.{name}-2-ganzfried", params, tmp_path / out, **kw))


@pytest.mark.parametrize("kind", ["serial", "process"])
def test_exact_figures_are_the_best_tree_against_each_served_hider(tmp_path, kind):
    """The exact searches run as executor tasks: on a process pool as in this process."""
    from builder.executor import make_executor
    from builder.jotto import JottoParams

    params = JottoParams(fp_iterations=20, do_iterations=3, book_threshold=2, do_oracles=("gbr", "rollout"),
                         exact_max_words=100)
    with make_executor(kind, 2, share_dir=str(tmp_path / "shared")) as ex:
        store = tiny_store(tmp_path, "tinyexact", WORDS, params, executor=ex)
    words = store.manifest["words"]
    assert words == sorted(WORDS)
    for name, info in store.manifest["strategies"].items():
        f = info["figures"]
        h = store.array(f"hider:{name}")
        best = ref.optimal_tree_value(words, [Fraction(float(x)) for x in h])
        assert f["hider_vs_exact"] == pytest.approx(float(best), abs=1e-9), name
        # exact <= rollout <= ... and the exact epsilon is the largest of the three
        assert f["hider_vs_exact"] <= f["hider_vs_rollout"] + 1e-12
        assert f["epsilon_exact"] >= f["epsilon_rollout"] - 1e-12
        assert f["gap_exact"] == pytest.approx(f["guarantee"] - f["hider_vs_exact"])
    store.close()


@pytest.mark.parametrize("pricing,widths", [((), ()), ((2, 3), (1,))])
def test_certified_store_serves_the_exact_double_oracle_at_the_games_value(tmp_path, pricing, widths):
    """certify="exact" (with and without heuristic pricing): the store's bracket closes on the value of the LP
    over every tree of the list, the strategy exact_do plays its members' trees from the book, and GetStats
    carries the bracket."""
    import numpy as np

    from builder.jotto import JottoParams
    from games.jotto.solvers import restricted_game
    from protos import gamestrategy_pb2 as pb
    from server.backends.jotto import JottoBackend

    words = ["as", "by", "it", "lo", "mi", "up"]
    params = JottoParams(fp_iterations=20, do_iterations=3, book_threshold=2, certify="exact",
                         certify_pricing=pricing, certify_pricing_widths=widths)
    store = tiny_store(tmp_path, "tinycert", words, params)
    # a second build has the same content hash: the rounds' timings are in the manifest, not in stored rows
    again = tiny_store(tmp_path, "tinycert", words, params, out="again")
    assert again.manifest["content_hash"] == store.manifest["content_hash"]
    assert len(again.manifest["strategies"]["exact_do"]["round_seconds"]) == store.manifest["certified"]["rounds"]
    again.close()
    trees = {tuple(t[s] for s in range(6)) for t in ref.all_trees(store.manifest["words"], range(6))}
    _, value, _ = restricted_game(np.array(sorted(trees), dtype=np.float64).T)
    cert = store.manifest["certified"]
    assert cert["kind"] == "exact"
    assert cert["lower"] - 1e-9 <= value <= cert["upper"] + 1e-9 and cert["upper"] - cert["lower"] <= 1e-6
    assert store.manifest["served"] == "exact_do"
    info = store.manifest["strategies"]["exact_do"]
    assert info["figures"]["guarantee"] == pytest.approx(cert["upper"], abs=1e-9)
    backend = JottoBackend(store)
    # every secret is found by every member in the guesses its column says (the book's moves, replayed)
    s = backend.strategies["exact_do"]
    hider = store.array("hider:exact_do")
    expected = 0.0
    for secret in range(6):
        per_member = []
        for c in range(s.size):
            history = []
            while True:
                state = backend.oracle.consistent([g for g, _ in history], [a for _, a in history])
                entry = backend.book_entry("exact_do", state)
                assert entry is not None and c in entry, (secret, c, state)
                g = entry[c]
                if g == secret:
                    break
                history.append((g, int(backend.oracle.C[g, secret])))
            per_member.append(len(history) + 1)
        expected += hider[secret] / hider.sum() * float(np.dot(s.weights, per_member))
    assert expected == pytest.approx(info["figures"]["self_play"], abs=1e-9)
    v = pb.VariantStats()
    backend.stats(v)
    got = {x.strategy: x for x in v.strategies}
    assert got["exact_do"].figures["value_lower"] == pytest.approx(cert["lower"])
    assert got["exact_do"].figures["value_upper"] == pytest.approx(cert["upper"])
    # builder.report's table has the exact double oracle's rows beside the others'
    from builder.report import table
    rows = {line[:30].strip(): line[30:].split() for line in table(tmp_path / "stores").splitlines()[1:]}
    assert float(rows["exact_do: guarantee"][0]) == pytest.approx(info["figures"]["guarantee"], abs=1e-3)
    assert rows["exact_do rounds"] == [str(cert["rounds"])] and rows["served strategy"] == ["exact_do"]
    assert got["fp"].labels["value_bracket"].startswith("[")
    # the operations page's plot of the rounds
    from games.plots import plot_names, render

    assert "exact_do" in plot_names(store)
    assert b"<svg" in render(store, "exact_do")
    assert len(store.array("cert_curves:exact_do")) == info["rounds"]
    store.close()


@pytest.mark.parametrize("words,nodes,steps,kind", [(WORDS, 1, 2, "bounded"), (WORDS[:6], 100_000, 4, "exact")])
def test_served_bracket_holds_the_exact_response_and_the_games_value(tmp_path, words, nodes, steps, kind):
    """certify="served" (the default 3-5 letter stores' bracket): the lower end is at most the served hider's
    exact-response value (every decision tree tried; equal to it when the search finishes), the upper end is the
    served guarantee, and the value of the LP over every tree lies between them."""
    import numpy as np

    from builder.jotto import JottoParams
    from games.jotto.solvers import restricted_game

    params = JottoParams(fp_iterations=20, do_iterations=3, book_threshold=2, certify="served",
                         certify_nodes=nodes, certify_steps=steps)
    store = tiny_store(tmp_path, "tinyserved", words, params)
    cert = store.manifest["certified"]
    assert cert["kind"] == kind and cert["method"] == "served"
    served = cert["hider"]
    h = store.array(f"hider:{served}")
    best = float(ref.optimal_tree_value(store.manifest["words"], [Fraction(float(x)) for x in h]))
    assert cert["lower"] <= best + 1e-9
    if kind == "exact":
        assert cert["lower"] == pytest.approx(best, abs=1e-9)
    assert cert["upper"] == pytest.approx(store.manifest["strategies"][served]["figures"]["guarantee"], abs=1e-12)
    n = len(words)
    trees = {tuple(t[s] for s in range(n)) for t in ref.all_trees(store.manifest["words"], range(n))}
    _, value, _ = restricted_game(np.array(sorted(trees), dtype=np.float64).T)
    assert cert["lower"] - 1e-9 <= value <= cert["upper"] + 1e-9
    store.close()
