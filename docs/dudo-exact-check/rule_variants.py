# exact_check with a changed challenge rule (argv[1]: onedie = the loser loses one die; loseropens = the loser opens the next round).
import time, sys, pickle
import numpy as np
from games.dudo.build.solve_game import solve_game
from builder.profiles import DUDO_DEFAULT as p
from games.dudo.build.rows import iter_rows
from games.dudo.abstraction.infoset import history_window
from games.dudo.reference import exact_check as xc
sol = solve_game(max_dice=p.max_dice, m=p.memories(), iterations=p.group_iterations, perfect_recall_total=p.perfect_recall_total,
                 exact_br_total=p.exact_br_total, progress=False, log=None, max_total=3, checkpoint_dir="/tmp/dx/ck3")
rows = dict(iter_rows(sol))
mem = {k: g.m for k, g in sol.groups.items()}
pol = xc.stored_policy(rows.get, mem, history_window)
orig = xc.after_challenge
def one_die(ch, cl, n, t):
    if t > n: return False, cl, ch - 1
    if t < n: return True, ch, cl - 1
    return False, cl, ch - 1
def loser_opens(ch, cl, n, t):
    w, a, b = orig(ch, cl, n, t)
    return (w, a, b) if b <= 0 else ((not w), b, a)
variant = sys.argv[1]
if variant == "onedie": xc.after_challenge = one_die
if variant == "loseropens": xc.after_challenge = loser_opens
def pr(a, b, f): print(variant, f"{a}v{b}", {k: round(v, 6) for k, v in f.items()}, flush=True)
xc.exact_figures(pol, 5, 3, progress=pr)
