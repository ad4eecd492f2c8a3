"""games.dudo.build.warmup compiles the kernels a build needs late, with the types the build calls them with: the
two-thread pass, the float32 node values of the largest groups (solver, best response, improvement), training
against CFR+ responders, the bound and the store's row encoder; and no float32 variant a build never calls
(the reference kernel of 1v1, the lifted strategies of the bound stay float64)."""
from games.dudo import store
from games.dudo.measure import bound, lbr
from games.dudo.build import cfrbr
from games.dudo.solvers import kernels
from games.dudo.build.warmup import compile_kernels


def _value_types(dispatcher, position: int) -> set:
    return {str(sig[position].dtype) for sig in dispatcher.signatures}


def test_warmup_compiles_what_a_build_calls_late_and_nothing_else():
    seconds = compile_kernels()
    assert set(seconds) == {"float64 build", "two-thread pass", "float32 values"}
    assert kernels.blocked_backward_threads.signatures
    V = 3       # blocked_backward(strat, reg, ssum, V, ...): the node values
    assert _value_types(kernels.blocked_backward, V) == {"float64", "float32"}
    assert _value_types(kernels.expected_value, 1) == {"float64", "float32"}
    assert len(lbr.improvement_games.signatures) >= 2
    assert cfrbr._gather.signatures and bound._lift.signatures and store.encode_window.signatures
    # a build never calls these with float32: the warm-up must not compile them so
    assert _value_types(kernels.fsicfr_backward, V) == {"float64"}
    assert _value_types(bound._lift, 1) == {"float64"}


def test_the_warmup_waits_for_the_builds_first_group(tmp_path):
    """Started beside a build, the warm-up sleeps until the group of 3 dice in play has trained in the build's work
    directory (the kernels every group trains with are in the cache then), and no longer."""
    import threading

    from games.dudo.build.warmup import wait_for_first_group

    assert wait_for_first_group(str(tmp_path), seconds=0.3, poll=0.05) >= 0.3      # nothing trained: the whole wait
    (tmp_path / "dudo_1v1_mNone.json").write_text("{}")
    assert wait_for_first_group(str(tmp_path), seconds=0.3, poll=0.05) >= 0.3      # 1v1 is not the signal
    done = threading.Timer(0.2, lambda: (tmp_path / "dudo_1v2_m4.trained.json").write_text("{}"))
    done.start()
    waited = wait_for_first_group(str(tmp_path), seconds=30.0, poll=0.05)
    done.join()
    assert 0.2 <= waited < 5.0


def test_a_build_leaves_the_file_the_warmup_waits_for(tmp_path):
    """The signal is the solver's own file: a build of 3 dice a player leaves one that FIRST_TRAINED matches."""
    import glob
    import os

    from games.dudo.build.solve_game import solve_game
    from games.dudo.build.warmup import FIRST_TRAINED

    solve_game(checkpoint_dir=str(tmp_path), max_dice=2, m={(1, 1): None, (1, 2): 1, (2, 2): 1}, iterations=1,
               progress=False, log=None, exact_br_total=2, pipelined=True)
    assert glob.glob(os.path.join(tmp_path, FIRST_TRAINED))
