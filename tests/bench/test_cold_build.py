"""bench.cold_build: its compile log's accounting, and one small build with an empty and a warm numba cache."""
from __future__ import annotations

import pytest

from bench.cold_build import compile_summary, main, store_seconds


def test_a_kernel_compiled_again_by_another_process_counts_as_duplicated():
    lines = ["10\t2.0\tgames.k.f\tarray(float64, 1d, C)",
             "11\t1.5\tgames.k.f\tarray(float64, 1d, C)",     # the same signature in another process
             "11\t0.5\tgames.k.f\tarray(float32, 1d, C)",     # another signature: compiled once
             "10\t0.25\tgames.k.g\tint64",
             "10\t0.25\tgames.k.g\tint64"]                     # the same process again (another dispatcher)
    s = compile_summary(lines)
    assert s["compile_cpu"] == pytest.approx(4.5)
    assert s["duplicated"] == pytest.approx(1.5)
    assert s["by_function"] == pytest.approx({"games.k.f": 4.0, "games.k.g": 0.5})


def test_store_seconds_reads_the_builders_table():
    out = ("built on process pool (2 workers) in 9.1 s\n"
           "store                             seconds  peak MB  size MB  content hash      quality\n"
           "guesswho-24                           6.1    1,061      0.0  83e91bec816e79df  tuned vs optimal 0.5000\n"
           "hangman-en_US50-5                     6.3    1,126      0.1  58d3bfce092a0aaf  ours vs seed 0.865\n"
           "\n"
           "dudo-5dice-default: 46582 windows\n")
    assert store_seconds(out) == {"guesswho-24": 6.1, "hangman-en_US50-5": 6.3}


def test_one_small_build_cold_then_warm(capsys):
    assert main(["--variant", "hangman-en_US50-5", "--lanes", "1", "--top", "3"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("cold cache", "warm cache"))}
    cold, warm = rows["cold"], rows["warm"]       # "cold cache <wall> <cpu> <compile> <duplicated>"
    assert float(cold[4]) > 0                     # the empty cache: numba compiled something
    assert float(warm[4]) < float(cold[4])        # the cache the first build left: less or nothing
    assert "hangman-en_US50-5" in out and "cold / warm" in out
