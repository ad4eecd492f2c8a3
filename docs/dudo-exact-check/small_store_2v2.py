# stated figures of a max_dice 2, memory 4, 30-iteration solve against exact_check on its rows, 2v2 included (minutes of CPU).
import time, sys, json, numpy as np
from games.dudo.build.solve_game import solve_game
from games.dudo.build.rows import iter_rows
from games.dudo.abstraction.infoset import history_window
from games.dudo.reference import exact_check as xc
t0=time.time()
sol = solve_game(max_dice=2, m=4, iterations=30, progress=False, log=None, checkpoint_dir="/tmp/dx/ckq")
rows = dict(iter_rows(sol))
mem = {k: g.m for k, g in sol.groups.items()}
pol = xc.stored_policy(rows.get, mem, history_window)
def pr(a, b, f):
    st = sol.stats[(a, b)]
    print(f"{a}v{b}", json.dumps({k: [f[k], float(st[k]), f[k]-float(st[k])] for k in f}), f"{time.time()-t0:.0f}s", flush=True)
xc.exact_figures(pol, 2, 4, progress=pr)
