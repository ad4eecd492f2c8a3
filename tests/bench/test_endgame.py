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
