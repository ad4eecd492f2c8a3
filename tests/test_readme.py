"""Every command shown in the shell blocks of the README and of docs/*.md runs against the default stores'
variants.

The stores are built once per session with the default profile's variant names and small budgets (the
commands check that things work, not the figures). A command a test cannot run here is listed in
NOT_RUN with the reason, so a new README command must be either run or explained.
"""
from __future__ import annotations

from dataclasses import replace

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PORT = "127.0.0.1:50051"
HTTP_PORT = "127.0.0.1:8080"

NOT_RUN = {
    "make serve": "serves at once and builds the full default stores beside it (minutes) until stopped; its launcher "
                  "(python -m launcher) is run by tests/launcher with a fake server and build, its server on an "
                  "empty root by tests/server/test_serve_while_building.py, its build (python -m builder "
                  "--missing-only) by tests/builder",
    "make test": "this very test run",
    "python -m research.dudo_exact_searched": "exact walks of minutes (docs/dudo-search-serving.md, section 8); "
                                              "tests/research/test_dudo_exact_searched.py runs it on a small store",
    "python -m research.dudo_search_groups": "a copy of the 1.4 GB default Dudo store; "
                                               "tests/research/test_dudo_search_groups.py runs it on a small store",
    "python -m builder.measure_search": "the responder against the searched policy: minutes to hours on the default "
                                        "store; tests/builder/test_measure_search.py runs it on a small store",
    "python -m bench.serving_memory": "90 s of searched games on the default Dudo store (docs/deploying.md); "
                                      "tests/bench/test_serving_memory.py runs it on a small store",
    "python -m bench.dashboard_queries": "minutes of load before Prometheus's graphs (docs/deploying.md); "
                                         "tests/deploy/test_dashboard_queries.py runs it for 8 s",
    "python -m bench.dudo_search_served": "whole searched games against a server for minutes; "
                                          "tests/bench/test_dudo_search_served.py runs it on a small store",
    "python -m bench.dudo_match": "hundreds of whole games against a server, minutes (docs/dudo-search-serving.md, "
                                  "section 8); tests/bench/test_dudo_match.py runs it on a small store",
    "sudo python -m bench.multihost": "the multi-host drill (docs/operations.md): tests/bench/test_multihost.py "
                                               "runs it (root, network namespaces, haproxy; faults of 3 s)",
    "kubernetes-validate --strict": "run by tests/deploy/test_kubernetes.py (the same files, two Kubernetes versions)",
    "promtool check rules": "run by tests/deploy/test_prometheus_rules.py",
    "promtool test rules": "run by tests/deploy/test_prometheus_rules.py",
    "cd clients/examples/typescript": "the TypeScript example client (docs/api.md): tests/clients/test_typescript_example.py "
                                      "installs it with npm ci, builds it and runs it against a live server",
    "python docs/architecture_graph.py": "tests/test_architecture.py runs it: the check on the page, and --write on a "
                                         "copy made stale",
    "nice -n 5 python -m bench.serve_while_building": "minutes of builds beside a server (docs/serving-while-building.md);"
                                                      " tests/bench/test_serve_while_building.py runs p99 and beside small",
    "python -m bench.cold_build": "two builds of every default store (about 15 minutes, docs/serving-while-building.md); "
                                  "tests/bench/test_cold_build.py runs it on the 3-letter Jotto store",
    "nice -n 5 python -m bench.build_progress": "a whole fresh build of the default Dudo store (about 10 minutes of 2 "
                                                "cores); tests/bench/test_build_progress.py runs its comparison on a "
                                                "recorded log and samples",
    "python -m bench.build_progress --watch": "watches a running make serve until every store is built; "
                                              "tests/bench/test_build_progress.py runs its comparison on a recorded "
                                              "log and samples",
    "python -m bench.build_progress --steps": "reads a build's log (make serve's after a build); "
                                              "tests/bench/test_build_progress.py runs it on a recorded log",
    "python -m bench.build_progress --replay": "plays a trace --trace recorded beside a build; "
                                               "tests/bench/test_build_progress.py runs it on a recorded trace",
    "gamestrategy-play": "interactive; tests/clients/test_play.py plays every game in a pseudo-terminal",
    "python -m server --tls-cert": "the security example: tests/server/test_abuse.py::test_readme_security_commands "
                                   "runs it with a CA and certificates it makes",
    "curl --cacert": "the security example (HTTPS): run by tests/server/test_abuse.py::test_readme_security_commands",
    "gamestrategy --tls-ca": "the security example: run by tests/server/test_abuse.py::test_readme_security_commands",
    "nice -n 10 python docs/dudo-exact-check/": "measurement scripts of many minutes (solves and exact walks at 3 dice "
                                                "in play); tests/games/test_dudo_exact_check.py runs the same checks small",
    "nice -n 5 python -m pytest": "a part of this very test run",
    "nice -n 5 python -m bench.dudo_cost --live": "12 live solves, about 90 s of CPU (docs/serving.md); "
                                                  "tests/bench/test_dudo_cost.py runs its --quick two",
    "nice -n 5 python -m bench.deadline_edge": "60,000 calls, about 11 minutes (docs/serving.md); "
                                               "tests/bench/test_deadline_edge.py runs it with 40",
    "python -m bench.storecheck": "measures stores of hundreds of MB (docs/serving.md, Faults); "
                                  "tests/bench/test_storecheck.py runs it on a small root and a small synthetic store",
    "python -m bench.startup": "starts a server on a store root (the runs in docs/serving.md: the 1.4 GB default "
                               "Dudo store's); tests/bench/test_startup.py runs it on a small root",
    "python -m research.dudo_design": "design measurements of minutes to hours (docs/dudo-design.md); "
                                   "tests/games/test_dudo_continual.py checks the design on small rounds",
    "make build-stores": "full solves (the Dudo store alone about 1 h 51 min); the builder's options are tested in tests/builder",
    "nice -n 10 python -m research.dudo_endgame": "benchmarks of minutes (timing, serve on the default Dudo store); "
                                          "tests/research/test_dudo_endgame.py runs each section small",
    "nice -n 19 python -m research.dudo_endgame": "the exact exploitability table: hours of CPU on rounds with 4 dice in "
                                          "play; tests/research/test_dudo_endgame.py runs it small",
    "NUMBA_NUM_THREADS=1 nice -n 10 python -m research.dudo_responder": "the responder's validation on the exact "
                                                                        "rounds: exact walks of minutes each on 1v2 "
                                                                        "(docs/dudo-search-serving.md section 7); "
                                                                        "tests/research/test_dudo_responder.py runs "
                                                                        "validate and cost small on 1v1",
}


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def docs_text() -> str:
    return "\n".join(p.read_text() for p in DOCS)


def readme_commands() -> list[str]:
    """The commands of the ```sh blocks of the README and the docs, continuation lines joined, comments dropped."""
    text = docs_text()
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        pending = ""
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            pending = f"{pending} {line.strip()}" if pending else line
            if pending.count("'") % 2:  # a quoted argument goes on on the next line
                continue
            cmd = re.sub(r"\s+#[^'\"]*$", "", pending).strip()
            pending = ""
            if cmd and not cmd.startswith("#"):
                out.append(cmd)
    return out


def _reason_not_run(cmd: str) -> str | None:
    name = cmd.replace(".venv/bin/", "")
    return next((why for prefix, why in NOT_RUN.items() if name.startswith(prefix)), None)


@pytest.fixture(scope="session")
def default_service(tmp_path_factory):
    """A server on the default profile's variants, built small (the README names these variants)."""
    from builder.dudo import build_dudo_store
    from builder.guesswho import GuessWhoParams, build_guesswho_store
    from builder.hangman import HangmanParams, build_hangman_store
    from builder.jotto import JottoParams, build_jotto_store
    from builder.profiles import DEFAULT
    from games.dudo.build.params import DudoParams
    from server.app import build_server
    from server.http_api import HttpApi
    from server.listener import HttpServer
    from server.registry import Registry

    named = set(re.findall(r"[a-z]+(?:-[A-Za-z0-9_]+)+", docs_text()))
    root = tmp_path_factory.mktemp("readme-stores")
    for variant, params in DEFAULT.items():
        if isinstance(params, DudoParams):
            # the default's name and dice with budgets that fit nothing: m = 1 everywhere, one iteration
            build_dudo_store(replace(params, iterations=1, iterations_by_total=(), exact_br_total=0, memory_budget=1,
                                     time_budget=1e-9, bound_memory=0, memory_by_group=(),
                                     train_memory_by_group=(), large_search=params.large_search[:2] + (2,)
                                     + params.large_search[3:]), root)
        elif isinstance(params, GuessWhoParams):
            build_guesswho_store(GuessWhoParams(params.n, budget=2000), root)
        elif isinstance(params, HangmanParams):
            build_hangman_store(HangmanParams(params.length, eval_games=2), root)
        elif variant in named:  # the README's Jotto variants; the others add nothing here
            build_jotto_store(variant, JottoParams(fp_iterations=2, do_iterations=1, people_oracle="gbr"), root)
    registry = Registry(root)
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    api = HttpApi(server.servicer, threads=2)
    http = HttpServer(api.app, "127.0.0.1", 0).start()
    yield root, port, http.port
    http.stop(0)
    api.close()
    server.stop(0).wait()
    registry.close()


def test_every_readme_command_is_run_or_explained():
    cmds = readme_commands()
    assert any(c.startswith(".venv/bin/gamestrategy ") for c in cmds)
    for cmd in cmds:
        runnable = cmd.startswith((".venv/bin/gamestrategy ", ".venv/bin/grpcurl ", "curl "))
        assert runnable or _reason_not_run(cmd), f"README command neither run by a test nor explained: {cmd}"


@pytest.mark.parametrize("cmd", [c for c in readme_commands() if not _reason_not_run(c)])
def test_readme_command_runs(cmd, default_service):
    _, port, http_port = default_service
    target = f"127.0.0.1:{port}"
    cmd = cmd.replace(".venv/bin/", f"{BIN}/").replace(PORT, target).replace(HTTP_PORT, f"127.0.0.1:{http_port}")
    if cmd.startswith(f"{BIN}/gamestrategy "):
        cmd = cmd.replace(f"{BIN}/gamestrategy ", f"{BIN}/gamestrategy --target {target} ", 1)
    r = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{cmd}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert r.stdout.strip()
