import atexit
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest



def _kernels_hash() -> str:
    """The Makefile's KERNELS_HASH: numba's cache kept per version of games/'s sources (it notices a change of a
    kernel's own file only, not of a kernel it calls in another file)."""
    import hashlib
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha1()
    for p in sorted(str(x.relative_to(root)) for x in (root / "games").rglob("*.py")):
        h.update((root / p).read_bytes())
    return h.hexdigest()[:12]


os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".numba_cache" / _kernels_hash()))
# grpcio >= 1.81 restarts its poller thread in a forked child (grpc/grpc#43055): a child that closes its
# descriptors before exec, as pexpect's pty spawn does, can die of "epoll_wait error: Bad file descriptor"
# before it execs (6 of 200 spawns next to an in-process server here, 0 of 200 with this). The tests fork
# such children while an in-process server runs; gRPC's fork support serves no test.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
# numba's parallel kernels (FastSolver(threads=k), SharedCores) run on libgomp, whose threads spin while they wait
# at a barrier: on a machine with more runnable processes than cores (the test run beside the nice-19 live workers,
# other builds) a spinning thread holds the core its partner needs. Measured at load 14 on 2 cores, 3 iterations
# of 2v2 at m = 3 on 2 threads: 6.8 s of CPU and 16.7 s wall spinning, 0.13 s and 0.47 s with threads that sleep
# (1 thread: 0.08 s). Set for this process and every one the tests start, before numba starts its threads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Every registry verifies a store before serving it (server.storecheck, a child process each). The tests open
# the same session stores in many registries: they share their verdicts, by file identity (path, inode, size,
# times), as a server's workers do; a file a test changes has another identity and is checked again.
if not os.environ.get("GAMESTRATEGY_VERIFY_DIR"):
    _verdicts = tempfile.mkdtemp(prefix="gamestrategy-test-verdicts-")
    os.environ["GAMESTRATEGY_VERIFY_DIR"] = _verdicts
    atexit.register(shutil.rmtree, _verdicts, True)

SMALL_VARIANT = "jotto-en_US80-2-ganzfried"


@pytest.fixture(scope="session")
def small_store(tmp_path_factory):
    """A small Jotto store with a low book threshold so that the book has many entries."""
    from builder.jotto import JottoParams, build_jotto_store

    root = tmp_path_factory.mktemp("stores")
    params = JottoParams(fp_iterations=60, do_iterations=6, book_threshold=6, do_oracles=("gbr", "rollout"),
                         rollout_figures=True, hedge_iterations=20)
    path = build_jotto_store(SMALL_VARIANT, params, root)
    return root, path


@pytest.fixture(scope="module")
def registry(small_store):
    """The small store's registry, as the server process holds it."""
    from server.registry import Registry

    root, _ = small_store
    r = Registry(root)
    r.refresh()
    yield r


@contextlib.contextmanager
def servers_on(registry):
    """``start(**settings) -> port`` starting servers on the registry; every one stopped on leaving."""
    from server.app import build_server
    from server.settings import ServerSettings

    started = []

    def start(**kw):
        server, port = build_server(registry, "127.0.0.1:0", settings=ServerSettings(**kw))
        server.start()
        started.append(server)
        return port

    try:
        yield start
    finally:
        for s in started:
            s.stop(0).wait()
            s.live_pool.close()


@pytest.fixture()
def serve(registry):
    """``serve(**settings) -> port``: servers on the registry, stopped after the test."""
    with servers_on(registry) as start:
        yield start


@contextlib.contextmanager
def stub_on(root):
    """A gRPC stub of a server on the stores under ``root`` (its own registry), stopped afterwards."""
    import grpc

    from protos import gamestrategy_pb2_grpc as pb_grpc
    from server.app import build_server
    from server.registry import Registry

    registry = Registry(root)
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            yield pb_grpc.GameStrategyStub(ch)
    finally:
        server.stop(0).wait()
        registry.close()


def built_dudo_manifest(params, root):
    """Build a Dudo store under ``root`` and return (root, its manifest), the store closed again."""
    from builder.dudo import build_dudo_store
    from games.storage import Store
    s = Store(build_dudo_store(params, root))
    m = dict(s.manifest)
    s.close()
    return root, m


def assert_served_rows_follow_the_dag(g, st, m, max_claims: int, seed: int = 5, draws: int = 300):
    """Every side's windows of group ``g`` (1 v 2 dice, memory ``m``, strategy ``st``) encoded as store rows;
    ``store.lookup_row`` of random histories must give the row of the window that walking ``g``'s DAG claim by
    claim reaches (within one quantisation unit)."""
    import random

    import numpy as np

    from games.dudo.rules import rolls
    from games.dudo.store import encode_window, lookup_row, window_key
    from games.quantise import UNIT
    rows = {}
    for s in range(2):
        own, opp, n = g.dice[s], g.dice[g.oth[s]], int(g.ns[s])
        out = np.zeros(n * (1 + 3 * (g.K + 1)), dtype=np.uint8)
        for w in range(g.NW):
            size = encode_window(st, int(g.rbase[s] + g.act_off[w] * n), n, 1 if g.last[w] < 0 else 0,
                                 int(g.act_off[w + 1] - g.act_off[w]), out)
            rows[window_key(own, opp, w)] = out[:size].tobytes()
    rng = random.Random(seed)
    for _ in range(draws):
        own = rng.choice((1, 2))
        s = g.dice.index(own)
        hist = sorted(rng.sample(range(g.K), rng.randint(0, max_claims)))
        w = 0
        for c in hist:
            w = int(g.child[g.act_off[w] + c - g.last[w]])
        x = rng.randrange(int(g.ns[s]))
        actions, probs = lookup_row(rows.get, {(1, 2): m}, own, 3 - own, rolls(own)[x], hist)
        n = int(g.ns[s])
        want = st[g.rbase[s] + g.act_off[w] * n + x:g.rbase[s] + g.act_off[w + 1] * n:n]
        slots = np.where(actions < 0, 0, actions - g.last[w])
        assert probs.sum() == pytest.approx(1.0) and np.all(np.abs(want[slots] - probs) <= 1.0 / UNIT + 1e-12)


def assert_solver_values_the_strategy_as_the_history_walk_does(g, st):
    """The solver's root value of ``st`` on 1v1 group ``g`` equals ``exploit.cross_play_value``'s, which
    looks every claim history up by ``infoset.history_window`` instead of walking the DAG."""
    from games.dudo.measure.exploit import cross_play_value
    from games.dudo.solvers.abstract_cfr import FastSolver
    v = FastSolver(g, train=False).root_values(st)[0]
    T = g.terminal[0]
    assert v == pytest.approx(cross_play_value(1, 1, g, st, g, st, (T, -T)), abs=1e-12)


@pytest.fixture(scope="session")
def endgame_root(tmp_path_factory):
    """A Dudo store root whose rounds of 3 and 4 dice have no exact figure: their endgames are re-solved
    (games.dudo.policy.served)."""
    from builder.dudo import build_dudo_store
    from games.dudo.build.params import DudoParams

    params = DudoParams(max_dice=2, iterations=30, exact_br_total=2)
    root = tmp_path_factory.mktemp("endgame-root")
    build_dudo_store(params, root)
    return root, params.variant


@pytest.fixture()
def built_before_first_replies(monkeypatch):
    """A Dudo build recorded before its search tables stored first replies (tests/builder/data/'s builds and traces
    but serve_build_2347.log): its progress weighed as its code weighed the tables (no ``FIRST_REPLY_CPU``)."""
    import builder.dudo_estimate as dudo_estimate
    import builder.dudo_progress as dudo_progress

    for module in (dudo_estimate, dudo_progress):
        monkeypatch.setattr(module, "FIRST_REPLY_CPU", {})
