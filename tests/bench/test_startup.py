"""bench.startup: a server's start-up timeline on a store root, as a client sees it."""
import subprocess
import sys
from pathlib import Path

from bench.startup import main

REPO = Path(__file__).resolve().parents[2]


def test_it_times_the_ports_the_health_answers_and_each_variants_first_answer(small_store, capsys):
    root, path = small_store
    variant = path.parent.name
    assert main(["--root", str(root), "--seconds", "120"]) == 0
    events = [line.split(" s  ", 1)[1] for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    assert "gRPC port accepts" in events and "HTTP port accepts" in events and "/healthz 200" in events
    assert events[-1] in (f"SampleMove {variant}: OK", "/readyz 200 variants=1")
    assert f"SampleMove {variant}: OK" in events and "/readyz 200 variants=1" in events
    assert not any(e.startswith("the server exited") for e in events)


def test_bad_arguments_exit_2_with_a_line_naming_the_fault(tmp_path):
    for args, fault in ((["--root", str(tmp_path), "--workers", "0"], "--workers must be >= 1"),
                        (["--root", str(tmp_path)], "no published store under")):
        r = subprocess.run([sys.executable, "-m", "bench.startup", *args], cwd=REPO, capture_output=True, text=True)
        assert r.returncode == 2 and fault in r.stderr.strip().splitlines()[-1] and "Traceback" not in r.stderr
