# exact_check figures of the stored rows (argv[2] = stored), of the served policy (served: rows + endgame re-solving, SolutionBlueprint of the quantised strategy) or the same with the rows as blueprint (rows), default profile up to argv[1] dice in play.
import time, sys, json, numpy as np
from builder.profiles import DUDO_DEFAULT as p
from games.dudo.build.solve_game import solve_game
from games.dudo.build.rows import iter_rows
from games.dudo.store import lookup_row
from games.dudo.abstraction.infoset import history_window
from games.dudo.reference import exact_check as xc
from games.dudo.search.endgame import EndgamePolicy, SolutionBlueprint, RowBlueprint
from games.dudo.policy.served import served_policy
mt = int(sys.argv[1]); which = sys.argv[2]
t0 = time.time()
sol = solve_game(max_dice=p.max_dice, m=p.memories(), iterations=p.group_iterations, perfect_recall_total=p.perfect_recall_total,
                 exact_br_total=p.exact_br_total, progress=False, log=None, max_total=mt, checkpoint_dir=f"/tmp/dx/ckd{mt}")
rows = dict(iter_rows(sol))
mem = {k: g.m for k, g in sol.groups.items()}
stored = xc.stored_policy(rows.get, mem, history_window)
W = {k: st["value"] for k, st in sol.stats.items()}
if which == "rows":
    bp = RowBlueprint(lambda own, opp, roll, h: lookup_row(rows.get, mem, own, opp, roll, h), lambda own, opp: mem[(min(own, opp), max(own, opp))])
else:
    bp = SolutionBlueprint(sol)
pol = stored if which == "stored" else served_policy(stored, bp, W, EndgamePolicy())
def pr(a, b, f):
    st = sol.stats[(a, b)]
    print(which, f"{a}v{b}", json.dumps({k: round(f[k], 7) for k in f}), "stated", json.dumps({k: round(float(st[k]), 7) for k in f}),
          f"re-solves {len(getattr(pol, 'solved', {}))}", f"{time.time()-t0:.0f}s", flush=True)
xc.exact_figures(pol, 5, mt, progress=pr)
