"""A Dudo build compiles beside its groups the kernels it needs late and those of the server's live work, so that the
server's live workers load them from numba's cache as the store comes online (builder.dudo.compile_beside_build)."""
from builder import dudo
from builder.executor import BuildExecutor
from games.dudo.build.params import DudoParams


class RecordingExecutor(BuildExecutor):
    def __init__(self):
        self.beside_calls = []

    def beside(self, fn, *args, nice: int = 19):
        self.beside_calls.append((fn, args, nice))
        return None


def test_a_build_with_a_core_to_spare_compiles_the_servers_live_kernels_beside_its_groups(tmp_path):
    ex = RecordingExecutor()
    dudo.build_dudo_store(DudoParams(max_dice=1, iterations=2), tmp_path, cores=2, executor=ex)
    assert [(fn, nice) for fn, _, nice in ex.beside_calls] == [(dudo.compile_beside_build, 19)]


def test_the_compile_beside_a_build_ends_with_the_servers_live_kernels(monkeypatch):
    """After the build's late kernels, the live pool's warm-up (games.dudo.serving.warm): the endgame re-solve's
    and the searched chain's kernels, the search's on read-only int8 leaves as a store's map gives them."""
    monkeypatch.setattr(dudo, "compile_kernels", lambda work_dir: {"float64 build": 0.0})
    seconds = dudo.compile_beside_build(None)
    assert set(seconds) == {"float64 build", "serving"}
    from games.dudo.search import endgame, resolve
    assert endgame.cfr_plus_iterations.signatures
    assert any("readonly array(int8" in str(t) for sig in resolve.cfr_resolve.signatures for t in sig), \
        resolve.cfr_resolve.signatures
