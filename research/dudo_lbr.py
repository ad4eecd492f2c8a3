"""The perfect-recall improvement of the memory-m' best response (``games.dudo.measure.lbr``) against a built
Dudo store's served (quantised) strategy, beside the store's own figure: every round with more than
``--min-dice`` dice in play.

    .venv/bin/python -m research.dudo_lbr --root stores --variant dudo-5dice-default [--games 40]

Per round: the group's memory m, the store's exploitability and its kind, m' (the store's bound memory
where its value tables fit ``--max-gib``, else m), the memory-m' bound recomputed on the quantised
strategy (exact), the improved responder's estimate with its standard error, the share of the
responder's turns where it left the memory-m' response, the games and the CPU seconds (one core).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from games.dudo.measure.bound import kind_memory
from games.dudo.cost import improvement_bytes
from games.dudo.serving.endgame_store import store_W, stored_group
from games.dudo.abstraction.infoset import dominates, memory_json, parse_memory
from games.dudo.measure.lbr import round_improved_best_response
from games.dudo.rules import claim
from games.dudo.store import store_memories
from games.storage import Store, StoreError


def store_continuations(manifest: dict) -> tuple[dict, dict]:
    """(resp_open, resp_other): the best-response values the store records per round."""
    bo, bt = {}, {}
    for name, st in manifest["rounds"].items():
        if "br_opener" in st:
            r = tuple(int(x) for x in name.split("v"))
            bo[r], bt[r] = float(st["br_opener"]), float(st["br_other"])
    return bo, bt


def store_inputs(root, variant: str):
    """(manifest, W, max_dice, resp_open, resp_other) of a built Dudo store: what retraining one of its
    groups on its continuations needs (raises ``StoreError`` naming what is missing)."""
    man = Store(Path(root) / "dudo" / variant / "current").manifest
    return (man, store_W(man), int(man["parameters"]["max_dice"])) + store_continuations(man)


def local_continuations(W: dict) -> tuple[dict, dict]:
    """(resp_open, resp_other) of a responder who plays on at our values after the round: the opener's and
    the other's winning probabilities under the stored strategy."""
    return dict(W), {r: 1.0 - v for r, v in W.items()}


def gain_buckets(by_last: np.ndarray, D: int, width: int) -> list[tuple[str, float, float]]:
    """(first claim of the bucket, gain, responder turns) over buckets of ``width`` strengths; the
    first bucket is the opening turn (no claim yet)."""
    out = [("open", float(by_last[0, 0]), float(by_last[1, 0]))]
    K = by_last.shape[1] - 1
    for L0 in range(0, K, width):
        n, r = claim(L0, D)
        out.append((f"{n}x{r}", float(by_last[0, 1 + L0:1 + L0 + width].sum()),
                    float(by_last[1, 1 + L0:1 + L0 + width].sum())))
    return out


def responder_memory(st: dict, m, a: int, b: int, max_bytes: int, given=None):
    """``given``, else the store's bound memory m' (from its kind, a schedule's whole text), where its
    value tables fit; else the group's m."""
    named = kind_memory(st.get("br_kind", ""))
    mr = given if given is not None else parse_memory(named) if named else m
    return mr if improvement_bytes(a, b, mr) <= max_bytes else m


def rounds_to_measure(manifest: dict, min_dice: int, only=None):
    names = sorted(manifest["rounds"], key=lambda n: (sum(map(int, n.split("v"))), n))
    for name in names:
        op, oth = (int(x) for x in name.split("v"))
        if op + oth > min_dice and (not only or name in only):
            yield name, op, oth


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.dudo_lbr")
    ap.add_argument("--root", default="stores")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--games", type=int, default=40, help="sampled rounds per responder roll and seat")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-gib", type=float, default=6.0, help="value tables larger than this use m' = m")
    ap.add_argument("--min-dice", type=int, default=4, help="measure the rounds with more dice in play")
    ap.add_argument("--rounds", default="", help="comma-separated rounds, e.g. 5v5,4v4 (default: all)")
    ap.add_argument("--responder", default="",
                    help="the responder's memory (e.g. 4-24-3) instead of the store's bound's")
    ap.add_argument("--local", action="store_true",
                    help="the round's own share: the responder plays on at the store's values after the round "
                         "(continuations W) instead of best-responding in the later rounds too")
    ap.add_argument("--gain-bucket", type=int, default=0,
                    help="also print each round's gain by the last claim's strength, in buckets of this many")
    a = ap.parse_args(argv)
    if a.games < 2:
        print(f"--games is {a.games}; it must be at least 2", file=sys.stderr)
        return 2
    try:
        given = parse_memory(a.responder) if a.responder else None
    except ValueError as e:
        print(f"--responder {a.responder!r}: {e}", file=sys.stderr)
        return 2
    try:
        store = Store(Path(a.root) / "dudo" / a.variant / "current")
        memories = store_memories(store.manifest)
    except StoreError as e:
        print(str(e), file=sys.stderr)
        return 2
    man = store.manifest
    W, max_dice = store_W(man), int(man["parameters"]["max_dice"])
    bo, bt = local_continuations(W) if a.local else store_continuations(man)
    only = {r for r in a.rounds.split(",") if r}
    selected = list(rounds_to_measure(man, a.min_dice, only))
    if given is not None:
        for name, op, oth in selected:
            m = memories[(min(op, oth), max(op, oth))]
            if m is not None and not dominates(6 * (op + oth), given, m):
                print(f"--responder {a.responder}: it must remember all that round {name}'s memory {memory_json(m)} does",
                      file=sys.stderr)
                return 2
    print(f"{a.variant} ({man.get('code_version', '?')}): perfect-recall improvement, {a.games} games per roll and seat"
          + ("; the round's own share (later rounds at the store's values)" if a.local else ""))
    print(f"{'round':>6} {'m':>3} {'store':>7}  {'store kind':<52} {'m1':>3} {'bound':>7} {'improved':>8} {'+-':>6} "
          f"{'left':>5} {'games':>7} {'s':>6}")
    groups = {}
    for name, op, oth in selected:
        key = (min(op, oth), max(op, oth))
        if key not in groups:
            groups.clear()
            groups[key] = stored_group(store, key)[:2]
        g, strat = groups[key]
        st = man["rounds"][name]
        if g.m is None:
            continue
        mr = responder_memory(st, g.m, *key, int(a.max_gib * (1 << 30)), given)
        t0 = time.process_time()
        est = round_improved_best_response(g, strat, op, mr, W, bo, bt, max_dice,
                                           a.games, a.seed)
        secs = time.process_time() - t0
        fig = st.get("exploitability")
        print(f"{name:>6} {str(g.m):>3} {fig if fig is None else f'{fig:.4f}':>7}  {st.get('br_kind', '-'):<52} "
              f"{str(mr):>3} "
              f"{est.base:7.4f} {est.exploitability:8.4f} {est.stderr:6.4f} {est.changed:5.2f} {est.games:7d} "
              f"{secs:6.1f}", flush=True)
        if a.gain_bucket > 0:
            print("        gain by last claim: " + "  ".join(
                f"{n} {gain:.4f}" for n, gain, _ in gain_buckets(est.by_last, op + oth, a.gain_bucket)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
