"""deploy/haproxy/gamestrategy.cfg is the configuration the multi-host drill runs (bench.multihost), for three
hosts at example addresses, and HAProxy accepts it."""
import shutil
import subprocess

import pytest

from bench.multihost import EXAMPLE_CONFIG, example_config


def test_the_committed_config_is_the_drills():
    assert EXAMPLE_CONFIG.read_text() == example_config(), "run python -m bench.multihost --example-config"


@pytest.mark.skipif(shutil.which("haproxy") is None,
                    reason="haproxy is missing: `make test` installs Debian's haproxy (apt-get install haproxy)")
def test_haproxy_accepts_it():
    r = subprocess.run(["haproxy", "-c", "-f", str(EXAMPLE_CONFIG)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Configuration file is valid" in r.stdout + r.stderr, r.stdout + r.stderr
