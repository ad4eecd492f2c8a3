"""The operations page's Dudo heat map: each round's headline figure (the one GetStats names), and a note in
every cell no game reaches."""
from builder.dudo import build_dudo_store
from games.dudo.build.params import DudoParams
from games.plots import dudo_exploitability, headline
from games.storage import Store


def test_the_heat_map_shows_each_rounds_headline_and_marks_the_unreachable_cells(tmp_path):
    path = build_dudo_store(DudoParams(max_dice=1, iterations=20), tmp_path)
    store = Store(path)
    try:
        fig = dudo_exploitability(store)
        texts = [t.get_text() for t in fig.axes[0].texts]
        st = store.manifest["rounds"]["1v1"]
    finally:
        store.close()
    assert any(t.startswith(f"{st['exploitability']:.4f}\nexact") for t in texts), texts
    # a one-die store plays only 1v1: the other 24 cells of the 5 x 5 grid say why they are blank
    assert sum(t.startswith("unreachable") for t in texts) == 24
    assert "headline" in fig.axes[0].get_title()


def test_the_headline_of_a_round_is_the_improvement_where_measured():
    assert headline({"exploitability": 0.2, "improved_exploitability": 0.25, "br_kind": "lower bound: x"}) == (
        0.25, "LB (perfect-recall improvement)")
    assert headline({"exploitability": 0.003, "br_kind": "exact-perfect-recall"}) == (0.003, "exact")
