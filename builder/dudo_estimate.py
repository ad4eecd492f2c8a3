"""The expected build seconds of the default Dudo store on a first build (no time measured on the root yet:
``builder.profiles.EXPECTED_SECONDS``), from measured CPU seconds per dice group scheduled as the builder runs
them.

The build solves the groups of one total of dice (a level) through the executor's ``map`` (2 workers on 2
cores): the level's groups in order, each on the next free worker, the next level after the last one ends
(``games.dudo.build.solve_game.solve_game``). A group that shares the machine with another runs on one core, so its wall
is its CPU; a group alone in its level trains on every core (``solve_game.SharedCores``), ``THREAD_SPEEDUP`` times
faster, and measures (best responses, bounds, improvement) on one; groups training against CFR+ responders
start first (``solve_game.started_first``). ``level_seconds`` schedules that;
``dudo_default_seconds`` adds the store writing. Checked against the fresh clone's build of the brief that
asked for this (docs/dudo-speed.md): its own group walls, scheduled as it ran them (the levels' order, before
``started_first``), give 828 s against the 834 s it took. (That is the level-by-level build, before the builder
measured a level while the next one trains: ``dudo_default_seconds`` models it still, for comparing profiles.)

The first build's figure (``first_build_seconds``) schedules the walls of the latest fresh clone's build
(``FRESH_CLONE_SPLIT``: each group's training and the rest, as the pipelined build runs them, ``pipelined_seconds``)
instead: the serial CPU seconds of ``GROUP_CPU`` do not carry what a real first build meets (588 s modelled, 757 s
taken at 2c80687: two groups sharing two cores and their memory, each worker compiling its kernels, and 1v2 alone
took 72 CPU s on 2 threads against 34 serially; 565 s modelled, 537 s taken at 6f3803e, pipelined, the late kernels
compiled beside the first groups), so ``dudo_default_seconds`` stays the tool for comparing profiles and kernels, and
the progress estimate is the measured build.
"""
from __future__ import annotations

from games.dudo.build.solve_game import started_first

# (a, b) -> (training CPU s, the rest of the group's CPU s: exact best responses, memory-m' bounds, the
# improvement, numba's compile of the kernels it used first), one process and one thread, cold numba cache: the
# serial build of DUDO_DEFAULT in docs/dudo-speed.md (`python /tmp/build_prof.py`, its table)
GROUP_CPU = {
    (1, 1): (5.5, 4.7), (1, 2): (33.6, 1.7),
    (1, 3): (22.7, 28.2), (2, 2): (35.7, 16.1),
    (1, 4): (11.6, 7.1), (2, 3): (54.6, 1.6),
    (1, 5): (31.9, 3.3), (2, 4): (29.0, 5.3), (3, 3): (71.6, 4.4),
    (2, 5): (40.6, 11.9), (3, 4): (33.3, 27.2),
    (3, 5): (44.8, 48.0), (4, 4): (18.1, 32.1),
    (4, 5): (107.2, 13.3),      # 142.9 s at 60 iterations, scaled to the 45 the profile trains
    (5, 5): (106.0, 28.2),
}
STORE_SECONDS = 4.0      # round statistics, the rows and the publish after the last group (the same build)
# seconds of each searched group's search tables (``games.dudo.search.tables``: its leaves, then each seat's
# round-start re-solve on two threads) after the last group: the CPU seconds the build's log states ("search tables
# of 1v5: leaves 6 MB in 3.4 CPU s, root re-solves 18.5 CPU s"), of the default store's build of 2026-11-29 07:03
# (content hash d4078f8a...), what they take on a quiet machine
SEARCH_TABLE_SECONDS = {(1, 5): 21.9, (2, 4): 1.3, (2, 5): 3.7, (3, 3): 2.0, (3, 4): 3.0, (3, 5): 8.4, (4, 4): 7.0,
                        (4, 5): 21.3, (5, 5): 33.5}
# the search tables' stored first replies (``games.dudo.search.tables.first_replies``: the requester's first re-solve
# after each low opening claim of the opponent, where its subgame has ``FIRST_REPLY_LEAVES`` leaves or more: only 4v5
# and 5v5 have such rounds): the CPU seconds they add to the group's re-solves, the build's log's "stored re-solves"
# of a fresh make serve that stores them (584aea9, 2026-11-29 23:47: 4v5 44.9, 5v5 69.2 CPU s) less its "root
# re-solves" in the one before them (ceae6f5, 23:05: 19.1, 25.3 CPU s). The other groups store none; their re-solves'
# CPU differed between the two builds by -3.3..+0.1 s, the machine's, not the tables'.
FIRST_REPLY_CPU = {(4, 5): 44.9 - 19.1, (5, 5): 69.2 - 25.3}
RESOLVE_THREADS = 2     # a group's re-solves run on two threads (``group_tables``' resolver): their wall is half their CPU
# training speed-up of a group alone in its level on 2 cores (threads, ``SharedCores``): CPU / wall of 5v4 and 5v5
# in the fresh clone's build (261 / 167 s, 215 / 136 s); 1v1 trains with the reference kernel (no threads) and
# 1v2's blocks are too small for them (51 CPU s in 47 s of wall), so 1 there
THREAD_SPEEDUP = {(4, 5): 1.56, (5, 5): 1.56}

# (training wall, the rest of the group's wall: its figures, improvement, group tables) of a fresh clone's first
# `make serve` at 6f3803e (the kernels it needs late compiled beside its first groups since 4c753fc), whose build
# measures a level while the next trains (``solve_game(pipelined=True)``): ``rounds.*.train_seconds`` and
# ``group_seconds`` minus it, of the store's manifest (2 workers, quiet machine, cold numba cache, the Jotto and other
# stores in lanes beside it at nice 19; the Dudo store took 536.8 s, content hash d341c4a2...,
# docs/serving-while-building.md). Walls carry the machine's hour: the same profile's Dudo store took 643.2 s at
# 25a98cf (4v5 trained in 142.5 s against 72.1 here; 113.8 s in another run of that code), 558.2 s at d0098c9 an hour
# before this run, 542.7 s in a run of 4c753fc before it.
FRESH_CLONE_SPLIT = {
    (1, 1): (4.2, 3.7), (1, 2): (23.2, 1.6), (1, 3): (32.0, 43.7), (2, 2): (53.9, 21.8), (1, 4): (17.5, 1.8),
    (2, 3): (69.2, 2.5), (1, 5): (54.0, 5.2), (2, 4): (39.7, 6.7), (3, 3): (84.8, 5.9), (2, 5): (52.7, 15.5),
    (3, 4): (42.7, 20.7), (3, 5): (43.3, 33.8), (4, 4): (18.9, 27.9), (4, 5): (72.1, 15.1), (5, 5): (57.7, 24.5),
}


# the default profile's groups that train against CFR+ responders (DUDO_DEFAULT.train_memories(); a test checks)
TRAINED_FIRST = frozenset({(2, 3), (3, 3)})


def levels(groups, first=frozenset()) -> list[list[tuple[int, int]]]:
    """The groups by total dice in the order the builder hands them to ``map`` (``solve_game.groups_in_order``: by
    total, then a; ``solve_game.started_first``: those in ``first`` first)."""
    out: dict[int, list] = {}
    for a, b in sorted(groups, key=lambda ab: (ab[0] + ab[1], ab[0])):
        out.setdefault(a + b, []).append((a, b))
    return [started_first(out[d], dict.fromkeys(first)) for d in sorted(out)]


def level_seconds(walls: list[float], workers: int = 2) -> float:
    """Wall of one level: the groups' walls in order on ``workers`` (each group to the first free one)."""
    free = [0.0] * max(1, workers)
    for w in walls:
        i = min(range(len(free)), key=free.__getitem__)
        free[i] += w
    return max(free)


def busy_profile(walls: list[float], workers: int = 2) -> list[tuple[float, int]]:
    """[(seconds, tasks side by side)] of tasks of these walls run in order on ``workers``, each task to the first
    free one (as ``level_seconds`` schedules them), consecutive spans of as many tasks merged."""
    free = [0.0] * max(1, workers)
    spans = []
    for w in walls:
        i = min(range(len(free)), key=free.__getitem__)
        spans.append((free[i], free[i] + w))
        free[i] += w
    cuts = sorted({t for span in spans for t in span})
    out: list[tuple[float, int]] = []
    for a, b in zip(cuts, cuts[1:]):
        n = sum(1 for s, e in spans if s <= a and e >= b)
        if n and out and out[-1][1] == n:
            out[-1] = (out[-1][0] + b - a, n)
        elif n and b > a:
            out.append((b - a, n))
    return out


def dudo_default_seconds(group_cpu: dict = GROUP_CPU, workers: int = 2, store_seconds: float = STORE_SECONDS,
                         thread_speedup: dict = THREAD_SPEEDUP) -> float:
    """Expected wall seconds of the default Dudo store on ``workers`` cores from per-group CPU seconds."""
    total = store_seconds
    for level in levels(group_cpu, TRAINED_FIRST):
        if len(level) == 1 and workers > 1:
            train, rest = group_cpu[level[0]]
            total += train / thread_speedup.get(level[0], 1.0) + rest
        else:
            total += level_seconds([sum(group_cpu[g]) for g in level], workers)
    return total


def pipelined_seconds(split: dict, workers: int = 2, store_seconds: float = STORE_SECONDS) -> float:
    """Wall seconds of the pipelined build (``solve_game(pipelined=True)``) from each group's (training, the rest)
    walls: each step runs the training of one total of dice (``started_first``) and then the rest of the total
    below (in the level's order) on ``workers``, each task to the first free one; a last step the rest of the
    largest total."""
    total, below = store_seconds, []
    for level in levels(split, TRAINED_FIRST) + [[]]:
        rest = sorted(below, key=lambda ab: (ab[0] + ab[1], ab[0]))
        total += level_seconds([split[g][0] for g in level] + [split[g][1] for g in rest], workers)
        below = level
    return total


def first_build_seconds(split: dict = FRESH_CLONE_SPLIT, workers: int = 2,
                        store_seconds: float = STORE_SECONDS + sum(SEARCH_TABLE_SECONDS.values())) -> float:
    """Expected wall seconds of a first build: a fresh clone's measured walls scheduled as the builder runs them,
    then the search tables."""
    return pipelined_seconds(split, workers, store_seconds)


# Default builds of this code on this machine (2 cores shared with four other engineers' work, nice 5, numba's
# cache cold; `python -m bench.build_progress --root DIR`), each phase's wall from its work directory's files sampled
# every 2 s (a group's file in ``running/`` from its start to its end, 1v1's training the build's first step; each
# group's search tables to its marker; a group's measuring under a sampling period as 2 s): (training, measuring) of
# every group, the search tables of each searched group, the rows (about 10 s) and, after the last tables, the
# publish (its content hash). The first three made 1v5's search tables too (the profile keeps 1v5 on the rows
# since): its share drops out where the tables are not made. The second's groups took 2-5 times a quiet fresh
# clone's walls at first (their numba compile), about 2 later; in all three the first groups took far longer than
# that build's (1v2 44-108 s against 23: its code compiled less), so its walls are not among these.
MEASURED_BUILDS = {
    "2026-11-29 07:49, load 6-8, 1,205 s": (
        {(1, 1): (10.0, 10.0), (1, 2): (108.2, 2.0), (1, 3): (92.3, 72.2), (2, 2): (110.3, 22.0), (1, 4): (44.2, 2.0),
         (2, 3): (148.4, 2.0), (1, 5): (64.1, 4.0), (2, 4): (52.1, 10.0), (3, 3): (142.3, 6.0), (2, 5): (110.7, 28.1),
         (3, 4): (88.6, 32.1), (3, 5): (90.3, 54.1), (4, 4): (32.1, 54.2), (4, 5): (146.4, 26.1),
         (5, 5): (158.3, 22.0)},
        {(1, 5): 22.1, (2, 4): 2.0, (2, 5): 4.0, (3, 3): 2.0, (3, 4): 4.0, (3, 5): 10.0, (4, 4): 10.0, (4, 5): 28.0,
         (5, 5): 50.1},
        10.0 + 7.3),
    "2026-11-29 08:17, load 2-6, 658 s": (
        {(1, 1): (8.2, 2.0), (1, 2): (44.0, 2.0), (1, 3): (28.0, 28.0), (2, 2): (42.0, 16.0), (1, 4): (8.0, 2.0),
         (2, 3): (60.1, 2.0), (1, 5): (40.0, 4.0), (2, 4): (38.1, 4.0), (3, 3): (100.1, 2.0), (2, 5): (54.1, 14.0),
         (3, 4): (42.1, 20.0), (3, 5): (54.1, 48.1), (4, 4): (18.0, 32.0), (4, 5): (102.2, 10.1), (5, 5): (80.4, 14.0)},
        {(1, 5): 12.0, (2, 4): 2.0, (2, 5): 2.0, (3, 3): 2.0, (3, 4): 2.0, (3, 5): 8.0, (4, 4): 6.0, (4, 5): 18.0,
         (5, 5): 32.0},
        14.5),
    "2026-11-29 08:33, load 4 falling to 1, 440 s (1v5 on the rows)": (
        {(1, 1): (7.6, 2.0), (1, 2): (48.1, 2.0), (1, 3): (30.0, 24.0), (2, 2): (44.1, 8.0), (1, 4): (16.0, 2.0),
         (2, 3): (54.0, 2.0), (1, 5): (20.0, 2.0), (2, 4): (28.0, 2.0), (3, 3): (66.0, 2.0), (2, 5): (26.0, 6.0),
         (3, 4): (20.0, 8.0), (3, 5): (24.0, 20.0), (4, 4): (8.0, 14.0), (4, 5): (46.0, 4.0), (5, 5): (40.0, 6.0)},
        {(1, 5): 0.0, (2, 4): 8.0, (2, 5): 2.0, (3, 3): 2.0, (3, 4): 2.0, (3, 5): 6.0, (4, 4): 4.0, (4, 5): 14.0,
         (5, 5): 24.0},
        13.9),
}
# The default store's wall in a fresh clone's `make serve` (three lanes, numba's cache cold, a quiet machine: its log's
# `dudo-5dice-default: published, built in N s`; the 11:18 build's from tests/builder/data/dudo_serve_build_1118.json,
# the others' from the traces under tests/builder/data/ and docs/operations.md), every one of the profile it builds now
# (b0134ab on) with the code of its hour. A build beside the lanes starts its time left from their mean
# (``builder.dudo_progress.DudoWork``): the builds its phases' shares come from (``MEASURED_BUILDS``) ran alone on a
# loaded machine, 440-1,205 s, and a fresh make serve of the same store took 454-478 s.
SERVE_WALLS = {"2026-11-29 11:18": 459.0, "2026-11-29 14:19": 467.7, "2026-11-29 14:47": 478.3,
               "2026-11-29 16:33": 466.2, "2026-11-29 17:07": 454.4}


def serve_seconds() -> float:
    """The default store's expected wall in make serve's lanes: the mean of ``SERVE_WALLS`` and the stored first
    replies' wall (``first_reply_serve_seconds``)."""
    return sum(SERVE_WALLS.values()) / len(SERVE_WALLS) + sum(first_reply_serve_seconds().values())


def first_reply_serve_seconds() -> dict[tuple[int, int], float]:
    """(a, b) -> the wall a make serve build spends on the group's stored first replies (``FIRST_REPLY_CPU`` on
    ``RESOLVE_THREADS``; none of ``SERVE_WALLS``' builds stored them): 34.9 s, where the two builds of
    ``FIRST_REPLY_CPU`` took 110 s and 80 s from their search tables' start to their publish."""
    return {ab: cpu / RESOLVE_THREADS for ab, cpu in FIRST_REPLY_CPU.items()}


# The default store's work counted beside the lanes (``progress_walls``' weights, ``builder.dudo_progress.DudoWork``)
# against the share of its wall passed, in the four fresh make serve builds traced (14:19, 14:47, 16:33, 17:07:
# tests/builder/data/serve_lanes_build_*.json, each counted by these weights): at each twentieth of the work counted,
# the mean over the four of the share of its wall passed when its build first counted that much (a test computes it
# again from the traces). The four agree within 0.025 at every twentieth; the weights, of builds alone on a loaded
# machine, count a make serve build's first levels and its groups training alone (4v5, 5v5) up to 0.09 ahead of its
# wall, its search tables behind.
SERVE_WALL_SHARES = (0.002, 0.052, 0.070, 0.103, 0.162, 0.206, 0.258, 0.308, 0.369, 0.420, 0.476, 0.541, 0.559,
                     0.603, 0.638, 0.679, 0.729, 0.783, 0.891, 0.996, 1.000)


def serve_wall_share(counted: float) -> float:
    """The share of its wall a make serve build of the default store has passed at ``counted`` of its work
    (``SERVE_WALL_SHARES``, read linearly between its twentieths)."""
    x = min(1.0, max(0.0, counted)) * (len(SERVE_WALL_SHARES) - 1)
    k = min(int(x), len(SERVE_WALL_SHARES) - 2)
    return SERVE_WALL_SHARES[k] + (x - k) * (SERVE_WALL_SHARES[k + 1] - SERVE_WALL_SHARES[k])


# A build whose load rose eightfold in its fifth minute (2026-11-29 07:03, load 2 then 10-17, 2,128 s, 1v5's tables
# made): its later groups took 2-7 times the quiet walls where its first ones took 1.3-3.6, and its search tables
# (one process beside the steps of two workers) 22 % of its time. Not among the weights: no fixed weights follow a
# load that changes so within a build (these weights are up to 0.19 ahead on it; its own walls 0.18-0.19 off on
# the others).
RISING_LOAD_BUILD = (
    {(1, 1): (19.0, 4.0), (1, 2): (84.1, 2.0), (1, 3): (86.3, 78.3), (2, 2): (102.3, 26.3), (1, 4): (26.1, 2.0),
     (2, 3): (142.6, 2.0), (1, 5): (68.4, 16.2), (2, 4): (102.6, 60.8), (3, 3): (197.0, 12.8), (2, 5): (224.0, 48.3),
     (3, 4): (143.0, 96.0), (3, 5): (237.3, 184.7), (4, 4): (127.6, 78.2), (4, 5): (305.0, 32.1), (5, 5): (201.7, 84.6)},
    {(1, 5): 85.0, (2, 4): 2.0, (2, 5): 16.1, (3, 3): 8.0, (3, 4): 10.1, (3, 5): 40.3, (4, 4): 34.2, (4, 5): 121.1,
     (5, 5): 143.1},
    10.0 + 15.6)


def progress_walls() -> tuple[dict, dict, float]:
    """(split, search tables, store seconds): each phase's weight in the default build's progress fraction
    (``builder.dudo_progress``), the mean of its share of each of ``MEASURED_BUILDS``, in seconds of their mean
    build. A build's phases take shares of its time that depend on the machine's load, which a build cannot
    foresee: replayed on each build's work directory (sampled every 2 s), the fraction is within 0.08 of the share
    of the build's time elapsed at every sample of the three (0.064, 0.070, 0.072), up to 0.19 ahead on
    ``RISING_LOAD_BUILD``."""
    phases = [_phases(*build) for build in MEASURED_BUILDS.values()]
    totals = [sum(p.values()) for p in phases]
    scale = sum(totals) / len(totals)
    mean = {k: sum(p[k] / t for p, t in zip(phases, totals)) / len(phases) * scale for k in phases[0]}
    split = {ab: (mean[("train", ab)], mean[("measure", ab)]) for ab in FRESH_CLONE_SPLIT}
    tables = {ab: mean[("tables", ab)] for ab in SEARCH_TABLE_SECONDS}
    return split, tables, mean[("store",)]


def _phases(split: dict, tables: dict, store: float) -> dict:
    out = {("train", ab): t for ab, (t, _) in split.items()}
    out.update({("measure", ab): m for ab, (_, m) in split.items()})
    out.update({("tables", ab): w for ab, w in tables.items()})
    out[("store",)] = store
    return out
