"""The strength tables (research/jotto_strength.py) on a tiny store, against literal references."""
from contextlib import closing
from fractions import Fraction

import pytest

from games.jotto.dictionary import register_list_file
from games.storage import Store
from tests.games import jotto_reference as ref

WORDS = ["as", "by", "it", "lo", "mi", "up", "we", "ya"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny store built without the stronger figures (the bench computes them)."""
    from builder.jotto import JottoParams, build_jotto_store

    tmp = tmp_path_factory.mktemp("strength")
    lst = tmp / "tiny.txt"
    lst.write_text("\n".join(WORDS) + "\n")
    register_list_file("tinystrength", lst)
    root = tmp / "stores"
    build_jotto_store("jotto-file.tinystrength-2-ganzfried", JottoParams(fp_iterations=20, do_iterations=3,
                                                                          book_threshold=2), root)
    return root, "jotto-file.tinystrength-2-ganzfried"


def test_table1_computes_the_exact_and_rollout_epsilons(tiny):
    from research.jotto_strength import table1

    root, variant = tiny
    lines = []
    rows = table1(root, [variant], ("double_oracle", "benchmark"), rollout=True, exact_max_words=100,
                  out=lines.append)
    assert [r["strategy"] for r in rows] == ["double_oracle", "benchmark"] and len(lines) == 4
    with closing(Store(root / "jotto" / variant / "current")) as store:
        words = store.manifest["words"]
        for r in rows:
            f = store.manifest["strategies"][r["strategy"]]["figures"]
            assert "epsilon_exact" not in f and "epsilon_rollout" not in f  # computed by the bench, not stored
            h = [Fraction(float(x)) for x in store.array(f"hider:{r['strategy']}")]
            best = float(ref.optimal_tree_value(words, h))
            assert r["gap_exact"] == pytest.approx(f["guarantee"] - best, abs=1e-9)
            assert r["epsilon_exact"] == pytest.approx(max(f["epsilon_hider"], f["self_play"] - best), abs=1e-9)
            # the rollout and GBR responses are weaker than the best one
            assert r["epsilon_gbr"] <= r["epsilon_rollout"] + 1e-12 <= r["epsilon_exact"] + 2e-12
            assert r["gap_rollout"] <= r["gap_exact"] + 1e-12


def test_people_table_against_replayed_guessers(tiny):
    from research.jotto_strength import people

    root, variant = tiny
    lines = []
    rows = {r["guesser"]: r for r in people(variant, "uniform", ["served:benchmark", "gbr-secret", "rollout-gbr"],
                                            root, out=lines.append)}
    n = len(WORDS)
    uniform = [Fraction(1, n)] * n
    with closing(Store(root / "jotto" / variant / "current")) as store:
        words = store.manifest["words"]
    replay = ref.comp_num_guesses(words, uniform)  # GBR against the uniform hider, word by word
    for name in ("served:benchmark", "gbr-secret"):
        assert rows[name]["mean"] == pytest.approx(sum(replay) / n)
        assert rows[name]["worst"] == max(replay)
        assert rows[name]["first"] == words[ref.guesser_gbr(words, uniform, range(n))]
    best = float(ref.optimal_tree_value(words, uniform))
    assert best - 1e-12 <= rows["rollout-gbr"]["mean"] <= rows["gbr-secret"]["mean"] + 1e-12
    assert len(lines) == 2 + 3 + 1


def test_table1_brackets_the_exact_epsilon_when_the_search_runs_out(tiny):
    from research.jotto_strength import table1

    root, variant = tiny
    lines = []
    rows = table1(root, [variant], ("double_oracle",), rollout=True, exact_max_words=100, exact_max_nodes=1,
                  exact_bound_steps=6, out=lines.append)
    (r,) = rows
    assert r["epsilon_exact"] is None and any("probe 6" in line for line in lines)
    with closing(Store(root / "jotto" / variant / "current")) as store:
        f = store.manifest["strategies"]["double_oracle"]["figures"]
        h = [Fraction(float(x)) for x in store.array("hider:double_oracle")]
        best = float(ref.optimal_tree_value(store.manifest["words"], h))
    # the certified bound is below the exact best response's value, so the epsilon bracket holds it
    assert r["hider_vs_exact_lb"] <= best + 1e-9
    exact_eps = max(f["epsilon_hider"], f["self_play"] - best)
    assert r["epsilon_rollout"] - 1e-9 <= exact_eps <= r["epsilon_exact_ub"] + 1e-9
    assert any(line.startswith(variant) and f"{r['epsilon_rollout']:.3f}..{r['epsilon_exact_ub']:.3f}" in line for line in lines)


def test_solvers_table_same_budget():
    """Each solver gets the same number of greedy trees; the LP over a solver's trees never guarantees more
    than the mixture the solver itself serves (the LP optimises over every mixture of those trees)."""
    from research.jotto_strength import solvers

    lines = []
    rows = solvers([2], 9, 0.3, out=lines.append)
    assert [r["solver"] for r in rows] == ["fictitious play", "double oracle", "hedge 0.3"]
    assert [r["trees"] for r in rows] == [9, 9, 9] and len(lines) == 4
    for r in rows:
        assert r["lp"] <= r["guarantee"] + 1e-9 and r["cpu"] >= 0


@pytest.mark.parametrize("lengths", ["7", "x", "3,,4"])
def test_solvers_bad_lengths_exit_2_with_one_line(lengths, capsys):
    from research.jotto_strength import main

    with pytest.raises(SystemExit) as e:
        main(["solvers", "--lengths", lengths, "--trees", "9"])
    assert e.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(f"python -m research.jotto_strength: error: --lengths '{lengths}'")
