# a built store's stated figures against games.dudo.reference.exact_check on its rows, round by round up to
# argv[2] dice in play; argv[3:] (e.g. 2v2) limits the largest rounds walked (the smaller ones are always walked:
# the larger rounds' best responses continue into them).  python docs/dudo-exact-check/default_store_figures.py
# <store version dir> 4 2v2
import sys, time
from pathlib import Path
from games.dudo.reference import exact_check as xc
from games.dudo.abstraction.infoset import history_window
from games.dudo.store import store_memories
from games.storage import Store

store = Store(Path(sys.argv[1]))
max_total = int(sys.argv[2])
only = {tuple(int(x) for x in r.split("v")) for r in sys.argv[3:]}
man = store.manifest
stated = man["rounds"]
pol = xc.stored_policy(lambda k: store.get("windows", k), store_memories(man), history_window)
max_dice = int(man["parameters"]["max_dice"])
W, ro, rn = {}, {}, {}
t0 = time.process_time()
print(f"{man['variant']} {man['content_hash'][:16]}: round, seat, stated, independent, difference", flush=True)
for a, b in xc.reachable_rounds(max_dice, max_total):
    if a + b == max_total and only and (a, b) not in only:
        continue
    W[(a, b)] = xc.self_play_value(a, b, pol, W)
    ro[(a, b)] = xc.best_response(a, b, 0, pol, ro, rn)
    rn[(a, b)] = xc.best_response(a, b, 1, pol, ro, rn)
    ind = dict(value=W[(a, b)], br_opener=ro[(a, b)], br_other=rn[(a, b)],
               exploitability=ro[(a, b)] - W[(a, b)] + rn[(a, b)] - (1 - W[(a, b)]))
    st = stated[f"{a}v{b}"]
    for k in ("value", "br_opener", "br_other", "exploitability"):
        print(f"{a}v{b} {k:<15} {st[k]:.9f} {ind[k]:.9f} {ind[k] - st[k]:+.1e}", flush=True)
    print(f"  ({st['br_kind']}, memory {st['memory']}; {time.process_time() - t0:.0f} CPU s so far)", flush=True)
