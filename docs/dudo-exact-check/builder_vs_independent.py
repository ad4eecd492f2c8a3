# the builder's stated figures against games.dudo.reference.exact_check on the stored rows (default profile, groups up to argv[1] dice in play).
import time, sys, json
import numpy as np
from builder.profiles import DUDO_DEFAULT
from games.dudo.build.solve_game import solve_game
from games.dudo.build.rows import iter_rows
from games.dudo.abstraction.infoset import history_window
from games.dudo.reference import exact_check as xc
p = DUDO_DEFAULT
mt = int(sys.argv[1]) if len(sys.argv) > 1 else 3
t0 = time.time()
sol = solve_game(max_dice=p.max_dice, m=p.memories(), iterations=p.group_iterations, perfect_recall_total=p.perfect_recall_total,
                 exact_br_total=p.exact_br_total, progress=False, log=None, max_total=mt, checkpoint_dir=f"/tmp/dx/ck{mt}")
print("solve", time.time()-t0, {k: sol.groups[k].m for k in sol.groups})
rows = dict(iter_rows(sol))
mem = {k: g.m for k, g in sol.groups.items()}
pol = xc.stored_policy(rows.get, mem, history_window)
def pr(a, b, f):
    st = sol.stats[(a, b)]
    print(f"{a}v{b} indep value {f['value']:.6f} brO {f['br_opener']:.6f} brN {f['br_other']:.6f} expl {f['exploitability']:.6f} | builder value {st['value']:.6f} brO {st['br_opener']:.6f} brN {st['br_other']:.6f} expl {st['exploitability']:.6f}  t={time.time()-t0:.1f}", flush=True)
xc.exact_figures(pol, 5, mt, progress=pr)
