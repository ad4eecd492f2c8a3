"""The Kubernetes manifests and the Containerfile of deploy/ (docs/deploying.md): every manifest passes
kubernetes-validate (strict: no field the API does not have); the server's options in the Deployment are
options the server takes; probes, grace and the build Job match the server and the Makefile; the
Containerfile installs with the README's step. No container engine runs here: the image is not built."""
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from server.__main__ import parse_args

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(K8S.glob("*.yaml"))
BIN = Path(sys.executable).parent


def _docs(name):
    return [d for d in yaml.safe_load_all((K8S / name).read_text()) if d]


def _server_container():
    (deployment,) = _docs("deployment.yaml")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return deployment, container


@pytest.mark.parametrize("version", ["1.30.0", "1.37.0"])
def test_kubernetes_validate_passes_every_manifest(version):
    r = subprocess.run([str(BIN / "kubernetes-validate"), "--strict", "-k", version, *map(str, MANIFESTS)],
                       capture_output=True, text=True, timeout=120)
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.stdout + r.stderr
    kinds = re.findall(r"passed for resource (\w+)/", r.stdout + r.stderr)
    assert sorted(kinds) == ["deployment", "job", "persistentvolumeclaim", "service", "service"], r.stdout + r.stderr


def test_the_deployment_runs_the_server_with_options_it_takes():
    deployment, c = _server_container()
    assert c["command"][-2:] == ["-m", "server"]
    args = parse_args(c["args"])
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"grpc": args.port, "http": args.http_port, "metrics": args.metrics_port}
    assert args.host == "0.0.0.0" and args.metrics_host == "0.0.0.0" and str(args.root) == "/stores"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz" and c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    # SIGKILL comes after the preStop pause, the server's drain and its --grace for in-flight calls
    pre_stop = c["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert args.drain_seconds > 0
    stop_seconds = pre_stop + args.drain_seconds + args.grace
    assert deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= stop_seconds + 1
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    assert mounts["stores"]["mountPath"] == "/stores" and mounts["stores"]["readOnly"]


def test_the_build_job_runs_make_build_stores_into_the_same_volume():
    (job,) = _docs("build-stores-job.yaml")
    (c,) = job["spec"]["template"]["spec"]["containers"]
    assert c["command"] == ["make", "build-stores"]
    assert re.search(r"^build-stores:", (ROOT / "Makefile").read_text(), re.M)
    env = {e["name"]: e["value"] for e in c["env"]}
    (mount,) = [m for m in c["volumeMounts"] if m["name"] == "stores"]
    assert env["GAMESTRATEGY_STORES"] == mount["mountPath"] == "/stores"
    (pvc,) = _docs("stores-volume.yaml")
    claims = {v["persistentVolumeClaim"]["claimName"] for v in job["spec"]["template"]["spec"]["volumes"]
              if "persistentVolumeClaim" in v}
    assert claims == {pvc["metadata"]["name"]}


def test_the_containerfile_installs_as_the_readme_does():
    """`make serve` (the README's start) installs through `make venv`'s recipe; the image runs the same target."""
    text = (ROOT / "Containerfile").read_text()
    assert re.search(r"^RUN make venv$", text, re.M)
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^venv: \$\(STAMP\)$", makefile, re.M) and re.search(r"^serve: \$\(STAMP\)$", makefile, re.M)
    assert "make serve" in (ROOT / "README.md").read_text()
    cmd = re.search(r"^CMD (\[.*\])$", text, re.M).group(1)
    args = yaml.safe_load(cmd)
    assert args[1:3] == ["-m", "server"] and parse_args(args[3:]).root == Path("/stores")


def _mebibytes(quantity: str) -> int:
    m = re.fullmatch(r"(\d+)(Mi|Gi)", quantity)
    assert m, f"memory {quantity!r} is not in Mi or Gi"
    return int(m.group(1)) * (1024 if m.group(2) == "Gi" else 1)


def test_the_deployments_memory_is_the_measured_tree_with_the_stated_headroom():
    """docs/deploying.md's serving memory table (bench.serving_memory): requests = the whole tree's steady PSS x 1.25,
    limits = its peak PSS x 1.5, each rounded up to 256 MiB; the Deployment and the doc's text state those figures."""
    doc = (ROOT / "docs" / "deploying.md").read_text()
    table = doc.split("<!-- serving memory table")[1].split("<!-- end of the serving memory table")[0]
    (tree,) = [line for line in table.splitlines() if line.startswith("| whole tree")]
    cells = [c.strip() for c in tree.strip("|").split("|")]
    header = [c.strip() for c in table.splitlines()[1].strip("|").split("|")]
    peak, steady = int(cells[header.index("peak PSS")]), int(cells[header.index("steady PSS")])
    request = math.ceil(steady * 1.25 / 256) * 256
    limit = math.ceil(peak * 1.5 / 256) * 256
    _, c = _server_container()
    assert _mebibytes(c["resources"]["requests"]["memory"]) == request
    assert _mebibytes(c["resources"]["limits"]["memory"]) == limit
    assert f"requests **{request}Mi**" in doc and f"limits **{limit}Mi**" in doc
