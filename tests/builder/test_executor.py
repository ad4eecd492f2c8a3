"""The builder's executor interface: the same results on every executor, shared arrays, lost workers;
store content hashes; a build killed half-way and resumed writes the same stores."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from builder.executor import BuildExecutor, ProcessExecutor, make_executor
from builder.storehash import store_hashes
from games.storage import Store, StoreWriter

REPO = Path(__file__).resolve().parents[2]


def row_checksum(a, i):
    return float(np.asarray(a[i], dtype=np.float64) @ np.arange(a.shape[1])) + i


def die_once(marker, x):
    """Kill the worker running it the first time it is called (marker file), then behave."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


@pytest.fixture(scope="module")
def big():
    return np.random.default_rng(3).random((200, 300))


@pytest.mark.parametrize("kind", ["serial", "process", "dask"])
def test_map_in_order_with_shared_array(kind, big, tmp_path):
    expect = [row_checksum(big, i) for i in range(40)]
    with make_executor(kind, 2, share_dir=str(tmp_path / "shared")) as ex:
        h = ex.share(big)
        assert ex.map(row_checksum, [h] * 40, range(40)) == expect
        assert ex.submit(row_checksum, h, 7).result() == expect[7]
        if kind == "process":  # the array travels as one memory-mapped file, not once per task
            assert len(list((tmp_path / "shared").glob("*/*.npy"))) == 1
    assert not list((tmp_path / "shared").glob("*/*.npy"))  # removed when the executor closes


def test_process_pool_survives_a_killed_worker(tmp_path):
    ex = ProcessExecutor(2, share_dir=str(tmp_path / "shared"))
    try:
        assert ex.map(die_once, [str(tmp_path / "marker")] * 12, range(12)) == [x * x for x in range(12)]
        assert ex.restarts == 1
    finally:
        ex.close()


def test_dask_survives_a_killed_worker(tmp_path):
    with make_executor("dask", 2) as ex:
        assert ex.map(die_once, [str(tmp_path / "marker")] * 12, range(12)) == [x * x for x in range(12)]
    assert (tmp_path / "marker").exists()


def test_dask_scatters_again_after_losing_every_worker(big):
    with make_executor("dask", 2) as ex:
        h = ex.share(big)
        expect = [row_checksum(big, i) for i in range(6)]
        assert ex.map(row_checksum, [h] * 6, range(6)) == expect
        ex.client.restart()  # every worker replaced: the scattered copies are gone
        assert ex.map(row_checksum, [h] * 6, range(6)) == expect


def _store(root, value: bytes, seconds: float) -> Path:
    with StoreWriter(root, "jotto", "jotto-test") as w:
        w.put("arrays", b"a", value)
        return w.publish({"game": "jotto", "variant": "jotto-test", "build_seconds": seconds,
                          "figures": {"epsilon": 0.5, "seconds_per_iteration": seconds}})


def test_content_hash_ignores_timings_and_sees_data(tmp_path):
    hashes = []
    for value, secs in ((b"x", 1.0), (b"x", 2.5), (b"y", 1.0)):
        s = Store(_store(tmp_path / str(len(hashes)), value, secs))
        try:
            assert s.content_hash() == s.manifest["content_hash"]
            hashes.append(s.manifest["content_hash"])
            assert s.version.endswith(hashes[-1][:8])
        finally:
            s.close()
    assert hashes[0] == hashes[1] != hashes[2]


# the 3-letter Jotto default runs every Jotto stage (Hedge included) in seconds
PLAN = ["--profile", "default", "--variant", "jotto-en_US80-3-ganzfried", "--variant", "hangman-en_US50-5"]


def _build(root: Path, *extra: str, wait_for: str | None = None) -> subprocess.CompletedProcess | None:
    cmd = [sys.executable, "-m", "builder", *PLAN, "--root", str(root), *extra]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if wait_for is None:
        return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    # kill the build with SIGKILL once its journal records `wait_for`
    p = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and p.poll() is None:
            journals = list((root / ".work").glob("build-*.json"))
            if journals and wait_for in json.loads(journals[0].read_text() or "{}"):
                break
            time.sleep(0.05)
    finally:  # the whole build at once, as when its machine dies
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    return None


def test_build_same_hash_on_every_executor_and_after_sigkill(tmp_path):
    """The serial build is the reference. A Dask build killed once it has published the Jotto store and resumed
    on the process pool: Jotto built on Dask, Hangman on the process pool, the journal of one executor's build
    resumed by another, every store the serial build's (two builds' work instead of three: the serial, the Dask
    and the killed-and-resumed process-pool builds each made both stores)."""
    ref = _build(tmp_path / "serial", "--executor", "serial")
    assert ref.returncode == 0, ref.stderr[-2000:]
    expect = {v: h for v, (_, _, h) in store_hashes(tmp_path / "serial").items()}
    assert set(expect) == {"jotto-en_US80-3-ganzfried", "hangman-en_US50-5"}

    root = tmp_path / "killed"
    _build(root, "--executor", "dask", "--workers", "2", wait_for="jotto-en_US80-3-ganzfried")
    again = _build(root, "--executor", "process", "--workers", "2")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "resumed" in again.stdout.split("jotto-en_US80-3-ganzfried", 1)[1].splitlines()[0]
    got = store_hashes(root)
    assert {v: h for v, (_, _, h) in got.items()} == expect
    assert all(recorded == actual for _, recorded, actual in got.values())
    assert not list((root / ".work").glob("build-*.json"))  # a finished build drops its journal


def test_serial_executor_is_plain_python():
    ex = BuildExecutor()
    assert ex.map(pow, [2, 3], [3, 2]) == [8, 9]
    with pytest.raises(ZeroDivisionError):
        ex.submit(divmod, 1, 0).result()


def test_dudo_training_stops_at_an_iteration_boundary_and_resumes_identically(tmp_path):
    from games.dudo.solvers.abstract_cfr import FastSolver
    from games.dudo.solvers.training import TrainingStopped
    from games.dudo.abstraction.dag import make_group

    def solver():
        return FastSolver(make_group(1, 1, None, {}, max_dice=1))

    ref = solver().solve(20, progress=False)
    s, ckpt = solver(), str(tmp_path / "g.npz")
    with pytest.raises(TrainingStopped):
        s.solve(20, checkpoint=ckpt, every=0, progress=False, should_stop=lambda: s.t >= 7)
    resumed = solver().load(ckpt)
    assert resumed.t == 7
    resumed.solve(20 - resumed.t, progress=False)
    assert np.array_equal(resumed.average_strategy(), ref.average_strategy())


def test_dudo_store_same_hash_on_every_executor(tmp_path):
    """A small Dudo store with a memory per group (budgets) built serially, on the process pool and on
    Dask: one content hash (every float that reaches it is computed in a fixed order, no BLAS, no
    fastmath, then quantised; see games/dudo/solvers/kernels.py)."""
    from builder.dudo import build_dudo_store
    from games.dudo.build.params import DudoParams
    params = DudoParams(max_dice=2, iterations=4, exact_br_total=2, memory_budget=1 << 30, time_budget=0.05,
                        label="hash")
    hashes = []
    for kind in ("serial", "process", "dask"):
        with make_executor(kind, 2) as ex:
            path = build_dudo_store(params, tmp_path / kind, map_fn=ex.map)
        s = Store(path)
        try:
            hashes.append(s.manifest["content_hash"])
            assert len({m for _, _, m in s.manifest["memory_by_group"]}) > 1
        finally:
            s.close()
    assert len(set(hashes)) == 1


def _other_cpu_env() -> dict:
    """The environment of a process that computes as another x86-64 machine would where libraries pick code by
    CPU: OpenBLAS's kernel for an older CPU, and numpy without the AVX-512 paths this CPU has (its np.exp, for
    one, has its own there)."""
    import numpy as np
    try:
        found = np._core._multiarray_umath.__cpu_features__
    except AttributeError:          # numpy < 2
        found = np.core._multiarray_umath.__cpu_features__
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott")
    avx512 = [f for f, on in found.items() if on and (f.startswith("AVX512") or f == "X86_V4")]
    if avx512:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(avx512)
    return env


def _hashes_here_and_as_another_cpu(script: str, tmp_path) -> list[str]:
    """The content hash ``script`` prints (it builds a store under ``sys.argv[1]``) in a process with this CPU's
    library paths and in one with ``_other_cpu_env``'s."""
    hashes = []
    for name, env in (("host", {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE",
                                                                                 "NPY_DISABLE_CPU_FEATURES")}),
                      ("other", _other_cpu_env())):
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path / name)], env=env, cwd=REPO,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        hashes.append(out.stdout.split()[-1])
    return hashes


def test_dudo_store_hash_does_not_depend_on_the_cpu_paths_of_blas_or_numpy(tmp_path):
    """The same small Dudo store (bounds and the perfect-recall improvement included) built in two processes,
    one as another CPU would compute (``_other_cpu_env``): one content hash.  A figure summed by BLAS (its
    kernel fixes the order, so the last bits) made them differ."""
    script = ("import sys; from pathlib import Path; from builder.dudo import build_dudo_store; "
              "from games.dudo.build.params import DudoParams; from games.storage import Store; "
              "p = DudoParams(max_dice=2, iterations=30, memory=1, exact_br_total=2, bound_memory=1, "
              "bound_budget=1 << 30, bound_time_budget=60.0, improve_games=8, label='blas'); "
              "print(Store(build_dudo_store(p, Path(sys.argv[1]))).manifest['content_hash'])")
    here, other = _hashes_here_and_as_another_cpu(script, tmp_path)
    assert here == other


def test_jotto_store_hash_does_not_depend_on_the_cpu_paths_of_blas_or_numpy(tmp_path):
    """A small Jotto store (fictitious play, Hedge, the double oracle, their figures) built in two processes, one
    as another CPU would compute (``_other_cpu_env``): one content hash.  BLAS sums (the figures, the hider's
    selection) and numpy's exp (Hedge's hiders) once made them differ."""
    from tests.conftest import SMALL_VARIANT
    script = ("import sys; from pathlib import Path; from builder.jotto import JottoParams, build_jotto_store; "
              "from games.storage import Store; "
              "p = JottoParams(fp_iterations=60, do_iterations=6, book_threshold=6, do_oracles=('gbr', 'rollout'), "
              "rollout_figures=True, hedge_iterations=20); "
              f"print(Store(build_jotto_store({SMALL_VARIANT!r}, p, Path(sys.argv[1]))).manifest['content_hash'])")
    here, other = _hashes_here_and_as_another_cpu(script, tmp_path)
    assert here == other


def own_niceness(_):
    return os.nice(0)


def test_lower_priority_reaches_the_workers_and_only_the_calling_thread(tmp_path):
    """The first lane of a two-lane build goes to nice 19 after its first store: its executor's workers
    (a new pool) and its own thread, not the process's other threads (the Dudo lane's)."""
    import threading

    from builder.__main__ import LOW_NICE, _lower_priority

    base = os.nice(0)
    ex = ProcessExecutor(2, share_dir=str(tmp_path / "shared"))
    try:
        assert ex.map(own_niceness, range(2)) == [base, base]
        seen = {}

        def lane():
            _lower_priority(ex)
            seen["lane"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

        t = threading.Thread(target=lane)
        t.start()
        t.join()
        assert seen["lane"] == max(base, LOW_NICE)
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base   # this thread unchanged
        assert ex.map(own_niceness, range(2)) == [max(base, LOW_NICE)] * 2
    finally:
        ex.close()


def write_niceness_then_sleep(path, seconds):
    Path(path + ".tmp").write_text(json.dumps([os.getpid(), os.nice(0)]))
    os.replace(path + ".tmp", path)
    time.sleep(seconds)


@pytest.mark.parametrize("kind", ["serial", "process"])
def test_beside_runs_apart_at_low_priority_and_stops(kind, tmp_path):
    """``beside`` (the Dudo build's kernel warm-up): another process at nice 19, ended by ``stop_beside``
    while it still runs; an executor with no local workers starts nothing."""
    out = tmp_path / "beside.json"
    ex = make_executor(kind, workers=2, share_dir=str(tmp_path / "shared"))
    try:
        proc = ex.beside(write_niceness_then_sleep, str(out), 60.0)
        if kind == "serial":
            assert proc is None
            ex.stop_beside(proc)
            return
        deadline = time.monotonic() + 60
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pid, nice = json.loads(out.read_text())
        assert pid not in (os.getpid(), None) and nice == max(19, os.nice(0))
        assert proc.is_alive()
        ex.stop_beside(proc)
        assert not proc.is_alive()
    finally:
        ex.close()
