"""``research.dudo_memory``: the responder memory that dominates every candidate (checked claim by claim), and
the bench on a tiny built store (its improvement never above the exact best response)."""
import pytest

from research import dudo_memory
from games.dudo.abstraction.infoset import Schedule, dominates, memory_at, parse_memory
from games.dudo.build.params import DudoParams
from tests.conftest import built_dudo_manifest

SMALL = DudoParams(max_dice=2, iterations=40, memory=1, exact_br_total=2, bound_memory=1)


@pytest.mark.parametrize("K,mems", [(48, ["4-16-3", "4-20-3-30-2"]), (60, ["3-20-2", "2", "3-24-2-34-1"]),
                                    (24, ["3", "2"]), (36, ["5-18-4", "4"])])
def test_join_is_the_least_memory_above_every_candidate(K, mems):
    ms = [parse_memory(x) for x in mems]
    j = dudo_memory.join_memories(K, ms)
    assert all(dominates(K, j, m) for m in ms)
    for L in range(-1, K):
        assert memory_at(K, j, L) == max(memory_at(K, m, L) for m in ms)
    uniform = len({memory_at(K, j, L) for L in range(-1, K)}) == 1
    assert isinstance(j, int) == uniform and isinstance(j, Schedule) != uniform


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    return built_dudo_manifest(SMALL, tmp_path_factory.mktemp("dudomemory"))


def test_bench_compares_memories_on_a_built_store(small_store, tmp_path, capsys):
    root, _ = small_store
    args = ["--root", str(root), "--variant", SMALL.variant, "--group", "1v2", "--memories", "1,2",
            "--cap", "32", "--games", "20", "--work", str(tmp_path)]
    assert dudo_memory.main(args) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(out) if line.split()[:2] == ["round", "memory"])
    rows = [line.split() for line in out[head + 1:out.index("", head)]]
    assert [(r[0], r[1]) for r in rows] == [("2v1", "1"), ("2v1", "2")]     # 1v2 is not reachable with 2 dice
    for r in rows:      # 3 dice in play: the own figure is the exact perfect-recall best response
        exact, improved, se = float(r[6]), float(r[7]), float(r[8])
        assert 0 < improved <= exact + 4 * se + 1e-9
    gains = [line for line in out[out.index("", head):] if line.startswith("2v1 ")]
    assert len(gains) == 2 and all("open" in g for g in gains)
    assert dudo_memory.main(args[:-2] + ["--games", "1", "--work", str(tmp_path)]) == 2
    assert dudo_memory.main(args + ["--memories", "1,x-2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--games is 1" in err[0] and "bad arguments" in err[1]
