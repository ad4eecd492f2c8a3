"""A store's figures against the exact guesser best response, checked against every decision tree."""
from fractions import Fraction

import pytest

from games.jotto.dictionary import register_list_file
from games.storage import Store
from tests.games import jotto_reference as ref

WORDS = ["as", "by", "it", "lo", "mi", "up", "we", "ya"]


@pytest.mark.parametrize("kind", ["serial", "process"])
def test_exact_figures_are_the_best_tree_against_each_served_hider(tmp_path, kind):
    """The exact searches run as executor tasks: on a process pool as in this process."""
    from builder.executor import make_executor
    from builder.jotto import JottoParams, build_jotto_store

    lst = tmp_path / "tiny.txt"
    lst.write_text("\n".join(WORDS) + "\n")
    register_list_file("tinyexact", lst)
    params = JottoParams(fp_iterations=20, do_iterations=3, book_threshold=2, do_oracles=("gbr", "rollout"),
                         exact_max_words=100)
    with make_executor(kind, 2, share_dir=str(tmp_path / "shared")) as ex:
        store = Store(build_jotto_store("jotto-file.tinyexact-2-ganzfried", params, tmp_path / "stores", executor=ex))
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
