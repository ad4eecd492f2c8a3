"""Data of the operations page: the served stores' build facts, their plots (games.plots, rendered once
per store version on the HTTP API's thread pool) and the running totals of the metrics."""
from __future__ import annotations

import time

from prometheus_client import REGISTRY, CollectorRegistry

from server import metrics

FACT_KEYS = ("game", "variant", "store_version", "content_hash", "format_version", "build_time", "build_seconds",
             "code_version", "parameters", "build", "served", "infosets", "windows", "row_format",
             "probability_unit", "memory_by_group", "dictionary", "certified")


def store_facts(registry) -> dict:
    """variant -> the build facts of its served store (manifest fields, without the bulky ones)."""
    out = {}
    with registry.acquire_all() as items:
        for name, b in items:
            m = b.store.manifest
            facts = {k: m[k] for k in FACT_KEYS if k in m}
            for k, v in (m.get("strategies") or {}).items():
                if isinstance(v, dict):
                    facts.setdefault("strategy_facts", {})[k] = {
                        x: v[x] for x in ("iterations", "t_star", "seconds", "seconds_per_iteration", "members",
                                          "columns", "book_entries") if x in v}
            out[name] = facts
    return out


class Plots:
    """SVG plots by (variant, store version, name), rendered once."""

    def __init__(self):
        self._cache: dict[tuple, bytes] = {}

    def names(self, registry) -> dict[str, list[str]]:
        from games.plots import plot_names

        with registry.acquire_all() as items:
            return {name: plot_names(b.store) for name, b in items}

    def svg(self, registry, variant: str, name: str) -> bytes:
        """KeyError for an unknown variant or plot."""
        from games.plots import render

        if variant not in registry.variants():
            raise KeyError(variant)
        with registry.acquire(variant) as b:
            key = (variant, b.version, name)
            hit = self._cache.get(key)
            if hit is None:
                hit = self._cache[key] = render(b.store, name)
            return hit


def metric_totals() -> dict:
    """Calls by method and code, and moves by variant and source, summed over the worker processes
    (multi-process mode) or of this process; the page turns two readings into rates."""
    if metrics.MULTIPROC:
        from prometheus_client import multiprocess

        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
    else:
        reg = REGISTRY
    calls: dict[str, dict[str, float]] = {}
    moves: dict[str, dict[str, float]] = {}
    for fam in reg.collect():
        if fam.name == "gamestrategy_requests":
            for s in fam.samples:
                if s.name.endswith("_total"):
                    d = calls.setdefault(s.labels["method"], {})
                    d[s.labels["code"]] = d.get(s.labels["code"], 0.0) + s.value
        elif fam.name == "gamestrategy_moves":
            for s in fam.samples:
                if s.name.endswith("_total"):
                    d = moves.setdefault(s.labels["variant"], {})
                    d[s.labels["source"]] = d.get(s.labels["source"], 0.0) + s.value
    return {"time": time.time(), "flush_seconds": metrics.FLUSH_SECONDS, "calls": calls, "moves": moves}
