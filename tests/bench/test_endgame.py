"""The endgame re-solving benchmark (bench/endgame.py), on a tiny blueprint."""
import re

import pytest


def test_endgame_bench_prints_the_exact_exploitability_table(tmp_path, capsys):
    """Its blueprint column is the solver's own exact best-response figure (an independent code
    path: exploit.py), and re-solving never makes the round more exploitable."""
    from bench.endgame import main

    main(["--memory", "1", "--max-total", "2", "--blueprint-iterations", "50", "--iterations", "40",
          "--work", str(tmp_path)])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| 1v1 | 1 |"))
    assert "stored" not in row                       # blueprint column == solve's exploitability
    bp, rs = (float(x) for x in re.findall(r"\| (\d\.\d+) ", row)[:2])
    assert rs <= bp + 1e-4


@pytest.fixture(scope="module")
def endgame_root(tmp_path_factory):
    """A store root whose rounds of 3 and 4 dice have no exact figure: their endgames are re-solved
    (games.dudo.policy.served)."""
    from builder.dudo import build_dudo_store
    from games.dudo.store import DudoParams

    params = DudoParams(max_dice=2, iterations=30, exact_br_total=2)
    root = tmp_path_factory.mktemp("endgame-root")
    build_dudo_store(params, root)
    return root, params.variant


def test_endgame_bench_serve_plays_rounds_against_a_server(endgame_root, capsys):
    """The served-latency section: a server process on a store root, self-play rounds, every move counted
    once by what answered it, re-solved moves among them."""
    from bench.endgame import main

    root, variant = endgame_root
    main(["serve", "--root", str(root), "--variant", variant, "--serve-rounds", "3", "--deadline", "60"])
    out = capsys.readouterr().out
    table, by_dice = out.split("\n\n")[:2]
    rows = {line.split(" | ")[0].strip("| "): int(line.split(" | ")[1]) for line in table.splitlines()
            if line.startswith("| ") and "moves" not in line and not line.startswith("|---")}
    assert rows["endgame re-solved (LIVE)"] >= 1
    assert sum(rows.values()) >= 3 * 2          # each round has an opening claim and a challenge at least
    split = [line.split(" | ") for line in by_dice.splitlines() if line[:3].strip("| ").isdigit()]
    assert sum(int(r[2]) for r in split) == sum(rows.values())     # every move counted once, by dice in play
    assert {r[1] for r in split if r[0].strip("| ") in ("3", "4")} >= {"live"}   # re-solved where the figure is a bound
    assert all(r[1] != "live" for r in split if r[0].strip("| ") == "2")  # 1v1 (exact): served from the store


def test_endgame_bench_timing_prints_seconds_against_claims_left(capsys):
    from bench.endgame import timing
    from games.dudo.search.endgame import EndgamePolicy

    timing(EndgamePolicy(iterations=5), pairs=((1, 1),), claims=(4, 6), repeats=1)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 1v1 |")]
    assert [r.split(" | ")[1] for r in rows] == ["4", "6"]
    assert all(r.rstrip(" |").endswith("yes") for r in rows)     # within the 1 s budget of the policy


def test_fast_evaluation_matches_the_direct_one_and_resumes(tmp_path):
    """The chunked, threaded evaluation (one round context shared by all roots) gives the same values as
    re-solving every root on its own through the served calls, on 1v1 (both seats) and 1v2, and a rerun
    over the saved chunks gives them again without re-solving."""
    import numpy as np

    from bench.endgame import payoff_tables, seat_values, seat_values_direct
    from games.dudo.search import endgame as eg
    from games.dudo.build.solve_game import solve_game

    sol = solve_game(max_dice=2, m=1, iterations=30, perfect_recall_total=0, exact_br_total=3, progress=False,
                     log=None, max_total=3, checkpoint_dir=str(tmp_path / "bp"))
    bp = eg.SolutionBlueprint(sol)
    policy = eg.EndgamePolicy(threshold=8, iterations=10, min_reach=1e-3)
    br = ({r: st["br_opener"] for r, st in sol.stats.items()}, {r: st["br_other"] for r, st in sol.stats.items()})
    for own, opp, opened in ((1, 1, True), (1, 1, False), (1, 2, True)):
        V = payoff_tables(own, opp, sol.W, *br)
        V2 = V + 0.01 * np.random.default_rng(own + 2 * opp).random(V.shape)   # other continuation values
        want = seat_values_direct(bp, own, opp, opened, sol.W, V, V2, policy)
        got = seat_values(bp, own, opp, opened, sol.W, V, V2, policy, progress=False, work=str(tmp_path),
                          threads=2, chunk=50)
        assert got[:2] == want[:2]
        assert 0 < got[2]["resolved"] < got[2]["endgames"] == want[2]["endgames"]
        assert got[2]["resolved"] == want[2]["resolved"]
        assert got[2]["kept_mass"] == pytest.approx(want[2]["kept_mass"], abs=1e-12)
        again = seat_values(bp, own, opp, opened, sol.W, V, V2, policy, progress=False, work=str(tmp_path),
                            threads=1, chunk=50)
        assert again[:2] == want[:2]
        assert [s for _, s in again[2]["times"]] == [s for _, s in got[2]["times"]]   # loaded, not re-timed


def test_served_load_counts_every_answer_by_its_source(endgame_root, capsys):
    """bench.dudo_served: under load each reply is counted once by how the server says it made it; the re-solved rounds give
    LIVE (or DEGRADED) answers, the exact 1v1 round BOOK ones, and the degraded share is the counts' own."""
    from bench.dudo_served import main

    root, variant = endgame_root
    main(["--root", str(root), "--variant", variant, "--games", "4", "--concurrency", "3",
          "--seconds", "2", "--deadline", "30"])
    out = capsys.readouterr().out
    n_dec = int(re.match(r"(\d+) decisions", out).group(1))
    idle = next(line for line in out.splitlines() if line.startswith("idle"))
    load = next(line for line in out.splitlines() if line.startswith("load"))
    for line, total in ((idle, n_dec), (load, None)):
        n = int(re.search(r": (\d+) answers", line).group(1))
        counts = {k: int(v) for k, v in re.findall(r"(BOOK|LIVE|DEGRADED) (\d+)", line)}
        assert sum(counts.values()) == n and (total is None or n == total)
        deg = float(re.search(r"degraded ([\d.]+) %", line).group(1))
        assert abs(deg - 100.0 * counts.get("DEGRADED", 0) / n) < 0.01
    assert "BOOK" in idle and re.search(r"(LIVE|DEGRADED) \d+", idle)


def test_served_load_names_a_missing_store(tmp_path, capsys):
    """bench.dudo_served on a root without the store: exit code 2 and one line naming the variant and root."""
    from bench.dudo_served import main

    assert main(["--root", str(tmp_path), "--variant", "dudo-5dice-default"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bench.dudo_served: dudo-5dice-default is not built under {tmp_path}"
