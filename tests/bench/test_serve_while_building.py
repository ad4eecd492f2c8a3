"""bench.serve_while_building p99, run small: its table (idle, during a build cut short, idle again)."""
from bench import serve_while_building as swb
from tests.conftest import SMALL_VARIANT


def test_p99_table_runs_small(small_store, tmp_path, capsys):
    root = tmp_path / "stores"
    (root / "jotto").mkdir(parents=True)
    (root / "jotto" / SMALL_VARIANT).symlink_to(small_store[0] / "jotto" / SMALL_VARIANT)
    assert swb.SMALLEST == SMALL_VARIANT
    assert swb.main(["p99", "--root", str(root), "--seconds", "0.5", "--build-seconds", "3", "--concurrency", "2"]) == 0
    out = capsys.readouterr().out
    rows = {line[:14].strip(): line[14:].split() for line in out.splitlines() if line.startswith(("idle", "during"))}
    assert list(rows) == ["idle", "during build", "idle again"], out
    for name, fields in rows.items():
        calls, errors = int(fields[0]), int(fields[6])
        assert calls > 0 and errors == 0, (name, fields)
    note = " ".join(rows["during build"][7:])
    assert (note.startswith("first ") and note.endswith("s of building jotto-en_US80-3-ganzfried (nice 19)")) or \
        note.startswith("jotto-en_US80-3-ganzfried built in"), note
    assert "p99 during the build / the larger idle p99:" in out


def test_beside_table_runs_small(small_store, tmp_path, capsys):
    root = tmp_path / "stores"
    (root / "jotto").mkdir(parents=True)
    (root / "jotto" / SMALL_VARIANT).symlink_to(small_store[0] / "jotto" / SMALL_VARIANT)
    assert swb.main(["beside", "--root", str(root), "--seconds", "0.5", "--rounds", "1", "--churn-mb", "16"]) == 0
    out = capsys.readouterr().out
    rows = {line[:14].strip(): line[14:].split() for line in out.splitlines()
            if line.startswith(("idle", "compute", "memory churn"))}
    assert list(rows) == ["idle", "compute", "memory churn"], out
    for name, fields in rows.items():
        calls, errors = int(fields[0]), int(fields[6])
        assert calls > 0 and errors == 0, (name, fields)
    assert "median p99 beside compute / median idle p99:" in out
    assert "median p99 beside memory churn / median idle p99:" in out


def test_beside_refuses_bad_values(capsys):
    import pytest

    with pytest.raises(SystemExit) as e:
        swb.main(["beside", "--rounds", "0"])
    assert e.value.code == 2 and "--rounds and --churn-mb >= 1" in capsys.readouterr().err
