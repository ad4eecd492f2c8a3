"""Jotto moves off the book are computed on the serving thread: at most one at a time per process, so that
costly histories leave the other handler threads (book hits) their cores; a call that cannot get its turn
before its deadline is refused (RESOURCE_EXHAUSTED, retryable)."""
import itertools
import threading
import time

import pytest

from protos import gamestrategy_pb2 as pb
from server.live import Refused
from tests.conftest import SMALL_VARIANT


def live_histories(backend, n):
    """`n` histories of two test words ending in distinct states below the book threshold."""
    words, C, out, seen = backend.dictionary.words, backend.oracle.C, [], set()
    for g1, g2, w in itertools.product(range(len(words)), range(len(words)), range(len(words))):
        if g1 == g2 or int(C[g1][w]) == backend.dictionary.length:
            continue
        answers = [int(C[g1][w]), int(C[g2][w])]
        state = backend.oracle.consistent([g1, g2], answers)
        key = tuple(state.tolist())
        if 2 <= len(state) <= backend.threshold and key not in seen:
            seen.add(key)
            out.append([pb.JottoTurn(guess=words[g], jots=j) for g, j in zip((g1, g2), answers)])
            if len(out) == n:
                return out
    raise AssertionError("no such histories in the test store")


def test_costly_histories_compute_one_at_a_time(registry, monkeypatch):
    backend = registry.backends[SMALL_VARIANT]
    histories = live_histories(backend, 4)
    strategy_cls = type(backend.strategy("benchmark"))
    real_move, running, most = strategy_cls.move, [0], [0]
    lock = threading.Lock()

    def slow_move(self, *args, **kw):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)  # lets the other threads in, as a long kernel call would
        try:
            return real_move(self, *args, **kw)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(strategy_cls, "move", slow_move)
    results = []
    threads = [threading.Thread(target=lambda h=h: results.append(
        backend.sample_guesser("benchmark", 1, h, False, time.monotonic() + 60))) for h in histories]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == 4 and all(r.source == "live" for r in results)
    assert most[0] == 1


def test_a_call_that_cannot_get_its_turn_before_its_deadline_is_refused(registry):
    backend = registry.backends[SMALL_VARIANT]
    history = live_histories(backend, 5)[-1]
    assert backend._live_gate.acquire(timeout=10)  # another call computing
    try:
        with pytest.raises(Refused) as e:
            backend.sample_guesser("benchmark", 2, history, False, time.monotonic() + 0.2)
    finally:
        backend._live_gate.release()
    assert e.value.status == "RESOURCE_EXHAUSTED" and "retry" in str(e.value)
    assert backend.sample_guesser("benchmark", 2, history, False, time.monotonic() + 60).source == "live"
