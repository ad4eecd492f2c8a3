"""Endgame re-solving read from a built Dudo store (games.dudo.serving.endgame_store)."""
import pytest

from builder.dudo import build_dudo_store
from games.dudo.search import endgame as eg
from games.dudo.serving.endgame_store import resolve_from_store, store_W
from games.dudo.build.solve_game import solve_params
from games.dudo.build.params import DudoParams
from games.storage import Store

PARAMS = DudoParams(max_dice=1, iterations=100, memory=2, perfect_recall_total=0, exact_br_total=0)
FACES = DudoParams(max_dice=1, iterations=100, memory=2, perfect_recall_total=0, exact_br_total=0, label="faces",
                   memory_by_group=(((1, 1), "1+2f"),))


@pytest.mark.parametrize("params", [PARAMS, FACES], ids=["claims", "faces"])
def test_store_task_equals_the_re_solve_of_the_solved_blueprint(tmp_path, params):
    """The worker's task (rows from the store, continuation values from its manifest) gives the
    re-solve of the same blueprint taken from the solver's arrays (a face memory's windows found by its DAG
    from the solver's, by the histories' rows from the store)."""
    path = build_dudo_store(params, tmp_path)
    sol = solve_params(params, progress=False)
    policy = eg.EndgamePolicy(threshold=7, iterations=60)
    roll, history = (4,), (1, 3, 6)
    got = resolve_from_store(str(path), 1, 1, roll, history, False, policy)
    want = eg.resolve_move(eg.SolutionBlueprint(sol), 1, 1, roll, history, False, sol.W, policy)
    assert got[0] == list(want.actions)
    assert got[1] == pytest.approx(list(want.probs), abs=2e-3)     # stored rows may be rounded
    assert got[2]["root"] == want.root == 3                           # after claim 6: 5 left
    assert resolve_from_store(str(path), 1, 1, roll, (1,), False, policy) is None   # 10 left
    store = Store(path)
    assert store_W(store.manifest) == {(1, 1): pytest.approx(sol.W[(1, 1)])}
    store.close()
