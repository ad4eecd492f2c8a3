"""Endgame re-solving (games.dudo.search.endgame) checked against independent computations on 1v1."""
import itertools

import numpy as np
import pytest

from games.dudo.cost import endgame_cost, endgame_rows
from games.dudo.search import endgame as eg
from games.dudo.measure.exploit import best_response_value
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.abstraction.dag import challenge_win_prob, make_group
from games.dudo.abstraction.infoset import Faces, Schedule
from games.dudo.rules import claim, roll_arrays, rolls
from games.dudo.build.solve_game import DudoSolution
from games.dudo.solvers.tree_cfr import TreeSolver

LP_VALUE = -7 / 258      # 1v1 opener's value (+-1), sequence-form LP (games/dudo/reference/lp.py, NOTES.md)


def _solution(m, solver_cls, iterations):
    g = make_group(1, 1, m, {})
    s = solver_cls(g)
    s.solve(iterations, progress=False)
    sol = DudoSolution(m, 1)
    sol.groups[(1, 1)] = g
    sol.strategies[(1, 1)] = s.average_strategy()
    return sol


@pytest.fixture(scope="module")
def abstract():
    """A memory-1 blueprint: far from optimal, so re-solving has something to fix."""
    return _solution(1, FastSolver, 100)


@pytest.fixture(scope="module")
def schedule():
    """A blueprint remembering by claim strength: 3 claims below strength 6, then 1."""
    return _solution(Schedule((3, 1), (6,)), FastSolver, 100)


@pytest.fixture(scope="module")
def faces():
    """A blueprint remembering the last claim and the faces of the two claims before it (windows by the DAG;
    an endgame's windows keep a face of claims before its root)."""
    return _solution(Faces.parse("1+2f"), FastSolver, 100)


@pytest.fixture(scope="module")
def perfect():
    return _solution(None, TreeSolver, 300)


def test_posterior_is_bayes_over_enumerated_rolls(abstract):
    """Prior over ordered dice x likelihood of the opponent's claims, aggregated by multiset."""
    bp = eg.SolutionBlueprint(abstract)
    history = (1, 4, 6, 7, 9)          # requester opened: claims 1, 6, 9 are its own
    _, reach_opp = eg.ranges(bp, 1, 1, history, requester_opened=True)
    post = eg.posterior(reach_opp, 1)
    brute = {}
    for faces in itertools.product(range(1, 7), repeat=1):
        lik = 1.0 / 6 ** len(faces)
        for k in (1, 3):               # the opponent's claims
            dist = dict(abstract.action_distribution(1, 1, faces, list(history[:k])))
            lik *= dist[history[k]]
        key = tuple(sorted(faces))
        brute[key] = brute.get(key, 0.0) + lik
    b = np.array([brute[r] for r in rolls(1)])
    np.testing.assert_allclose(post, b / b.sum(), rtol=1e-12)


@pytest.mark.parametrize("blueprint", ["abstract", "schedule", "faces"])
def test_targets_are_exact_best_response_values(blueprint, request):
    """At the root the gadget's alternative values are the opponent's best-response values
    against the blueprint: summed over its rolls, exploit.py's exact best response."""
    abstract = request.getfixturevalue(blueprint)
    g, st = abstract.groups[(1, 1)], abstract.strategies[(1, 1)]
    bp = eg.SolutionBlueprint(abstract)
    for opened in (True, False):
        pr = eg.prepare(bp, 1, 1, (), opened, {})
        br = best_response_value(g, st, 1, not opened, {}, {})      # responder's win probability
        assert pr.prior_opp @ pr.target == pytest.approx(2 * br - 1, abs=1e-12)


@pytest.mark.parametrize("blueprint", ["abstract", "schedule", "faces"])
@pytest.mark.parametrize("opened,entry", [(True, (0, 1, 7)), (False, (2, 5))])
def test_the_endgame_plays_the_blueprint_of_each_node_history(blueprint, opened, entry, request):
    """The requester's blueprint in the endgame's layout is, at every node, the solution's distribution
    for that node's claim history (``action_distribution``), node by node in preorder."""
    sol = request.getfixturevalue(blueprint)
    pr = eg.prepare(eg.SolutionBlueprint(sol), 1, 1, entry, opened, {})
    i = 0

    def walk(hist):
        nonlocal i
        if (len(hist) % 2 == 0) == opened:
            L = hist[-1]
            for x, r in enumerate(rolls(1)):
                got = [pr.bp[pr.off[i] + j * 6 + x] for j in range(12 - L)]
                assert got == [p for _, p in sol.action_distribution(1, 1, r, list(hist))]
        i += 1
        for c in range(hist[-1] + 1, 12):
            walk(hist + (c,))
    walk(entry)
    assert i == 1 << (11 - entry[-1])


def test_root_resolve_of_a_perfect_recall_blueprint_reaches_the_lp_value(perfect):
    """From the root, with a near-equilibrium perfect-recall blueprint, the re-solved strategy's
    exact best-response value is the LP value of the round (within the solvers' tolerance)."""
    bp = eg.SolutionBlueprint(perfect)
    for opened, value in ((True, LP_VALUE), (False, -LP_VALUE)):
        sol = eg.solve(eg.prepare(bp, 1, 1, (), opened, {}), 1000)
        br = sol.problem.prior_opp @ sol.best_response_values()   # opponent's best value
        assert -br <= value + 1e-9                                 # nobody beats the game value
        assert -br == pytest.approx(value, abs=1.5e-3)


def _brute_br(strategy, requester_opened):
    """Opponent's best-response value (+-1) against the requester's ``strategy(history) ->
    [(action, probs over rolls)]`` in 1v1, by plain recursion over every claim history."""
    K = 12
    p1 = roll_arrays(1)[0]
    faces = [r[0] for r in rolls(1)]

    def u_challenger_wins(L, x, y):   # does the challenger of claim L win (1v1: game over)?
        n, r = claim(L, 2)
        t = sum(f == r or (f == 1) for f in (faces[x], faces[y]))
        return 2 * challenge_win_prob({}, 1, 1, n, t) - 1

    def walk(hist, rr):               # per opponent roll y: its best value (+-1)
        k = len(hist)
        L = hist[-1] if hist else -1
        req = (k % 2 == 0) == requester_opened
        out = np.zeros(6)
        if req:
            acts = strategy(hist)
            for a, probs in acts:
                if a < 0:
                    for y in range(6):
                        out[y] -= sum(rr[x] * probs[x] * u_challenger_wins(L, x, y) for x in range(6))
                else:
                    out += walk(hist + (a,), rr * probs)
            return out
        best = np.full(6, -np.inf)
        if L >= 0:
            best = np.array([sum(rr[x] * u_challenger_wins(L, y, x) for x in range(6)) for y in range(6)])
        for c in range(L + 1, K):
            best = np.maximum(best, walk(hist + (c,), rr))
        return best

    return float(p1 @ walk((), p1.copy()))


@pytest.mark.parametrize("blueprint,opened,entry", [("abstract", True, (2, 5)), ("abstract", False, (3,)),
                                                    ("abstract", True, (0, 1, 7)), ("schedule", True, (0, 1, 7)),
                                                    ("schedule", False, (3,)), ("faces", True, (0, 1, 7)),
                                                    ("faces", False, (2, 5))])
def test_resolved_endgame_is_no_worse_than_the_blueprint(blueprint, opened, entry, request):
    """Safe re-solving: every opponent roll's best value in the endgame is at most its target, and
    the whole round's best response to blueprint + re-solved endgame (plain recursion, independent
    of the kernels) is no better for the opponent than against the blueprint alone."""
    abstract = request.getfixturevalue(blueprint)
    bp = eg.SolutionBlueprint(abstract)
    sol = eg.solve(eg.prepare(bp, 1, 1, entry, opened, {}), 500)
    assert np.all(sol.best_response_values() <= sol.problem.target + 1e-3)

    def blueprint(hist):
        dist = [abstract.action_distribution(1, 1, r, list(hist)) for r in rolls(1)]
        return [(a, np.array([d[i][1] for d in dist])) for i, (a, _) in enumerate(dist[0])]

    def combined(hist):
        if hist[:len(entry)] != entry:
            return blueprint(hist)
        dist = [sol.distribution(r, hist) for r in rolls(1)]
        return [(a, np.array([d[i][1] for d in dist])) for i, (a, _) in enumerate(dist[0])]

    g, st = abstract.groups[(1, 1)], abstract.strategies[(1, 1)]
    br_blueprint = _brute_br(blueprint, opened)
    assert br_blueprint == pytest.approx(2 * best_response_value(g, st, 1, not opened, {}, {}) - 1,
                                         abs=1e-12)
    assert _brute_br(combined, opened) <= br_blueprint + 1e-4


def test_resolve_move_follows_the_policy(abstract):
    """No re-solve before the threshold; inside the endgame a distribution over the legal actions,
    the same at a later decision as the endgame's own strategy there."""
    bp = eg.SolutionBlueprint(abstract)
    policy = eg.EndgamePolicy(threshold=6, iterations=100)
    assert eg.resolve_move(bp, 1, 1, (3,), (2,), True, {}, policy) is None      # 9 claims left
    mv = eg.resolve_move(bp, 1, 1, (3,), (2, 5, 7), False, {}, policy)
    assert mv.root == 2 and mv.iterations == 100
    assert list(mv.actions) == [-1] + list(range(8, 12))
    assert mv.probs.sum() == pytest.approx(1.0)
    sol = eg.solve(eg.prepare(bp, 1, 1, (2, 5), False, {}), 100)
    assert [p for _, p in sol.distribution((3,), (2, 5, 7))] == pytest.approx(list(mv.probs), abs=0)
    assert mv.posterior.sum() == pytest.approx(1.0)


def test_estimate_counts_the_endgame():
    """Nodes exactly, array entries as an upper bound reached when both hold the same dice."""
    for opened in (True, False):
        off = eg.endgame_layout(1, 5, opened, 12, np.array([6, 6]))
        assert off.size - 1 == endgame_cost(6, 1, 1).nodes == 2 ** 6
        assert off[-1] == endgame_rows(6, 1, 1)
        off = eg.endgame_layout(2, 20, opened, 24, np.array([6, 56]))
        assert off.size - 1 == 2 ** 3 and off[-1] <= endgame_rows(3, 1, 3)
