"""The expected cost of each step of the default Jotto, Guess Who and Hangman builds, the weights of their progress
fraction (``builder.steps``; Dudo's: ``builder.dudo_estimate``), from builds measured on this machine.

Each measured build gives every step's wall seconds, read from the build log's time-stamped step lines by
``python -m bench.build_progress --steps --log LOG``; a step's weight is the mean of its share of each measured build
of the store, in seconds of their mean wall (as ``builder.dudo_estimate.progress_walls`` does for Dudo). A step under a
second counts as 0.5 s (the log's stamps are whole seconds).
"""
from __future__ import annotations

# rounds the exact double oracle takes to close the 2-letter gap (37-49 measured, docs/jotto-exact.md): its share
# of a build counts against these, not its cap
EXACT_DO_ROUNDS = 50

# the iterations each default Jotto store's loops ran in the measured builds (builder.profiles.DEFAULT), to scale
# other profiles' steps by
JOTTO_PARAMS: dict[int, dict] = {
    2: {"fp_iterations": 2000, "do_iterations": 40, "certify_rounds": EXACT_DO_ROUNDS},
    3: {"fp_iterations": 300, "hedge_iterations": 150, "do_iterations": 5},
    4: {"fp_iterations": 50, "hedge_iterations": 200, "do_iterations": 5},
    5: {"fp_iterations": 30, "hedge_iterations": 150, "do_iterations": 3},
}

# {build: {store: {step: wall seconds}}}
MEASURED_BUILDS: dict[str, dict[str, dict[str, float]]] = {
    "2026-11-29, load 10-14 (an older build without the setup and robust hider steps)": {
        "jotto-en_US80-2-ganzfried": {
            "setup": 0.5, "fixed guessers": 0.5, "fictitious play": 3, "double oracle": 2, "hider selection": 0.5,
            "double-oracle book": 0.5, "people's guesser": 0.5, "exact double oracle": 945, "figures": 0.5,
            "publish": 0.5},
        "jotto-en_US80-3-ganzfried": {
            "setup": 0.5, "fixed guessers": 3, "fictitious play": 1, "hedge": 1, "double oracle": 5,
            "hider selection": 1, "robust hider": 1, "double-oracle book": 0.5, "people's guesser": 0.5,
            "value bracket": 96, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-4-ganzfried": {
            "setup": 0.5, "fixed guessers": 0.5, "fictitious play": 9, "hedge": 10, "double oracle": 17,
            "hider selection": 12, "robust hider": 12, "double-oracle book": 0.5, "people's guesser": 1,
            "value bracket": 41, "figures": 0.5, "publish": 0.5},
        "jotto-en_US80-5-ganzfried": {
            "setup": 0.5, "fixed guessers": 8, "fictitious play": 17, "hedge": 155, "double oracle": 43,
            "hider selection": 122, "robust hider": 122, "double-oracle book": 1, "people's guesser": 1,
            "value bracket": 110, "figures": 0.5, "publish": 0.5},
        "guesswho-24": {"exact DP": 1, "optimiser races": 1, "figures": 1, "publish": 1},
        "hangman-en_US50-5": {"tables": 1, "evaluation games": 1, "publish": 1},
    },
}


def measured_step_seconds(store: str) -> dict[str, float]:
    """{step: expected wall seconds} of a measured default store: each step's mean share of its measured builds, times
    their mean wall."""
    builds = [b[store] for b in MEASURED_BUILDS.values() if store in b]
    totals = [sum(b.values()) for b in builds]
    scale = sum(totals) / len(totals)
    steps = list(dict.fromkeys(step for b in builds for step in b))
    return {step: sum(b.get(step, 0.0) / t for b, t in zip(builds, totals)) / len(builds) * scale for step in steps}


def jotto_step_seconds(length: int, step: str) -> tuple[dict, float]:
    """(the iterations its measured builds ran, the step's expected wall seconds) in the default Jotto store of the
    word length nearest ``length`` whose builds ran the step (0 s where none did)."""
    for n in sorted(JOTTO_PARAMS, key=lambda n: (abs(n - length), n)):
        seconds = measured_step_seconds(f"jotto-en_US80-{n}-ganzfried")
        if step in seconds:
            return dict(JOTTO_PARAMS[n]), seconds[step]
    return {}, 0.0
