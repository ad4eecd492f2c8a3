"""The endgame re-solving benchmark (bench/endgame.py), on a tiny blueprint."""
import re


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


def test_endgame_bench_serve_plays_rounds_against_a_server(tmp_path, capsys):
    """The served-latency section: a server process on a store root, self-play rounds, every move counted
    once by what answered it, re-solved moves among them."""
    from bench.endgame import main
    from builder.dudo import build_dudo_store
    from games.dudo.store import DudoParams

    params = DudoParams(max_dice=1, iterations=30)
    build_dudo_store(params, tmp_path)
    main(["serve", "--root", str(tmp_path), "--variant", params.variant, "--serve-rounds", "3", "--deadline", "60"])
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].strip("| "): int(line.split(" | ")[1]) for line in out.splitlines()
            if line.startswith("| ") and "moves" not in line and not line.startswith("|---")}
    assert rows["endgame re-solved (LIVE)"] >= 1
    assert sum(rows.values()) >= 3 * 2          # each round has an opening claim and a challenge at least


def test_endgame_bench_timing_prints_seconds_against_claims_left(capsys):
    from bench.endgame import timing
    from games.dudo.endgame import EndgamePolicy

    timing(EndgamePolicy(iterations=5), pairs=((1, 1),), claims=(4, 6), repeats=1)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 1v1 |")]
    assert [r.split(" | ")[1] for r in rows] == ["4", "6"]
    assert all(r.rstrip(" |").endswith("yes") for r in rows)     # within the 1 s budget of the policy
