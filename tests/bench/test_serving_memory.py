"""bench.serving_memory: the memory of a server's process tree (parent, workers, live workers) under searched Dudo
moves and book calls, on a small searched store; and its summary's peak and steady figures on made-up samples."""
import json
import os
import re

from bench import serving_memory
from builder.dudo import build_dudo_store
from games.dudo.build.params import DudoParams

PARAMS = DudoParams(max_dice=2, iterations=20, memory=1, perfect_recall_total=0, exact_br_total=0,
                    large_search=(3, 2, 10, 4), label="tiny")
MiB = 2**20


def test_the_tree_under_searched_and_book_load(tmp_path, capsys):
    build_dudo_store(PARAMS, tmp_path / "stores")
    out_json = tmp_path / "memory.json"
    assert serving_memory.main(["--root", str(tmp_path / "stores"), "--variant", PARAMS.variant, "--seconds", "4",
                                "--idle-seconds", "1", "--search-games", "1", "--book-clients", "2",
                                "--numba-cache", "inherit", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out_json.read_text())
    roles = summary["roles"]
    assert roles["parent"]["processes"] == 1 and roles["server worker"]["processes"] == 2
    assert roles["live worker"]["processes"] >= 2  # each worker's pool starts its slots at once
    for r in roles.values():
        assert 0 < r["peak_pss"] <= r["peak_rss"] and r["peak_anon"] <= r["peak_rss"]
    tree = summary["tree"]
    assert 0 < tree["idle_pss"] and tree["steady_pss"] <= tree["peak_pss"]
    assert summary["run"]["searched_answers"].get("LIVE", 0) > 0
    assert summary["run"]["book_answers_grpc"] > 0 and summary["run"]["book_answers_http"] > 0
    assert re.search(r"^whole tree \(PSS, MiB\): idle \d+, steady under load \d+, peak \d+", out, re.M)
    assert "ERROR" not in out


def test_rollup_reads_this_process():
    m = serving_memory.rollup(os.getpid())
    assert 0 < m["pss"] <= m["rss"] and 0 < m["anon"] <= m["rss"]
    assert serving_memory.rollup(2**22 + 1) is None  # above pid_max's default: no such process


def test_peak_is_the_largest_sample_and_steady_the_load_phases_second_half():
    def s(t, phase, pid, role, pss):
        return {"t": t, "phase": phase, "pid": pid, "role": role, "rss": 2 * pss, "pss": pss, "pss_anon": pss // 2,
                "anon": pss // 2}
    samples = []
    for t in range(10):
        phase = "idle" if t < 2 else "load" if t < 8 else "after"
        samples.append(s(t, phase, 1, "parent", 100 * MiB))
        samples.append(s(t, phase, 2, "server worker", (300 if t == 3 else 200) * MiB))  # a spike early in the load
        samples.append(s(t, phase, 3, "server worker", (150 + t) * MiB))
    summary = serving_memory.summarise(samples)
    w = summary["roles"]["server worker"]
    assert w["processes"] == 2 and w["peak_pss"] == 300 * MiB and w["steady_pss"] == 200 * MiB
    assert summary["tree"]["peak_pss"] == (100 + 300 + 153) * MiB
    assert summary["tree"]["steady_pss"] == (100 + 200 + 156) * MiB  # the load's second half: t = 5, 6, 7
    assert summary["tree"]["idle_pss"] == (100 + 200 + 150.5) * MiB


def test_the_server_runs_with_the_deployments_options(tmp_path):
    import yaml

    from server.__main__ import parse_args
    (deployment,) = [d for d in yaml.safe_load_all(serving_memory.DEPLOYMENT.read_text()) if d]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    theirs = vars(parse_args(container["args"]))
    ours = vars(parse_args(serving_memory.server_command(tmp_path, tmp_path / "ports.json")[3:]))
    local = {"host", "metrics_host", "http_host", "root", "log_format", "log_level", "port", "http_port",
             "metrics_port", "port_file"}
    assert {k: v for k, v in ours.items() if k not in local} == {k: v for k, v in theirs.items() if k not in local}
    assert theirs["workers"] == 2 and ours["root"] == tmp_path
