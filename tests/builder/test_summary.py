"""The builder's one-line quality of a Dudo store names the largest lower bound any round has, and its kind."""
from builder.summary import quality

BOUND = "lower bound: best response with memory 3"
IMPROVED = "lower bound: perfect-recall improvement of the best response with memory 2 (sampled)"


def _dudo(rounds: dict) -> dict:
    return {"game": "dudo", "rounds": rounds}


def test_the_headline_is_the_largest_figure_of_either_kind():
    m = _dudo({"1v1": {"exploitability": 1e-3, "br_kind": "exact-perfect-recall"},
               "4v4": {"exploitability": 0.257, "br_kind": BOUND, "improved_exploitability": 0.263,
                       "improved_kind": IMPROVED},
               "5v5": {"exploitability": 0.229, "br_kind": BOUND, "improved_exploitability": 0.272,
                       "improved_kind": IMPROVED}})
    assert quality(m) == f"1v1 expl. 0.001, max expl. 0.272 (5v5, {IMPROVED})"


def test_an_improvement_below_the_exact_valued_bound_does_not_replace_it():
    # the improvement starts from a responder with a shorter memory where the longer one's matrices do not fit
    m = _dudo({"5v4": {"exploitability": 0.30, "br_kind": BOUND, "improved_exploitability": 0.25,
                       "improved_kind": IMPROVED},
               "3v3": {"exploitability": 0.10, "br_kind": BOUND}})
    assert quality(m) == f"max expl. 0.3 (5v4, {BOUND})"
