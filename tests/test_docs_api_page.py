"""The docs site's API page (docs/api.md) renders the OpenAPI document with Swagger UI offline: the site built
by mkdocs (strict), served locally, opened in headless Chromium with every request off the machine refused,
shows every operation of protos/openapi.json."""
import functools
import json
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
BIN = Path(sys.executable).parent


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300, env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(BIN)})
    assert r.returncode == 0, r.stdout + r.stderr
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_the_api_page_shows_every_operation_offline(site):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    document = json.loads((ROOT / "protos" / "openapi.json").read_text())
    want = sorted(document["paths"])
    outside = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()

            def route(r):
                if r.request.url.startswith(site):
                    return r.continue_()
                outside.append(r.request.url)
                return r.abort()

            page.route("**/*", route)
            page.goto(f"{site}/api/", wait_until="load")
            frame = page.frame_locator("iframe").first
            frame.locator(".opblock-summary-path").nth(len(want) - 1).wait_for(timeout=30_000)
            shown = sorted(frame.locator(".opblock-summary-path").all_inner_texts())
        finally:
            browser.close()
    assert [s.replace("\u200b", "") for s in shown] == want
    assert not [u for u in outside if not u.startswith("data:")], outside
