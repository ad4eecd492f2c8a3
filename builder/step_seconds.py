"""The expected cost of each step of the default Jotto, Guess Who and Hangman builds, the weights of their progress
fraction (``builder.steps``; Dudo's: ``builder.dudo_estimate``), from builds measured on this machine.

Each measured build gives every step's wall seconds, read from the build log's time-stamped step lines by
``python -m bench.build_progress --steps --log LOG``; a step's weight is the mean of its share of each measured build
of the store, in seconds of their mean wall (as ``builder.dudo_estimate.progress_walls`` does for Dudo). A step under a
second counts as 0.5 s (the log's stamps are whole seconds).
"""
from __future__ import annotations

# rounds the default 2-letter store's exact double oracle takes to close its gap (its content is the same on every
# machine, and so are its rounds: 49 in the measured build, the full store's 37-49, docs/jotto-exact.md): its share of
# a build counts against these, not its cap of 200
EXACT_DO_ROUNDS = 49

# the exact double oracle's share of its lane's CPU seconds by rounds done, (rounds, share), its first rounds far
# cheaper than the later ones. The lanes' forecast reads a store's work counted per CPU second (builder.lane_forecast),
# and the lane counts the search of the builder's thread, not the one beside it (games.jotto.certify's second thread):
# a round's CPU there is its own search's, where its wall is the slower thread's when a core is free. Measured on the
# build in the three lanes (tests/builder/data/jotto_lanes_build_1245.json): the lane's CPU seconds when its work
# counted first reached each count, over those of the whole step. The walls of two builds alone (10:09 and 10:21,
# their logs' round lines) said 0.073, 0.211, 0.389, 0.615, 0.803 at these counts: up to 0.07 ahead of the CPU.
# Its rounds before the first count measured (11) are counted from nothing: the three make serve traces with every
# write of the progress file (16:33, 17:07, 20:00) reached round 10 at 0.029-0.035 of the lane's CPU to round 11 (13-18
# s into the store, round 11 at 32-48 s); read along the line through rounds 11 and 19 they counted below nothing to
# round 5 (-0.067 of the step at round 1) and 0.059 at round 10.
EXACT_DO_ROUND_COSTS = ((0, 0.0), (10, 0.03), (11, 0.073), (19, 0.185), (27, 0.34), (35, 0.541), (43, 0.762),
                        (EXACT_DO_ROUNDS, 1.0))

# the served value bracket's costs, (counts, share of the step done), where its exact search (its second count)
# compiles the search kernel first (numba's cache cold, the first bracket of the build's process: the 3-letter Jotto
# store of a fresh clone; games.jotto.bitset_bb.search_compiled): its first count (the rollout tree) came within a
# second of the step's 11-13 s, its second at 0.51-0.86, 0.69 or more and 0.53-0.85 of it, the bounded search's probes
# after it, in the three builds in lanes recorded (12:45, 14:19, 14:47: tests/builder/data/); its counts even (the 6
# of the 3-letter store) had it 0.1 of the store behind for most of the step
BRACKET_COMPILE_COSTS = ((1, 0.05), (2, 0.75))

# the robust hider's costs, (counts, share of the step done), where the executor's workers compile the rollout tree's
# kernel first (numba's cache cold: the 3-letter Jotto store of a fresh clone; games.jotto.kernels.rollout_compiled):
# its five rollout trees (its counts) all came in the step's last second or two, its first at 0.68 of the step or
# later, in the three make serve builds traced with step lines (14:47, 16:33, 17:07: tests/builder/data/); counted
# even, the step's time moved it to 0.9 of its first count (0.18 of it) and it stood there for 5-6 s of its 8-9
ROBUST_COMPILE_COSTS = ((1, 0.8),)

# the iterations each default Jotto store's loops ran in the measured builds (builder.profiles.DEFAULT), to scale
# other profiles' steps by
JOTTO_PARAMS: dict[int, dict] = {
    2: {"fp_iterations": 2000, "do_iterations": 40, "certify_rounds": EXACT_DO_ROUNDS},
    3: {"fp_iterations": 300, "hedge_iterations": 150, "do_iterations": 5},
    4: {"fp_iterations": 50, "hedge_iterations": 200, "do_iterations": 5},
    5: {"fp_iterations": 30, "hedge_iterations": 150, "do_iterations": 3},
}

# {build: {store: {step: wall seconds}}}: `nice -n 5 python -m bench.build_progress --root DIR --variant V ...` with the
# six stores' variants (one builder, 2 workers, numba's cache cold, smallest store first as make serve builds them),
# then `python -m bench.build_progress --steps --log DIR/.work/build.log`
MEASURED_BUILDS: dict[str, dict[str, dict[str, float]]] = {
    "2026-11-29 10:09, load 5-11 (others' work beside it), 10 min 20 s": {
        "jotto-en_US80-3-ganzfried": {
            "setup": 1.0, "fixed guessers": 25.0, "fictitious play": 1.0, "hedge": 1.0, "double oracle": 3.0,
            "hider selection": 0.5, "robust hider": 25.0, "double-oracle book": 0.5, "people's guesser": 0.5,
            "value bracket": 19.0, "figures": 0.5, "publish": 0.5},
        "guesswho-24": {"exact DP": 0.5, "optimiser races": 3.0, "figures": 0.5, "publish": 0.5},
        "hangman-en_US50-5": {"tables": 1.0, "evaluation games": 2.0, "publish": 0.5},
        "jotto-en_US80-4-ganzfried": {
            "setup": 0.5, "fixed guessers": 0.5, "fictitious play": 2.0, "hedge": 9.0, "double oracle": 8.0,
            "hider selection": 4.0, "robust hider": 11.0, "double-oracle book": 0.5, "people's guesser": 0.5,
            "value bracket": 8.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-5-ganzfried": {
            "setup": 0.5, "fixed guessers": 1.0, "fictitious play": 7.0, "hedge": 30.0, "double oracle": 10.0,
            "hider selection": 25.0, "robust hider": 77.0, "double-oracle book": 1.0, "people's guesser": 0.5,
            "value bracket": 25.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-2-ganzfried": {
            "setup": 0.5, "fixed guessers": 0.5, "fictitious play": 0.5, "double oracle": 1.0, "hider selection": 0.5,
            "double-oracle book": 0.5, "people's guesser": 0.5, "exact double oracle": 304.0, "figures": 0.5,
            "publish": 0.5},
    },
    "2026-11-29 10:21, load 4-8 (others' work beside it), 10 min 45 s": {
        "jotto-en_US80-3-ganzfried": {
            "setup": 1.0, "fixed guessers": 27.0, "fictitious play": 1.0, "hedge": 1.0, "double oracle": 6.0,
            "hider selection": 0.5, "robust hider": 35.0, "double-oracle book": 0.5, "people's guesser": 0.5,
            "value bracket": 23.0, "figures": 0.5, "publish": 0.5},
        "guesswho-24": {"exact DP": 0.5, "optimiser races": 3.0, "figures": 0.5, "publish": 0.5},
        "hangman-en_US50-5": {"tables": 2.0, "evaluation games": 3.0, "publish": 0.5},
        "jotto-en_US80-4-ganzfried": {
            "setup": 0.5, "fixed guessers": 0.5, "fictitious play": 3.0, "hedge": 7.0, "double oracle": 14.0,
            "hider selection": 4.0, "robust hider": 14.0, "double-oracle book": 0.5, "people's guesser": 0.5,
            "value bracket": 12.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-5-ganzfried": {
            "setup": 0.5, "fixed guessers": 1.0, "fictitious play": 10.0, "hedge": 24.0, "double oracle": 6.0,
            "hider selection": 22.0, "robust hider": 63.0, "double-oracle book": 1.0, "people's guesser": 0.5,
            "value bracket": 12.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-2-ganzfried": {
            "setup": 0.5, "fixed guessers": 0.5, "fictitious play": 0.5, "double oracle": 1.0, "hider selection": 0.5,
            "double-oracle book": 0.5, "people's guesser": 0.5, "exact double oracle": 333.0, "figures": 0.5,
            "publish": 0.5},
    },
    "2026-11-29 10:33, load 5-6, 7 min 0 s": {
        "jotto-en_US80-3-ganzfried": {"setup": 0.5, "fixed guessers": 14.0, "fictitious play": 1.0, "hedge": 1.0,
            "double oracle": 1.0, "hider selection": 1.0, "robust hider": 25.0, "double-oracle book": 0.5,
            "people's guesser": 0.5, "value bracket": 24.0, "figures": 0.5, "publish": 0.5},
        "guesswho-24": {"exact DP": 0.5, "optimiser races": 4.0, "figures": 0.5, "publish": 0.5},
        "hangman-en_US50-5": {"tables": 2.0, "evaluation games": 3.0, "publish": 0.5},
        "jotto-en_US80-4-ganzfried": {"setup": 0.5, "fixed guessers": 0.5, "fictitious play": 2.0, "hedge": 6.0,
            "double oracle": 8.0, "hider selection": 4.0, "robust hider": 7.0, "double-oracle book": 0.5,
            "people's guesser": 0.5, "value bracket": 7.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-5-ganzfried": {"setup": 0.5, "fixed guessers": 0.5, "fictitious play": 5.0, "hedge": 22.0,
            "double oracle": 7.0, "hider selection": 13.0, "robust hider": 36.0, "double-oracle book": 0.5,
            "people's guesser": 0.5, "value bracket": 9.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-2-ganzfried": {"setup": 0.5, "fixed guessers": 0.5, "fictitious play": 1.0,
            "double oracle": 0.5, "hider selection": 0.5, "double-oracle book": 0.5, "people's guesser": 0.5,
            "exact double oracle": 208.0, "figures": 0.5, "publish": 0.5},
    },
    "2026-11-29 10:51, load 1.5-3 (the others' work had ended), 4 min 31 s": {
        "jotto-en_US80-3-ganzfried": {"setup": 0.5, "fixed guessers": 13.0, "fictitious play": 0.5, "hedge": 0.5,
            "double oracle": 2.0, "hider selection": 0.5, "robust hider": 11.0, "double-oracle book": 0.5,
            "people's guesser": 0.5, "value bracket": 14.0, "figures": 0.5, "publish": 0.5},
        "guesswho-24": {"exact DP": 0.5, "optimiser races": 2.0, "figures": 0.5, "publish": 0.5},
        "hangman-en_US50-5": {"tables": 1.0, "evaluation games": 1.0, "publish": 0.5},
        "jotto-en_US80-4-ganzfried": {"setup": 0.5, "fixed guessers": 0.5, "fictitious play": 1.0, "hedge": 6.0,
            "double oracle": 6.0, "hider selection": 1.0, "robust hider": 4.0, "double-oracle book": 0.5,
            "people's guesser": 1.0, "value bracket": 5.0, "figures": 0.5, "publish": 1.0},
        "jotto-en_US80-5-ganzfried": {"setup": 0.5, "fixed guessers": 0.5, "fictitious play": 4.0, "hedge": 21.0,
            "double oracle": 6.0, "hider selection": 7.0, "robust hider": 20.0, "double-oracle book": 0.5,
            "people's guesser": 0.5, "value bracket": 9.0, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-2-ganzfried": {"setup": 0.5, "fixed guessers": 0.5, "fictitious play": 0.5,
            "double oracle": 0.5, "hider selection": 0.5, "double-oracle book": 0.5, "people's guesser": 0.5,
            "exact double oracle": 122.0, "figures": 0.5, "publish": 0.5},
    },
}


# a Jotto build's restricted games (builder.jotto: the hider selection's anchors, with the LP over Hedge's columns)
# ran between the steps of the builds above, so none of them timed them: their share of each default store's wall,
# from the two make serve builds whose logs time them (14:19 and 14:47, their step lines: the double oracle's
# end to the hider selection's start): 16 and 15 s of the 4-letter store's 151 and 155 s (2.5 and 2.3 of its 30.6 and
# 30.5 CPU seconds), 7 s of the 5-letter store's 286 and 292 s (shares 0.10, 0.024), when the step solved the double
# oracle's final mixture again too; without it the step keeps 0.43 of its LP seconds (4 letters 0.73 of 1.70 s,
# 5 letters 1.02 of 2.35 s, each LP timed in one standalone build of the code before at nice 5), so
# 0.10 * 0.43 / (1 - 0.10 * 0.57) and 0.024 * 0.43 / (1 - 0.024 * 0.57); the 2 and 3-letter stores' within the
# log's second, 0.5 s as any step under a second
RESTRICTED_GAMES_SHARES = {"jotto-en_US80-2-ganzfried": 0.5 / 510, "jotto-en_US80-3-ganzfried": 0.5 / 35,
                           "jotto-en_US80-4-ganzfried": 0.046, "jotto-en_US80-5-ganzfried": 0.011}


def measured_step_seconds(store: str) -> dict[str, float]:
    """{step: expected wall seconds} of a measured default store: each step's mean share of its measured builds, times
    their mean wall; a Jotto store's restricted games at their share of the store (``RESTRICTED_GAMES_SHARES``)."""
    builds = [b[store] for b in MEASURED_BUILDS.values() if store in b]
    totals = [sum(b.values()) for b in builds]
    scale = sum(totals) / len(totals)
    steps = list(dict.fromkeys(step for b in builds for step in b))
    out = {step: sum(b.get(step, 0.0) / t for b, t in zip(builds, totals)) / len(builds) * scale for step in steps}
    share = RESTRICTED_GAMES_SHARES.get(store)
    if share is not None:
        out["restricted games"] = sum(out.values()) * share / (1.0 - share)
    return out


def jotto_step_seconds(length: int, step: str) -> tuple[dict, float]:
    """(the iterations its measured builds ran, the step's expected wall seconds) in the default Jotto store of the
    word length nearest ``length`` whose builds ran the step (0 s where none did)."""
    for n in sorted(JOTTO_PARAMS, key=lambda n: (abs(n - length), n)):
        seconds = measured_step_seconds(f"jotto-en_US80-{n}-ganzfried")
        if step in seconds:
            return dict(JOTTO_PARAMS[n]), seconds[step]
    return {}, 0.0


# CPU seconds each default store's build spent (its lane's thread and worker processes, ``builder.lane_cpu``): one
# build of the six stores in make serve's three lanes on an empty root, numba's cache cold (2026-11-29 12:45, beside
# the full Dudo build: load 7), recorded from its progress file; the schedule of a build in lanes counts its stores'
# work in these (``builder.lane_forecast``), a store's CPU seconds not depending on the cores it shares as its wall does.
# The 2-letter store's at 125, not that build's 122: each of the seven make serve builds traced spent more (123.9-135.0,
# mean 128.6; tests/builder/data/serve_lanes_build_*.json), its early time left short on every one; from 126 on the
# 12:45 build's 5-letter store's time left is within 0.10 at one sample fewer (tests/bench/test_build_progress.py)
MEASURED_CPU_SECONDS: dict[str, float] = {
    "jotto-en_US80-3-ganzfried": 47.0,
    "guesswho-24": 3.0,
    "hangman-en_US50-5": 4.0,
    "jotto-en_US80-4-ganzfried": 32.0,
    "jotto-en_US80-5-ganzfried": 90.0,
    "jotto-en_US80-2-ganzfried": 125.0,
}


def _measured_store(variant: str) -> str | None:
    """The measured default store nearest ``variant``: its game's, a Jotto store's by word length."""
    if variant.startswith("jotto-"):
        try:
            length = int(variant.split("-")[2])
        except (IndexError, ValueError):
            return None
        n = min(JOTTO_PARAMS, key=lambda k: (abs(k - length), k))
        return f"jotto-en_US80-{n}-ganzfried"
    return next((s for s in MEASURED_CPU_SECONDS if s.split("-")[0] == variant.split("-")[0]), None)


def expected_cpu_seconds(variant: str, wall: float) -> float | None:
    """A store's expected CPU seconds from its expected wall seconds (its steps' measured walls, scaled to its
    parameters): at the CPU seconds a wall second of the measured default store nearest it; None where none was
    measured (Dudo)."""
    store = _measured_store(variant)
    if store is None or store not in MEASURED_CPU_SECONDS:
        return None
    measured_wall = sum(measured_step_seconds(store).values())
    return MEASURED_CPU_SECONDS[store] * wall / measured_wall if measured_wall else None
