"""The Prometheus rules and the Grafana dashboard of deploy/: promtool (Debian's prometheus package, which
`make test` installs) checks the rules and runs their unit tests; every query of the rules and the dashboard
parses and names only metrics the server exports or series the rules record."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from server import metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
RULES = DEPLOY / "prometheus" / "gamestrategy-rules.yml"
RULES_TEST = DEPLOY / "prometheus" / "gamestrategy-rules-test.yml"
DASHBOARD = DEPLOY / "grafana" / "gamestrategy-dashboard.json"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is missing: `make test` installs Debian's "
                                    "prometheus package (apt-get install prometheus)")


def _promtool(*args, cwd=DEPLOY / "prometheus"):
    r = subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    print(r.stdout, r.stderr)
    return r


@needs_promtool
def test_promtool_checks_the_rules():
    r = _promtool("check", "rules", RULES.name)
    assert r.returncode == 0 and "SUCCESS: 21 rules found" in r.stdout, r.stdout + r.stderr


@needs_promtool
def test_promtool_unit_tests_of_the_rules_pass():
    r = _promtool("test", "rules", RULES_TEST.name)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr


@needs_promtool
@pytest.mark.parametrize("threshold,moved,alert", [
    ("> 0.5\n", "> 0.9\n", "GamestrategySlowSampleMove"),
    ("vector(30 * 86400)", "vector(32 * 86400)", "GamestrategyStoreStale"),
])
def test_the_unit_tests_can_fail(tmp_path, threshold, moved, alert):
    """The same unit tests against rules with an alert's threshold moved fail."""
    assert threshold in RULES.read_text()
    (tmp_path / RULES.name).write_text(RULES.read_text().replace(threshold, moved))
    (tmp_path / RULES_TEST.name).write_text(RULES_TEST.read_text())
    r = _promtool("test", "rules", RULES_TEST.name, cwd=tmp_path)
    assert r.returncode != 0 and alert in r.stdout + r.stderr


def _exported() -> set[str]:
    names = set()
    for m in (metrics.REQUESTS, metrics.ERRORS, metrics.LATENCY, metrics.MOVES, metrics.STREAM_MESSAGES,
              metrics.AUTH_REFUSALS, metrics.STORE_VERSION, metrics.STORE_BUILD_TIME, metrics.STORE_LOADS, metrics.CONNECTIONS_CLOSED):
        for family in m.describe():
            names.add(family.name)
            names.update(s.name for s in family.samples)
        kind = m._type  # noqa: SLF001 - the metric's Prometheus type
        if kind == "counter":
            names.add(m._name + "_total")  # noqa: SLF001
        elif kind == "histogram":
            names.update(m._name + s for s in ("_bucket", "_sum", "_count"))  # noqa: SLF001
        else:
            names.add(m._name)  # noqa: SLF001
    return names


def _rules():
    return [r for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]]


def _dashboard_exprs() -> list[str]:
    return [t["expr"] for p in json.loads(DASHBOARD.read_text())["panels"] for t in p["targets"]]


def test_queries_name_only_exported_metrics_and_recorded_series():
    known = _exported() | {r["record"] for r in _rules() if "record" in r} | {"up"}
    outside = {"kube_job_status_failed"}  # kube-state-metrics: the build Job's failed pods
    exprs = [r["expr"] for r in _rules()] + _dashboard_exprs()
    for expr in exprs:
        for name in re.findall(r"\b((?:gamestrategy[:_]|up\b|kube_)[a-z0-9_:]*)", expr):
            assert name in known | outside, f"{name!r} in {expr!r} is neither exported by server/metrics.py nor recorded"
    # every alert of the issue: error ratio, p99, DEGRADED share, store refused or stale, evictions
    alerts = {r["alert"] for r in _rules() if "alert" in r}
    assert {"GamestrategyServerErrors", "GamestrategySlowSampleMove", "GamestrategyDegradedShare",
            "GamestrategyStoreRefused", "GamestrategyStoreStale", "GamestrategyStoreVersionsDiverge", "GamestrategyConnectionsShed",
            "GamestrategyStoreBuildFailed"} <= alerts


@needs_promtool
def test_the_dashboards_queries_parse(tmp_path):
    """promtool parses each dashboard query as the expression of a recording rule."""
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query_{i}", "expr": e.replace("$job", "gamestrategy")}
        for i, e in enumerate(_dashboard_exprs())]}]}
    (tmp_path / "dashboard.yml").write_text(yaml.safe_dump(rules))
    r = _promtool("check", "rules", "dashboard.yml", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
