"""The served Dudo under load (bench/dudo_served.py), on a tiny store whose larger rounds are re-solved."""
import re


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
