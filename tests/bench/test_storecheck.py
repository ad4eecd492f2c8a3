"""bench.storecheck: the content check's cost, on published stores and on a synthetic one."""
import subprocess
import sys
from pathlib import Path

from bench.storecheck import main

REPO = Path(__file__).resolve().parents[2]


def test_it_measures_every_published_store_and_a_synthetic_one(small_store, capsys):
    root, path = small_store
    assert main(["--root", str(root)]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if not r.startswith("#")]
    assert rows[1].split()[0] == "jotto-en_US80-2-ganzfried" and float(rows[1].split()[1]) > 0
    assert main(["--synthetic-mb", "2", "--synthetic-arrays-mb", "1"]) == 0
    row = [r for r in capsys.readouterr().out.splitlines() if not r.startswith("#")][1].split()
    assert row[0] == "dudo-synthetic" and float(row[1]) >= 3 * 1.048
    assert len(row) == 7 and float(row[5]) > 0  # the file's bytes hashed: the baseline


def test_bad_arguments_exit_2_with_a_line_naming_the_fault(tmp_path):
    for args, fault in ((["--synthetic-mb", "-1"], "--synthetic-mb and --synthetic-arrays-mb must be >= 0"),
                        (["--root", str(tmp_path)], "no published store under")):
        r = subprocess.run([sys.executable, "-m", "bench.storecheck", *args], cwd=REPO, capture_output=True, text=True)
        assert r.returncode == 2 and fault in r.stderr.strip().splitlines()[-1] and "Traceback" not in r.stderr
