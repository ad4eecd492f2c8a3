"""The Dudo store's stored first replies in its build progress (``builder.dudo_estimate.FIRST_REPLY_CPU``): checked
on the log of a fresh make serve that stored them (584aea9, tests/builder/data/serve_build_2347.log) against the
one before them (ceae6f5, tests/builder/data/serve_build_2305.log, the 23:05 trace's build)."""
import datetime
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

import builder.dudo_estimate as dudo_estimate
from bench.build_progress import _stamp, store_walls
from builder.dudo_progress import DudoWork, tables_marker
from builder.profiles import DUDO_DEFAULT

DATA = Path(__file__).parent / "data"
LOG = (DATA / "serve_build_2347.log").read_text()
LOG_BEFORE = (DATA / "serve_build_2305.log").read_text()
VARIANT = DUDO_DEFAULT.variant
# the 584aea9 build's parameters: no exact round's search tables (1v2)
RECORDED_PARAMS = replace(DUDO_DEFAULT, large_search=DUDO_DEFAULT.large_search[:6])
NEAR = datetime.datetime(2026, 11, 29, 23, 50).timestamp()
_TABLES = re.compile(r"^search tables of (\d)v(\d): leaves \d+ MB in ([0-9.]+) CPU s, (?:stored|root) re-solves "
                     r"([0-9.]+) CPU s$", re.M)
_TABLES_STEP = re.compile(rf"^(\d\d):(\d\d):(\d\d) {VARIANT}: search tables \((\d)/\d groups\); the store about "
                          r"(\d+)% built$", re.M)


def _resolves(log: str) -> dict:
    return {(int(a), int(b)): float(r) for a, b, _, r in _TABLES.findall(log)}


def test_the_first_replies_cpu_is_the_logs_stored_resolves_less_the_root_resolves_before_them():
    now, before = _resolves(LOG), _resolves(LOG_BEFORE)
    assert set(now) == set(before) and set(dudo_estimate.FIRST_REPLY_CPU) <= set(now)
    for ab, cpu in dudo_estimate.FIRST_REPLY_CPU.items():
        assert cpu == pytest.approx(now[ab] - before[ab])


def _wall():
    (wall,) = store_walls(LOG, NEAR)[VARIANT]
    return wall


def _said_at_the_tables(work: Path) -> list[tuple[float, float, int]]:
    """[(the fraction DudoWork says, the share of the 584aea9 build's wall passed, the log's stated per cent)] at each
    of its log's search-tables lines: every group done, the first k searched groups' tables (in their order) done."""
    wall = _wall()
    progress = DudoWork(RECORDED_PARAMS, work, default=True, beside_lanes=True)
    for a, b in progress.walls:
        (work / f"dudo_{a}v{b}_m2.json").write_text("{}")
    out = []
    for m in _TABLES_STEP.finditer(LOG):
        for marker in work.glob("search_*"):
            marker.unlink()
        for ab in sorted(progress.tables)[:int(m[4])]:
            (work / tables_marker(*ab)).write_text("{}")
        t = _stamp((int(m[1]), int(m[2]), int(m[3])), wall.start)
        out.append((progress.fraction(), (t - wall.start) / wall.seconds, int(m[5])))
    return out


def test_the_first_replies_keep_dudos_fraction_on_its_wall_through_the_search_tables(tmp_path, request):
    """Read back at the 584aea9 make serve's six search-tables lines (110 s of its 515.7 s; 80 s of 505.1 s in the
    build before), the fraction said there was the log's 84-97 % where 0.79-0.99 of the wall had passed (+0.05 at the
    first four); with the first replies' wall (``first_reply_serve_seconds``) its mean gap is under half that."""
    now = _said_at_the_tables(tmp_path)
    request.getfixturevalue("built_before_first_replies")
    before = _said_at_the_tables(tmp_path)
    assert [round(100 * f) for f, _, _ in before] == [pct for _, _, pct in before]    # the reading is the build's
    gap_before = sum(abs(f - true) for f, true, _ in before) / len(before)
    gap_now = sum(abs(f - true) for f, true, _ in now) / len(now)
    assert gap_before > 0.04 and gap_now < 0.025
    assert all(abs(f - true) <= 0.07 for f, true, _ in now)


def test_a_make_serve_of_the_store_with_first_replies_expects_its_wall(request):
    """Dudo's time left in make serve starts from the wall expected: the mean of the builds before the first replies
    (``SERVE_WALLS``) plus their wall, within 0.05 of the 584aea9 build's 515.7 s (0.098 short without them)."""
    wall = _wall()
    assert abs(dudo_estimate.serve_seconds() - wall.seconds) / wall.seconds < 0.05
    request.getfixturevalue("built_before_first_replies")
    assert abs(dudo_estimate.serve_seconds() - wall.seconds) / wall.seconds > 0.09
