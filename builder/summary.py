"""What the builder prints at the end: per store its time, peak memory, size, quality and content hash;
and the sampler that measures the peak memory of the build's processes."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import psutil

from games.dudo.measure.bound import kind_of


class PeakMemory:
    """Peak resident memory of this process and all its descendants (workers), sampled every 0.2 s."""

    def __init__(self, interval: float = 0.2):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="peak-memory")

    def _sample(self) -> int:
        me = psutil.Process()
        total = me.memory_info().rss
        for child in me.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval)

    def __enter__(self):
        self.peak = self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


@dataclass
class StoreResult:
    variant: str
    seconds: float
    peak_bytes: int
    path: Path
    manifest: dict
    resumed: bool = False   # published by an earlier, interrupted run of the same build

    @property
    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.glob("*.mdb"))


def strongest_figure(r: dict) -> tuple[float, str]:
    """(exploitability, its kind) of a Dudo round: of its exact-valued figure and its perfect-recall
    improvement (a lower bound too, sampled), the larger, since both bound the same exploitability from below."""
    best = (r["exploitability"], kind_of(r))
    if r.get("improved_exploitability") is not None and r["improved_exploitability"] > best[0]:
        best = (r["improved_exploitability"], r.get("improved_kind") or "lower bound: perfect-recall improvement")
    return best


def quality(m: dict) -> str:
    """One line of the store's headline quality figures."""
    game = m.get("game")
    if game == "jotto":
        s = m["strategies"][m["served"]]["figures"]
        return f"{m['served']}: guarantee {s['guarantee']:.3f}, epsilon {s['epsilon']:.3f}"
    if game == "dudo":
        rounds = m.get("rounds", {})
        ex = [strongest_figure(r) + (k,) for k, r in rounds.items() if r.get("exploitability") is not None]
        if not ex:
            return f"{len(rounds)} rounds"
        worst, kind, where = max(ex)
        one = rounds.get("1v1", {}).get("exploitability")
        head = f"1v1 expl. {one:.2g}, " if one is not None else ""
        return f"{head}max expl. {worst:.3g} ({where}, {kind})"
    if game == "guesswho":
        return f"tuned vs optimal {float(_frac(m['strategies']['tuned']['vs_optimal'])):.4f}"
    if game == "hangman":
        f = m.get("figures", {})
        return f"ours vs seed {f['ours_vs_seed']:.3f} over {f['ours_vs_seed_games']} games" if "ours_vs_seed" in f else ""
    return ""


def _frac(s: str):
    from fractions import Fraction
    return Fraction(s)


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f}"


def format_summary(results: list[StoreResult], executor: str, wall: float) -> str:
    lines = [f"\nbuilt on {executor} in {wall:.1f} s",
             f"{'store':32s} {'seconds':>8s} {'peak MB':>8s} {'size MB':>8s}  {'content hash':16s}  quality"]
    for r in results:
        secs = "resumed" if r.resumed else f"{r.seconds:.1f}"
        peak = "-" if r.resumed else _mb(r.peak_bytes)
        lines.append(f"{r.variant:32s} {secs:>8s} {peak:>8s} {r.size_bytes / 2**20:8.1f}  "
                     f"{r.manifest.get('content_hash', '')[:16]:16s}  {quality(r.manifest)}")
    for r in results:       # a Dudo store's per-round table: memory, iterations, value, exploitability, kind
        if r.manifest.get("game") == "dudo" and not r.resumed:
            from builder.dudo_report import table
            lines += ["", table(r.manifest)]
    return "\n".join(lines)
