"""Load test: book hits while live requests run, bounded in time, loopback only.

  python -m bench.liveload [--seconds 40] [--phase 5] [--workers 2] [--concurrency 8] [--root stores]

A server process (``--workers`` forked workers, each with its live pool) serves the store root's
Jotto stores and a small Dudo store built here (1 die a player, ``--iterations``), with the live
cache off so that every live request computes. One load process sends Jotto book hits at
``--concurrency`` for the whole run, which alternates idle phases with live phases of ``--phase``
seconds. In a live phase this process sends live Dudo requests one after another, rounds with more
dice than the store holds, each solved in a live worker process: 3v3 with a short deadline
(stopped at the deadline), 5v5 (refused at once: FAILED_PRECONDITION), 3v3 cancelled by the caller
after a second and 2v1 with a 30 s deadline (answered LIVE); a request refused with
RESOURCE_EXHAUSTED (its slot is still being freed) is sent again 0.2 s later. The server's estimates are
scaled down (``--estimate-scale``) so that it admits the 3v3 solves, which then run into their
deadline. The live workers' CPU is sampled every 0.1 s: the worker of a request whose caller's deadline
passed (or whose caller cancelled) must use no CPU from 1 s to 2 s after it. Which worker that was comes
from the server's log ("live worker killed", its pid): with one slot, the n-th kill is the n-th stopped
request's (a worker merely runnable during the request can be the pool's replacement warming up).

Fails (exit 1) if the book-hit p99 in the live phases exceeds twice the idle phases' p99, if a
stopped worker used more than ``CPU_FREE`` s of CPU in that second, if the kills do not match the
stopped requests one for one, or if nothing was stopped.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.load import REPO, _pct, _start, _stop

CPU_FREE = 0.02  # CPU seconds a stopped request's worker may show from 1 s to 2 s after the deadline (2 ticks)
SAMPLE_SECONDS = 0.1


def _children(pid: int) -> list[int]:
    try:
        return [int(k) for t in os.listdir(f"/proc/{pid}/task")
                for k in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    except OSError:
        return []


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return out


def _stat(pid: int) -> tuple[float, str] | None:
    """(CPU seconds, scheduler state) of a process; None once it has ended."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if f[0] in "ZX":
        return None
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK"), f[0]


def _is_live_process(pid: int) -> bool:
    """A live pool's process: its forkserver or a worker (they share the forkserver's command line)."""
    try:
        return b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class Sampler(threading.Thread):
    """CPU seconds and state of every live process under the server, every SAMPLE_SECONDS:
    [(time, {pid: (cpu, state)})]. A computing worker is runnable ("R") even when the scheduler gives it
    little CPU (it runs at nice 19); an idle one sleeps on its pipe."""

    def __init__(self, server_pid: int):
        super().__init__(daemon=True)
        self.server_pid, self.samples, self.done = server_pid, [], threading.Event()

    def run(self):
        known: set[int] = set()
        while not self.done.is_set():
            known |= {p for p in _descendants(self.server_pid) if p not in known and _is_live_process(p)}
            snap = {}
            for p in list(known):
                c = _stat(p)
                if c is None:
                    known.discard(p)
                else:
                    snap[p] = c
            self.samples.append((time.time(), snap))
            self.done.wait(SAMPLE_SECONDS)

    def quiet(self, seconds: float = 1.0, wait: float = 180.0) -> None:
        """Wait until no live process has been runnable for ``seconds`` (start-up done), at most ``wait``."""
        t_end = time.time() + wait
        while time.time() < t_end:
            now = time.time()
            if now - self.samples[0][0] >= seconds if self.samples else False:
                if not self.busy(now - seconds, now):
                    return
            time.sleep(SAMPLE_SECONDS)

    def window(self, a: float, b: float) -> list[dict]:
        return [s for ts, s in self.samples if a <= ts <= b]

    def busy(self, a: float, b: float) -> set[int]:
        """Live processes runnable at some sample between a and b."""
        return {p for s in self.window(a, b) for p, (_, st) in s.items() if st == "R"}

    def used(self, pid: int, a: float, b: float) -> tuple[float, bool]:
        """(CPU seconds it used between a and b, whether it existed at a)."""
        seen = [s[pid][0] for s in self.window(a, b) if pid in s]
        return (seen[-1] - seen[0] if seen else 0.0), bool(self.window(a, a + SAMPLE_SECONDS * 1.5)
                                                           and pid in self.window(a, b)[0])


def _killed_workers(log_path: Path) -> list[tuple[float, int]]:
    """(epoch seconds, worker pid) of every live worker the server killed, from its JSON log, in order."""
    import calendar
    out = []
    for line in log_path.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("message") == "live worker killed":
            ts = rec["time"]            # 2026-11-26T09:15:35.123Z
            t = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")) + int(ts[20:23]) / 1000
            out.append((t, int(rec["worker_pid"])))
    return sorted(out)


def _dudo_request(own, opp, seed):
    from protos import gamestrategy_pb2 as pb

    return pb.SampleMoveRequest(variant="dudo-m3-1dice", game_seed=seed, dudo=pb.DudoState(
        own_dice=own, opponent_dice=opp, roll=[1 + (seed + k) % 6 for k in range(own)], requester_opened=True))


def run(args) -> int:
    from builder.dudo import build_dudo_store
    from games.dudo.build.params import DudoParams
    from games.storage import current_stores

    src = Path(args.root)
    jotto = sorted(current_stores(src, "jotto"))
    if not jotto:
        raise SystemExit(f"no Jotto store under {src}: run `make build-default-stores` first")
    variant = "jotto-en_US80-3-ganzfried" if "jotto-en_US80-3-ganzfried" in jotto else jotto[0]
    with tempfile.TemporaryDirectory(prefix="liveload-") as tmp:
        tmp = Path(tmp)
        root = tmp / "stores"
        root.mkdir()
        (root / "jotto").symlink_to((src / "jotto").resolve())
        build_dudo_store(DudoParams(max_dice=1, iterations=args.iterations), root)
        with open(tmp / "server.log", "wb") as slog:
            sp, port = _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers",
                               str(args.workers), "--threads", "8", "--metrics-port", "-1", "--log-level", "WARNING",
                               "--live-cache-mb", "0", "--live-slots", "1", "--live-estimate-scale",
                               str(args.estimate_scale), "--port-file", str(tmp / "server.json")],
                              tmp / "server.json", slog)
            try:
                return _measure(args, sp, port, variant, tmp)
            finally:
                _stop(sp)


def _measure(args, sp, port, variant, tmp) -> int:
    import grpc

    from protos import gamestrategy_pb2 as pb
    from protos import gamestrategy_pb2_grpc as pb_grpc

    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = pb_grpc.GameStrategyStub(channel)
    stub.SampleMove(_dudo_request(2, 1, 0), timeout=120)  # the live worker started, its kernels loaded
    sampler = Sampler(sp.pid)
    sampler.start()
    sampler.quiet()  # every worker's live pool started (its forkserver loads the kernels once): not request work
    out = tmp / "book.json"
    load = subprocess.Popen([sys.executable, "-m", "bench.load", "load", "--target", f"127.0.0.1:{port}",
                             "--kind", "book", "--variant", variant, "--concurrency", str(args.concurrency),
                             "--seconds", str(args.seconds), "--versions", "--out", str(out)],
                            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
    ru0 = os.times()
    time.sleep(2.0)  # the load process connects and starts
    plan = [(3, 3, args.short_deadline, None), (5, 5, 30.0, None), (3, 3, 30.0, 1.0), (2, 1, 30.0, None)]
    live, stopped, phases, k = [], [], [], 0
    t_end = time.time() + args.seconds - 3.0
    while time.time() + 2 * args.phase < t_end:
        idle0 = time.time()
        time.sleep(args.phase)
        live0 = time.time()
        while time.time() - live0 < args.phase:
            own, opp, deadline, cancel = plan[k % len(plan)]
            k += 1
            t0 = time.time()
            fut = stub.SampleMove.future(_dudo_request(own, opp, k), timeout=deadline)
            if cancel is not None:
                time.sleep(cancel)
                fut.cancel()
            try:
                r = fut.result()
                status = "OK " + pb.SampleMoveReply.Source.Name(r.source)
            except grpc.FutureCancelledError:
                status = "CANCELLED"
            except grpc.RpcError as e:
                status = e.code().name
            t1 = time.time()
            live.append(dict(request=f"{own}v{opp}", deadline=deadline, status=status, seconds=t1 - t0))
            if status in ("DEADLINE_EXCEEDED", "CANCELLED"):
                stopped.append(dict(request=f"{own}v{opp}", status=status, start=t0, at=t1))
            elif status == "RESOURCE_EXHAUSTED":  # the slot is still being freed: the same request again
                k -= 1
                time.sleep(0.2)
        phases.append((idle0, live0, time.time()))
    load.wait()
    ru1 = os.times()
    time.sleep(2.2)
    sampler.done.set()
    sampler.join()
    r = json.loads(out.read_text())
    stamps = [r["start_epoch"] + s for s in r["stamps"]]
    lat = r["lat"]
    idle = [x for s, x in zip(stamps, lat) if any(a <= s < b for a, b, _ in phases)]
    busy = [x for s, x in zip(stamps, lat) if any(b <= s < c for _, b, c in phases)]
    p99_idle, p99_live = _pct(idle, .99), _pct(busy, .99)
    load_cpu = (ru1.children_user - ru0.children_user) + (ru1.children_system - ru0.children_system)
    print(f"\nBook hits with live work: {args.workers} server workers, Jotto book hits at concurrency "
          f"{args.concurrency} ({variant}), {len(phases)} idle and {len(phases)} live phases of {args.phase:g} s "
          f"alternating; in the live phases one live Dudo request after another on dudo-m3-1dice ({args.iterations} "
          f"iterations; live cache off, --live-slots 1, --live-estimate-scale {args.estimate_scale:g})")
    print(f"{'phase':10s} {'calls':>7s} {'req/s':>7s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>8s}")
    span = sum(b - a for a, b, _ in phases), sum(c - b for _, b, c in phases)
    for (name, xs), secs in zip((("idle", idle), ("with live", busy)), span):
        print(f"{name:10s} {len(xs):7d} {len(xs) / max(secs, 1e-9):7.0f} {_pct(xs, .5) * 1e3:8.2f} "
              f"{_pct(xs, .99) * 1e3:8.2f} {max(xs, default=float('nan')) * 1e3:8.1f}")
    ratio = p99_live / p99_idle
    print(f"book-hit p99 with live / idle: {ratio:.2f} (target <= 2); errors: {r['errors'] or 'none'}; load "
          f"generator CPU {load_cpu:.1f} s over {args.seconds:g} s ({load_cpu / args.seconds:.2f} of a core)")
    print(f"\n{'live request':13s} {'deadline s':>10s} {'status':20s} {'n':>3s} {'median s':>9s} {'max s':>7s}")
    groups: dict = {}
    for x in live:
        groups.setdefault((x["request"], x["deadline"], x["status"]), []).append(x["seconds"])
    for (req, dl, st), xs in sorted(groups.items()):
        xs.sort()
        print(f"{req:13s} {dl:10.1f} {st:20s} {len(xs):3d} {xs[len(xs) // 2]:9.3f} {xs[-1]:7.3f}")
    kills = _killed_workers(tmp / "server.log")
    worst, worst_req, unmatched = 0.0, None, []
    if len(kills) != len(stopped):
        unmatched.append(f"{len(stopped)} requests stopped but {len(kills)} live workers killed (server log)")
    for s, (t_kill, pid) in zip(stopped, kills):    # one slot: each stopped request kills its one worker, in order
        t = s["at"]
        if not s["start"] <= t_kill <= t + 1.0:
            unmatched.append(f"the kill of worker {pid} at {t_kill - s['start']:.3f} s is not within the "
                             f"{s['request']} request stopped at {t - s['start']:.3f} s")
        if pid not in sampler.busy(s["start"], t):
            unmatched.append(f"worker {pid} of the {s['request']} request was not seen computing: the freed-CPU "
                             f"check is incomplete")
        used, there = sampler.used(pid, t + 1.0, t + 2.0)
        s["pid"], s["cpu"], s["alive"] = pid, used, there
        if used >= worst:
            worst, worst_req = used, s
    print(f"\nfreed CPU: {len(stopped)} live requests stopped (deadline or cancel); their workers (the server log's "
          f"kills) used from 1 s to 2 s after the caller's deadline or cancel: worst {worst:.3f} s of CPU (limit "
          f"{CPU_FREE}); workers still present 1 s after: {sum(bool(s.get('alive')) for s in stopped)}")
    bad = []
    if not ratio <= 2.0:
        bad.append(f"book-hit p99 with live work is {ratio:.2f}x its idle p99")
    if not stopped:
        bad.append("no live request was stopped: the freed-CPU check did not run")
    elif unmatched:
        bad += unmatched
    elif worst > CPU_FREE:
        bad.append(f"a live worker used {worst:.3f} s of CPU 1 s after its caller's deadline ({worst_req})")
    for b in bad:
        print(f"FAIL: {b}")
    return 1 if bad else 0


def main(argv=None) -> int:
    from games.storage import stores_root

    ap = argparse.ArgumentParser(prog="python -m bench.liveload")
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--phase", type=float, default=5.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=30, help="the Dudo store's (and its live solves') iterations")
    ap.add_argument("--short-deadline", type=float, default=1.5, help="deadline of the requests meant to be stopped")
    ap.add_argument("--estimate-scale", type=float, default=0.005,
                    help="the server's --live-estimate-scale: admits live work its estimate says cannot finish in "
                         "time, so that deadlines stop it")
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
