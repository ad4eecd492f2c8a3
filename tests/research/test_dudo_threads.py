"""The thread benchmark (``python -m research.dudo threads``) times a group on 1 and 2 threads and checks the bits."""


def test_threads_table(capsys):
    from research.dudo import threads

    threads(groups=((1, 2, "2"), (2, 2, "2-6-1")), iters=1)
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.split()[:1] in (["1v2"], ["2v2"])]
    assert len(rows) == 2
    for r in rows:
        assert r[-1] == "True" and float(r[2]) > 0 and float(r[3]) > 0
