"""bench.liveload reads which live workers the server killed from the server's own JSON log lines."""
import calendar
import logging

from bench.liveload import _killed_workers
from server.__main__ import JSONFormatter


def _line(msg: str, created: float, **fields) -> str:
    rec = logging.LogRecord("gamestrategy.live", logging.WARNING, __file__, 1, msg, None, None)
    rec.created, rec.msecs = created, (created - int(created)) * 1000
    if fields:
        rec.fields = fields
    return JSONFormatter().format(rec)


def test_the_kills_are_read_from_the_servers_log_in_time_order(tmp_path):
    t0 = calendar.timegm((2026, 11, 26, 9, 15, 35, 0, 0, 0)) + 0.25
    log = tmp_path / "server.log"
    log.write_text("\n".join([
        "not json: a traceback line",
        _line("live worker killed", t0 + 2.5, worker_pid=202, reason="deadline", work="3v3"),
        _line("live worker started", t0 + 1.0, worker_pid=303),
        _line("live worker killed", t0, worker_pid=101, reason="cancelled", work="3v3"),
        "[1, 2]",
    ]) + "\n")
    kills = _killed_workers(log)
    assert [pid for _, pid in kills] == [101, 202]
    assert abs(kills[0][0] - t0) < 1e-6 and abs(kills[1][0] - (t0 + 2.5)) < 1e-6
