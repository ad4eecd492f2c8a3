"""games.dudo.warmup compiles the kernels a build needs late, with the types the build calls them with: the
two-thread pass, the float32 node values of the largest groups (solver, best response, improvement), training
against CFR+ responders, the bound and the store's row encoder; and no float32 variant a build never calls
(the reference kernel of 1v1, the lifted strategies of the bound stay float64)."""
from games.dudo import bound, cfrbr, kernels, lbr, store
from games.dudo.warmup import compile_kernels


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
