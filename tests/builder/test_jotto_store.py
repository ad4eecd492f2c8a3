"""The store: manifest, atomic publication, and every book entry equal to the live oracle's move."""
import json
import os

import numpy as np
import pytest

from tests.conftest import SMALL_VARIANT
from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import JottoOracle, state_key
from games.jotto.store import decode_book_value
from games.storage import FORMAT_VERSION, Store, StoreError, current_stores
from server.backends.jotto import JottoBackend


def test_manifest_records_what_produced_the_store(small_store):
    root, path = small_store
    s = Store(path)
    m = s.manifest
    d = load_dictionary(SMALL_VARIANT)
    assert m["format_version"] == FORMAT_VERSION
    assert m["dictionary"]["sha256"] == d.sha256 and m["dictionary"]["size"] == d.size
    assert {k: m["parameters"][k] for k in ("fp_iterations", "do_iterations", "book_threshold")} == {
        "fp_iterations": 60, "do_iterations": 6, "book_threshold": 6}
    assert m["code_version"] and m["build_time"] and m["store_version"] == path.name
    assert set(m["strategies"]) == {"benchmark", "beeler", "fp", "double_oracle", "people"}
    assert m["served"] in ("fp", "double_oracle")
    served = m["strategies"][m["served"]]["figures"]["guarantee"]
    assert served == min(m["strategies"][k]["figures"]["guarantee"] for k in ("fp", "double_oracle"))
    assert current_stores(root, "jotto") == {SMALL_VARIANT: path}
    assert os.readlink(path.parent / "current") == path.name


def _reachable_states(oracle: JottoOracle, h, kind, threshold):
    """Every state of one member's decision tree with more than `threshold` words, by live replay."""
    out = []
    stack = [np.arange(oracle.D, dtype=np.int32)]
    while stack:
        S = stack.pop()
        g = oracle.move(S, h, kind)
        if len(S) > threshold:
            out.append((S, g))
        answers = oracle.C[g, S]
        for a in np.unique(answers):
            child = S[(answers == a) & (S != g)]
            if len(child):
                stack.append(child)
    return out


@pytest.mark.parametrize("strategy", ["double_oracle", "fp", "benchmark", "beeler", "people"])
def test_every_book_entry_is_the_live_oracle_move(small_store, strategy):
    _, path = small_store
    b = JottoBackend(Store(path))
    s = b.strategies[strategy]
    expected: dict[bytes, dict[int, int]] = {}
    for c in range(s.size):
        for S, g in _reachable_states(b.oracle, s.member_hider(c), s.member_kind(c), b.threshold):
            expected.setdefault(state_key(b.oracle.D, S), {})[c] = g
            # the live path computes the same move through the backend's own entry point
            assert s.move(b.oracle, c, S) == g
    entries = {}
    for key, raw in b.store.items(f"book:{strategy}"):
        from games.jotto.store import decode_book_value

        _, members, moves = decode_book_value(bytes(raw))
        entries[bytes(key)] = dict(zip(members.tolist(), moves.tolist()))
    assert len(entries) > 5
    assert entries == expected


def test_rebuilding_publishes_atomically_and_keeps_old_version(small_store, tmp_path):
    from builder.jotto import JottoParams, build_jotto_store

    p = JottoParams(fp_iterations=3, do_iterations=1, book_threshold=30)
    first = build_jotto_store(SMALL_VARIANT, p, tmp_path)
    second = build_jotto_store(SMALL_VARIANT, p, tmp_path)
    assert first != second and first.is_dir() and second.is_dir()
    assert current_stores(tmp_path, "jotto")[SMALL_VARIANT] == second
    assert not list((tmp_path / "jotto" / SMALL_VARIANT).glob(".build-*"))
    # same parameters and code: the same strategies and books
    a, b = Store(first), Store(second)
    for name in ("hider:double_oracle", "weights:double_oracle", "member_hiders:double_oracle", "hider:fp"):
        assert np.array_equal(a.array(name), b.array(name))
    assert list(a.items("book:double_oracle")) == list(b.items("book:double_oracle"))


def test_corrupt_or_foreign_store_is_refused(tmp_path):
    import lmdb

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "data.mdb").write_bytes(b"not an lmdb file" * 100)
    with pytest.raises(StoreError):
        Store(bad)
    old = tmp_path / "old"
    env = lmdb.open(str(old), max_dbs=4)
    with env.begin(write=True, db=env.open_db(b"meta")) as txn:
        txn.put(b"manifest", json.dumps({"format_version": 999}).encode())
    env.close()
    with pytest.raises(StoreError, match="format version 999"):
        Store(old)


def test_seeded_draws_follow_the_mixture_and_hider_weights(small_store):
    _, path = small_store
    b = JottoBackend(Store(path))
    s = b.strategies["fp"]
    n = 40_000
    members = np.bincount([s.member_for_seed(seed) for seed in range(n)], minlength=s.size) / n
    assert np.abs(members - s.weights / s.weights.sum()).max() < 4 * np.sqrt(s.weights.max() / n) + 1e-9
    words = np.bincount([s.hider_word(seed) for seed in range(n)], minlength=len(s.hider)) / n
    h = s.hider / s.hider.sum()
    assert np.abs(words - h).max() < 4 * np.sqrt(h.max() / n)
    assert [s.member_for_seed(7)] * 3 == [s.member_for_seed(7) for _ in range(3)]


def test_resumed_solves_equal_uninterrupted_ones():
    """A checkpoint (to_arrays, saved and loaded as the builder does) resumes to the same result."""
    import io

    from games.jotto.oracle import JottoOracle
    from games.jotto.solvers import DOState, FPState, solve_double_oracle, solve_jotto

    o = JottoOracle(load_dictionary(SMALL_VARIANT))

    def reload(arrays):
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        buf.seek(0)
        with np.load(buf) as z:
            return {k: z[k] for k in z.files}

    whole = solve_jotto(o, 40, record_threshold=6)
    part = solve_jotto(o, 17, record_threshold=6)
    resumed = solve_jotto(o, 40, FPState.from_arrays(reload(part.to_arrays())), record_threshold=6)
    a, b = whole.to_arrays(), resumed.to_arrays()
    for k in a:
        if k != "seconds":
            assert np.array_equal(a[k], b[k]), k
    d_whole = solve_double_oracle(o, 8)
    d_part = solve_double_oracle(o, 3)
    d_resumed = solve_double_oracle(o, 8, DOState.from_arrays(reload(d_part.to_arrays())))
    a, b = d_whole.to_arrays(), d_resumed.to_arrays()
    for k in a:
        if k != "seconds":
            assert np.array_equal(a[k], b[k]), k


def test_a_build_resumed_after_its_double_oracle_writes_the_same_store(tmp_path, monkeypatch):
    """A build stopped once its double oracle's final checkpoint is saved resumes from it to the same store: from a
    checkpoint holding the final mixture's hider (used as it is), and from one without (solved again)."""
    import builder.jotto as jotto
    from builder.jotto import Checkpoint, JottoParams, build_jotto_store

    params = JottoParams(fp_iterations=10, do_iterations=2, hedge_iterations=12, book_threshold=6)
    whole = Store(build_jotto_store(SMALL_VARIANT, params, tmp_path / "whole")).manifest["content_hash"]

    class Stop(Exception):
        pass

    def stop(anchors):
        raise Stop

    for keep_hider in (True, False):
        root = tmp_path / f"resumed-{keep_hider}"
        with monkeypatch.context() as m:
            m.setattr(jotto, "hider_candidates", stop)
            with pytest.raises(Stop):
                build_jotto_store(SMALL_VARIANT, params, root)
        ckpt = Checkpoint(root, SMALL_VARIANT, params)
        saved = ckpt.load("do")
        assert saved["hider"].size == len(load_dictionary(SMALL_VARIANT).words)
        if not keep_hider:
            ckpt.save("do", {k: v for k, v in saved.items() if k != "hider"})
        assert Store(build_jotto_store(SMALL_VARIANT, params, root)).manifest["content_hash"] == whole


def test_people_lookahead_store_serves_the_tree_it_reports(tmp_path):
    """With people_lookahead the book holds the lookahead's moves, the server plays the rollout guesser
    below the threshold, and the figures are those of that play, replayed word by word."""
    from builder.jotto import JottoParams, build_jotto_store

    p = JottoParams(fp_iterations=3, do_iterations=1, book_threshold=20, people_secret="uniform",
                    people_lookahead=(4, 3))
    path = build_jotto_store(SMALL_VARIANT, p, tmp_path)
    m = Store(path).manifest
    people = m["strategies"]["people"]
    assert m["parameters"]["people_lookahead"] == [4, 3] and (people["lookahead_width"], people["book_threshold"]) == (4, 3)
    b = JottoBackend(Store(path))
    s = b.strategies["people"]
    # its own book threshold: states of 4 to 20 words are in the people's book, not in the others'
    sizes = [decode_book_value(bytes(raw))[0] for _, raw in b.store.items("book:people")]
    assert all(n > 3 for n in sizes) and min(sizes) <= 20 and all(n > 20 for _, raw in b.store.items("book:benchmark")
                                   for n in [decode_book_value(bytes(raw))[0]])
    played = []
    for secret in range(b.oracle.D):
        guesses, answers = [], []
        while True:
            g = b.member_moves(s, b.oracle.consistent(guesses, answers), [0], None)[0][0]
            if g == secret:
                break
            guesses.append(g)
            answers.append(int(b.oracle.C[g, secret]))
        played.append(len(guesses) + 1)
    assert np.mean(played) == pytest.approx(m["strategies"]["people"]["figures"]["mean_guesses_vs_secret"], abs=1e-12)
    # the defaults record no people_lookahead, so stores built without it keep their content hash
    assert "people_lookahead" not in JottoParams(fp_iterations=3, do_iterations=1).as_dict()


@pytest.mark.parametrize("flags", [dict(rollout_figures=True), dict(robust_hider=True)])
def test_full_store_hider_is_at_least_as_robust_as_the_uniform_one(tmp_path, flags):
    """With rollout figures (or robust_hider) and Hedge, the served hider's larger lower bound on the true
    epsilon (against GBR and the rollout oracle) is no worse than the uniform hider's against the same
    mixture, recomputed here from the members' trees."""
    from builder.jotto import JottoParams, build_jotto_store
    from games.jotto.oracle import ROLLOUT, GBR
    from games.jotto.solvers import ROBUST_TOLERANCE

    p = JottoParams(fp_iterations=10, do_iterations=2, hedge_iterations=12, people_oracle="gbr", **flags)
    path = build_jotto_store(SMALL_VARIANT, p, tmp_path)
    s = Store(path)
    do = s.manifest["strategies"]["double_oracle"]
    assert do["hider_selected_against"] == "gbr+rollout" and do["hedge_iterations"] == 12
    o = JottoOracle(load_dictionary(SMALL_VARIANT))
    members = s.array("member_hiders:double_oracle")
    w = s.array("weights:double_oracle")
    ang = np.stack([o.tree(h, GBR).guesses for h in members], axis=1).astype(np.float64) @ w
    u = o.uniform
    self_play = float(u @ ang)
    uniform_worst = max(ang.max() - self_play, self_play - float(u @ o.tree(u, GBR).guesses),
                        self_play - float(u @ o.tree(u, ROLLOUT).guesses))
    f = do["figures"]
    assert f["guarantee"] == pytest.approx(ang.max())
    assert max(f["epsilon"], f["epsilon_rollout"]) <= uniform_worst + ROBUST_TOLERANCE + 1e-9
    h = s.array("hider:double_oracle")
    assert f["hider_vs_rollout"] == pytest.approx(float(h @ o.tree(h, ROLLOUT).guesses))


def test_every_step_of_a_build_says_the_tasks_it_runs_side_by_side(tmp_path, monkeypatch):
    """Recorded in the progress file for the lanes' schedule: one task but where the step's trees run on the workers
    side by side (the double oracle's two at a time); Hedge builds one tree an iteration."""
    from builder.executor import BuildExecutor
    from builder.jotto import JottoParams, build_jotto_store, jotto_steps
    from builder.steps import StoreSteps

    class TwoWorkers(BuildExecutor):
        workers = local_cores = 2

    said, step = {}, StoreSteps.step

    def recorded(self, name, *args, **kw):
        out = step(self, name, *args, **kw)
        said[name] = out.tasks
        return out

    monkeypatch.setattr(StoreSteps, "step", recorded)
    p = JottoParams(fp_iterations=3, do_iterations=1, hedge_iterations=2, robust_hider=True, certify="served",
                    certify_nodes=200, certify_steps=1)
    build_jotto_store(SMALL_VARIANT, p, tmp_path, executor=TwoWorkers())
    assert list(said) == jotto_steps(p)
    assert {k for k, n in said.items() if n == 2} == {"double oracle", "hider selection", "robust hider",
                                                        "double-oracle book", "figures"}
    assert all(n == 1 for k, n in said.items() if n != 2)


def test_a_builds_rest_is_shared_among_its_steps_by_their_walls_times_their_tasks():
    """The lanes' schedule weighs a store by the tasks its steps run side by side (builder.jotto.rest_by_tasks): its
    CPU left in parts, each step's expected wall times its tasks, consecutive steps of as many tasks merged."""
    from builder.jotto import jotto_step_shares, rest_by_tasks, step_tasks
    from builder.profiles import DEFAULT

    v = "jotto-en_US80-4-ganzfried"
    shares = jotto_step_shares(v, DEFAULT[v])
    cpu = {k: w * step_tasks(k, 2) for k, w in shares.items()}
    at_start = rest_by_tasks(v, DEFAULT[v], 0.0, 2)
    assert sum(s for s, _ in at_start) == pytest.approx(1.0)
    assert [n for _, n in at_start] == [1, 2, 1, 2, 1, 2, 1]     # ... the double oracle, the restricted games, ...
    first = ("setup", "fixed guessers", "fictitious play", "hedge")
    assert at_start[0][0] == pytest.approx(sum(cpu[k] for k in first) / sum(cpu.values()))
    # half the double oracle done: the rest of it, then the steps after it; on one worker every step one task
    total = sum(shares.values())
    half = (sum(shares[k] for k in first) + shares["double oracle"] / 2) / total
    rest = rest_by_tasks(v, DEFAULT[v], half, 2)
    left = {k: cpu[k] for k in list(shares)[list(shares).index("double oracle") + 1:]}
    assert rest[0] == (pytest.approx(cpu["double oracle"] / 2 / (cpu["double oracle"] / 2 + sum(left.values()))), 2)
    assert rest_by_tasks(v, DEFAULT[v], half, 1) == [(pytest.approx(1.0), 1)]
    assert rest_by_tasks(v, DEFAULT[v], 1.0, 2) == []
