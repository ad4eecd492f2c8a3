"""The Grafana dashboard's queries against a real Prometheus (Debian's, which `make test` installs with promtool):
bench.dashboard_queries on a tiny searched Dudo store; every panel's expression returns data, a panel over a series
nothing exports is named as empty (exit 1), and Chromium's picture of Prometheus's graph page is taken."""
import json
import re
from pathlib import Path

import pytest

from bench import dashboard_queries
from builder.dudo import build_dudo_store
from games.dudo.build.params import DudoParams

PARAMS = DudoParams(max_dice=2, iterations=20, memory=1, perfect_recall_total=0, exact_br_total=0,
                    large_search=(3, 2, 10, 4), label="tiny")
needs_tools = pytest.mark.skipif(not (Path(dashboard_queries.PROMETHEUS).exists()
                                      and Path(dashboard_queries.CHROMIUM).exists()),
                                 reason="`make test` installs Debian's prometheus and chromium")


def test_every_target_of_the_dashboard_is_asked():
    d = json.loads(dashboard_queries.DASHBOARD.read_text())
    targets = [t for p in d["panels"] for t in p["targets"]]
    queries = dashboard_queries.panel_queries()
    assert len(queries) == len(targets) >= 15
    assert all("$job" not in expr and expr for _, expr in queries)


@pytest.mark.slow
@needs_tools
def test_every_panel_returns_data_and_an_empty_one_is_named(tmp_path, capsys):
    build_dudo_store(PARAMS, tmp_path / "stores")
    d = json.loads(dashboard_queries.DASHBOARD.read_text())
    real = len([t for p in d["panels"] for t in p["targets"]])
    d["panels"].append({"title": "Nothing exports this", "targets": [{"expr": "gamestrategy_no_such_series"}]})
    (tmp_path / "dashboard.json").write_text(json.dumps(d))
    shot = tmp_path / "graph.png"
    code = dashboard_queries.main(["--root", str(tmp_path / "stores"), "--variant", PARAMS.variant, "--seconds", "8",
                                   "--wait-seconds", "10", "--dashboard", str(tmp_path / "dashboard.json"),
                                   "--screenshot", str(shot)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"{real} of {real + 1} panel expressions returned data; none from: Nothing exports this" in out
    rows = [line for line in out.splitlines() if line.count(" | ") == 3 and not line.startswith("panel")]
    assert len(rows) == real + 1
    for row in rows[:-1]:
        assert int(row.split(" | ")[2]) >= 1, row
    sent = json.loads(re.search(r"^load for 8 s: (\{.*\})$", out, re.M).group(1))
    for what in ("grpc book hit", "http book hit", "bad request", "call without the token", "stream message"):
        assert sent.get(what, 0) > 0, what
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
