"""solve_game(pipelined=True): a level's figures computed while the next level trains give the same strategies,
values and figures, bit for bit, as the level-by-level solve; an interrupted pipelined solve resumes without
training again what it trained."""
import numpy as np
import pytest

from games.dudo.build import solve_game as solve_mod
from games.dudo.build.solve_game import solve_game

# exact best responses up to 3 dice in play, the memory-2 bound and the perfect-recall improvement beyond, a group
# training against a CFR+ responder: every kind of figure a level hands to the next
KW = dict(max_dice=3, m={(1, 1): None, (1, 2): 1, (1, 3): 1, (2, 2): 1, (2, 3): 1, (3, 3): 1}, iterations=8,
          progress=False, log=None, exact_br_total=3, train_memory={(2, 2): 2}, br_memory=2,
          improve_games=2, improve_memory=2, improve_seed=3)


def _strip(st):
    return {k: v for k, v in st.items() if "seconds" not in k}


def _same(a, b):
    assert a.strategies.keys() == b.strategies.keys()
    for key in a.strategies:
        assert np.array_equal(np.asarray(a.strategies[key]), np.asarray(b.strategies[key])), key
    assert a.W == b.W
    assert {k: _strip(v) for k, v in a.stats.items()} == {k: _strip(v) for k, v in b.stats.items()}


def test_pipelined_solve_is_the_level_by_level_solve(tmp_path):
    seen = []

    def recording(fn, items):
        items = list(items)
        seen.append([(t[0], t[1]) for t in items])
        return [fn(x) for x in items]

    def backwards(fn, items):       # the last task first: a measure phase before the train phase beside it
        items = list(items)
        return [fn(x) for x in reversed(items)][::-1]

    plain = solve_game(checkpoint_dir=str(tmp_path / "plain"), **KW)
    piped = solve_game(checkpoint_dir=str(tmp_path / "piped"), map_fn=recording, pipelined=True, **KW)
    back = solve_game(checkpoint_dir=str(tmp_path / "back"), map_fn=backwards, pipelined=True, **KW)
    _same(plain, piped)
    _same(plain, back)
    assert plain.stats[(2, 1)]["br_kind"] == "exact-perfect-recall"
    assert plain.stats[(3, 2)]["br_kind"].startswith("lower bound") and "improved_exploitability" in plain.stats[(3, 3)]
    assert plain.stats[(2, 2)]["train_memory"] == "2"
    # each step trains one total of dice and measures the one below; the last step only measures
    assert seen[0] == [("train", (1, 1))]
    assert seen[1] == [("train", (1, 2)), ("measure", (1, 1))]
    assert seen[2] == [("train", (2, 2)), ("train", (1, 3)), ("measure", (1, 2))]
    assert seen[-1] == [("measure", (3, 3))]


def test_an_interrupted_pipelined_solve_resumes_without_training_again(tmp_path, monkeypatch):
    """Stopped in the step that trains 5 dice in play and measures 4 (after the training, before the figures are
    written): the rerun trains only what was not trained, and the result is the uninterrupted one."""
    plain = solve_game(checkpoint_dir=str(tmp_path / "plain"), **KW)
    trained = []
    real_train = solve_mod._train

    def counting(plan, *a, **k):
        trained.append((plan.a, plan.b))
        return real_train(plan, *a, **k)

    monkeypatch.setattr(solve_mod, "_train", counting)

    def stopping(fn, items):
        items = list(items)
        out = [fn(x) for x in items if x[0] == "train"]
        if any(x[0] == "train" and sum(x[1]) == 5 for x in items):
            raise KeyboardInterrupt
        return out + [fn(x) for x in items if x[0] == "measure"]

    work = str(tmp_path / "work")
    with pytest.raises(KeyboardInterrupt):
        solve_game(checkpoint_dir=work, map_fn=stopping, pipelined=True, **KW)
    first = list(trained)
    assert (2, 3) in first and (3, 3) not in first
    trained.clear()
    resumed = solve_game(checkpoint_dir=work, pipelined=True, **KW)
    assert sorted(trained) == [(3, 3)]     # 2 + 3 trained before the stop, measured now
    _same(plain, resumed)
    trained.clear()
    again = solve_game(checkpoint_dir=work, **KW)     # a finished work directory serves the plain solve too
    assert trained == []
    _same(plain, again)


def test_a_group_training_to_its_floor_has_no_separate_train_phase(tmp_path):
    with pytest.raises(ValueError, match="floor"):
        solve_mod.solve_group((1, 1), m=None, W={}, max_dice=1, iterations=4, checkpoint_dir=str(tmp_path),
                              stop_rel=0.1, phase="train")


def test_an_unknown_phase_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown phase 'fit'"):
        solve_mod.solve_group((1, 1), m=None, W={}, max_dice=1, iterations=4, checkpoint_dir=str(tmp_path),
                              phase="fit")
