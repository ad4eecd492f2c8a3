"""The endgame re-solving benchmark (research/dudo_endgame.py), on a tiny blueprint."""
import re

import pytest


def test_endgame_bench_prints_the_exact_exploitability_table(tmp_path, capsys):
    """Its blueprint column is the solver's own exact best-response figure (an independent code
    path: exploit.py), and re-solving never makes the round more exploitable."""
    from research.dudo_endgame import main

    main(["--memory", "1", "--max-total", "2", "--blueprint-iterations", "50", "--iterations", "40",
          "--work", str(tmp_path)])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| 1v1 | 1 |"))
    assert "stored" not in row                       # blueprint column == solve's exploitability
    bp, rs = (float(x) for x in re.findall(r"\| (\d\.\d+) ", row)[:2])
    assert rs <= bp + 1e-4


def test_endgame_bench_serve_plays_rounds_against_a_server(endgame_root, capsys):
    """The served-latency section: a server process on a store root, self-play rounds, every move counted
    once by what answered it, re-solved moves among them."""
    from research.dudo_endgame import main

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
    from research.dudo_endgame import timing
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

    from games.dudo.measure.exploit import payoff_tables
    from research.dudo_endgame import seat_values, seat_values_direct
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
