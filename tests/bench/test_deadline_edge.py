"""Endgame re-solves at the caller's deadline (bench/deadline_edge.py), on a tiny store whose larger rounds are
re-solved."""
import re


def test_every_call_at_the_edge_is_counted_once_by_its_outcome(endgame_root, capsys):
    """bench.deadline_edge: each call is an answer counted by its source or an error counted by its status, the
    DEADLINE_EXCEEDED count is the errors' own, and the book hits beside them are counted too."""
    from bench.deadline_edge import main

    root, variant = endgame_root
    assert main(["--root", str(root), "--variant", variant, "--games", "10", "--calls", "40"]) == 0
    out = capsys.readouterr().out
    assert int(re.match(r"(\d+) endgame decisions", out).group(1)) > 0
    idle = int(re.search(r"idle: (\d+) answered LIVE", out).group(1))
    assert idle > 0
    edge = next(line for line in out.splitlines() if line.startswith("at the edge"))
    n = int(re.search(r"at the edge: (\d+) calls", edge).group(1))
    answers = {k: int(v) for k, v in re.findall(r"(BOOK|LIVE|DEGRADED) (\d+)", edge)}
    errors = {k: int(v) for k, v in re.findall(r"([A-Z_]{4,}) (\d+)", edge.split("errors:")[1])}
    assert n == 40 and sum(answers.values()) + sum(errors.values()) == n
    assert int(re.search(r"^DEADLINE_EXCEEDED: (\d+)$", out, re.M).group(1)) == errors.get("DEADLINE_EXCEEDED", 0)
    assert re.search(r"book hits with the margin as their deadline \(50 ms\): [A-Z_]+ \d+", out)
    assert re.search(r"20 ms sleeps woke late by p99 [\d.]+ ms", out)


def test_a_missing_store_is_named(tmp_path, capsys):
    from bench.deadline_edge import main

    assert main(["--root", str(tmp_path), "--variant", "dudo-m3-2dice"]) == 2
    assert capsys.readouterr().err.strip() == f"bench.deadline_edge: dudo-m3-2dice is not built under {tmp_path}"
