"""The example TypeScript client (clients/examples/typescript): its types generated from the OpenAPI
document by the pinned openapi-typescript, compiled by the pinned tsc (a body the document does not allow
fails to compile), run on Node's fetch against a live server on the test store."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from server.http_api import HttpApi
from server.listener import HttpServer
from tests.conftest import SMALL_VARIANT

EXAMPLE = Path(__file__).resolve().parents[2] / "clients" / "examples" / "typescript"
pytestmark = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="Node.js (node and npm) is not installed: apt-get install nodejs npm")


def _run(*cmd, timeout=180):
    r = subprocess.run(cmd, cwd=EXAMPLE, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


@pytest.fixture(scope="module")
def built():
    _run("npm", "ci", "--no-audit", "--no-fund")
    _run("npm", "run", "build")
    return EXAMPLE / "build" / "client.js"


@pytest.fixture(scope="module")
def base_url(registry):
    from server.app import build_server
    from server.settings import ServerSettings

    grpc_server, _ = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=2))
    api = HttpApi(grpc_server.servicer, threads=2)
    http = HttpServer(api.app, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{http.port}"
    http.stop(0)
    api.close()
    grpc_server.stop(0).wait()


def test_the_client_calls_the_api(built, base_url):
    out = json.loads(_run("node", str(built), base_url, SMALL_VARIANT, timeout=60))
    assert out["variants"] == [SMALL_VARIANT]
    move = out["move"]
    assert move["variant"] == SMALL_VARIANT and len(move["move"]) == 2 and 0 < move["probability"] <= 1
    assert move["source"] in ("BOOK", "LIVE") and move["storeVersion"] and move["alternatives"] >= 1
    assert out["refused"]["httpStatus"] == 404 and out["refused"]["status"] == "NOT_FOUND"
    assert "no-such-variant" in out["refused"]["message"]


def test_a_body_the_document_does_not_allow_does_not_compile(built, tmp_path):
    bad = (EXAMPLE / "client.ts").read_text().replace('{ variant: "no-such-variant" }', '{ variantName: "x" }')
    assert "variantName" in bad
    (EXAMPLE / "generated" / "bad.ts").write_text(bad.replace('"./generated/api.js"', '"./api.js"'))
    try:
        r = subprocess.run(["npx", "tsc", "--noEmit", "-p", "."], cwd=EXAMPLE, capture_output=True, text=True,
                           timeout=120)
        r2 = subprocess.run(["npx", "tsc", "--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext",
                             "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", "--types", "node",
                             "generated/bad.ts"], cwd=EXAMPLE, capture_output=True, text=True, timeout=120)
    finally:
        (EXAMPLE / "generated" / "bad.ts").unlink()
    assert r.returncode == 0, r.stdout
    assert r2.returncode != 0 and "variantName" in r2.stdout, r2.stdout
