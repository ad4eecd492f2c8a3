"""bench.multihost: three hosts in network namespaces behind HAProxy, under steady gRPC and HTTP SampleMove
load, lose one host to SIGKILL, one to a cut link, take a new store version one host at a time and drain one
with SIGTERM (taken out by its /readyz 503 while it still answers), with no failed call (after retries) in
any phase. Needs root and Debian's haproxy (`make test` installs it); about 45 s."""
import os
import shutil
import subprocess

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root"),
    pytest.mark.skipif(shutil.which("haproxy") is None,
                       reason="haproxy is missing: `make test` installs Debian's haproxy (apt-get install haproxy)"),
]


def _netns_possible() -> bool:
    r = subprocess.run(["ip", "netns", "add", f"gsprobe{os.getpid()}"], capture_output=True)
    subprocess.run(["ip", "netns", "del", f"gsprobe{os.getpid()}"], capture_output=True)
    return r.returncode == 0


def test_three_hosts_lose_none_of_the_calls(tmp_path):
    from bench.multihost import Drill

    if not _netns_possible():
        pytest.skip("this machine refuses `ip netns add` (no CAP_SYS_ADMIN in its container)")
    drill = Drill(tmp_path, rate=20, seconds=3)
    reports = {r.phase: r for r in drill.run()}
    print(drill.drain, drill.down_events)
    for r in reports.values():
        print(r.row())
        for e in r.errors:
            print(f"failed in {r.phase}: {e}")
    assert list(reports) == ["steady", "kill", "cut", "roll", "drain"]
    for r in reports.values():
        assert r.calls >= 50 and r.failed == 0, (r.phase, r.errors[:5])  # 120 or more at the nominal rate
    v1 = set(reports["steady"].versions)
    assert len(v1) == 1 and set(reports["kill"].versions) == v1
    v2 = set(reports["drain"].versions)
    assert len(v2) == 1 and v2 != v1
    assert set(reports["roll"].versions) == v1 | v2  # both answered while the new version rolled across
    # the killed host was refused, the cut one timed out, the drained one said 503 while it still answered
    def went_out(host, why):
        return any(e.startswith(f"http_hosts/{host} is DOWN") and why in e for e in drill.down_events)

    assert went_out("h1", "Connection refused") and went_out("h2", "timeout"), drill.down_events
    assert went_out("h3", "code: 503"), drill.down_events
    assert drill.drain["readyz_503_s"] is not None and drill.drain["readyz_503_s"] < drill.drain["exit_s"]
