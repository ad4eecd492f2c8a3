"""The load generator of `make bench` (bench/load.py)."""
from tests.conftest import SMALL_VARIANT


def test_loadbench_drives_streams_and_unary_calls(serve):
    """The load generator of `make bench` (bench/load.py) against a real server, briefly."""
    from bench.load import _one

    target = f"127.0.0.1:{serve()}"
    for kind, conc in (("stream", 1), ("stream", 8), ("book", 4), ("batch", 2)):
        r = _one({"target": target, "kind": kind, "variant": SMALL_VARIANT}, conc, 0.3, 4)
        assert r["lat"] and not r["errors"], (kind, conc, r["errors"])
