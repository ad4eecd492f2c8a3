"""What `make build-stores` (full) and the first `make serve` (default) build."""
from games.dudo.build.params import DudoParams
from builder.jotto import JottoParams

# the real game (5 dice a player) with a memory per dice group chosen by budget (games.dudo.build.budget): at
# most 25 s of modelled training (one core) and 1.5 GB per group, so perfect recall at 1v1, m = 4 at 1v2,
# 3 at 1v3 and 2v2, 2 at 1v4, 2v3 and 3v3, 1 elsewhere (1v5 and 6 or more dice); iterations per total of dice
# in play, fewer where an iteration costs more (README, "Dudo", has its measured figures). Beyond 4 dice in
# play each round's exploitability is the lower bound of a responder remembering m + 1 claims where it fits
# 4 GiB and 30 s modelled, not the abstraction's own bound, which at m = 1 says little: measured on the first
# run with m = 1 from 6 dice in play, a responder remembering 2 claims gained 0.19 at 3v3, 0.53 at 4v4 and 0.65
# at 5v5 (the abstraction's own bounds said 0.06, 0.18 and 0.24). So the groups from 6 dice in play that had
# m = 1 get m = 2 (memory_by_group), in the minutes the first run had left. Each of those rounds also gets
# the perfect-recall improvement of that responder (games.dudo.measure.lbr), 30 sampled rounds per responder roll and
# seat: about a minute of CPU for every round together (research.dudo_lbr), standard errors about 0.001.
# 5v4 and 5v5 train 60 iterations (against 30) and 2v2 remembers 4 claims (against 3), by measurement (default builds
# of this profile and of variants on one quiet machine, 2 workers; improvement figures, 30 games): the 5v5
# figure covers the whole game (its best response plays on through every later round), and 60 iterations there
# and at 5v4 took it from 0.308 to 0.273 for 73 s more of the build (242 -> 315 s), where memory 3 in the
# groups of 5-6 dice in play (1v4, 2v3, 3v3) bought 0.296 for 70 s, and memory 3 or 3-24-2 up to 4v4 bought
# 0.280 for 380 s. 2v2 with m = 4 trains beside 1v3 in the same level and takes no wall time: its exact
# figure goes from 0.042 to 0.025.
# 2v3 and 3v3 keep memory 2 but train against CFR+ responders remembering 3 claims (games.dudo.build.cfrbr: the
# least exploitable memory-2 strategy instead of the equilibrium of the memory-2 game), 100 and 50 iterations:
# a default build on one quiet machine took 3v3's improvement from 0.192 to 0.076 and 2v3 / 3v2's from
# 0.088 / 0.097 to 0.047 / 0.048, and the rounds above them inherit it: 4v4 0.263 -> 0.224, 5v5 (the whole
# game) 0.272 -> 0.242; the first run went from 8 min 18 s to 10 min 18 s (its Dudo build 340 -> 464 s; the
# two groups' levels take about 50 s more, 2v3 31 s and 3v3 51 s alone in a level on 2 cores)
# A fresh clone's `make serve` at 4335129 took 834 s for this store (the estimate said 464). The kernels of
# docs/dudo-speed.md build the same store (content hash 9ac1e712...) in 915 CPU s serially (cold numba cache, shared
# machine), 1.41x faster an iteration at 5v5 and 1.13x at 5v4, and 3v3 (CFR-BR) starts first in its level;
# builder.dudo_estimate models 588 s on 2 cores. The groups up to 8 dice in play alone take about 387 s there, so
# 400 s needs the profile to change: 30 iterations at 5v4 and 5v5 (instead of 60) would model 507 s and take the
# 5v5 figure from 0.244 to 0.280 (5v4 0.213 -> 0.225).
# 5v4 trains 45 iterations (not 60), by measurement (docs/dudo-speed.md "Iterations at 9 and 10 dice":
# `python -m research.dudo_curve --group 4v5 --memory 2 --responder 2 --games 30 --points 30,45,60` on the default
# store's continuations, improvement of the store's responder): 5v4's figure
# 0.2253 / 0.2154 / 0.2127 at 30 / 45 / 60 iterations (+-0.0015), so the last 15 buy 0.003 for 47 s of a one-core
# level on the first run's critical path; 5v5's 0.2517 / 0.2500 / 0.2437 at 45 / 50 / 60 keeps 60. Simultaneous
# updates at 5v4 (one pass an iteration instead of two) reached 0.2154 only at 80 iterations (116 CPU s against 98);
# quadratic or cubic averaging and predictive CFR+ at 5v5 gained at most 0.006 at 30-40 iterations, none of them
# the 20 iterations' worth that would pay for a change.
# rounds of 6 or more dice in play are served by depth-2 continual re-solving with 14 own claims, 100 DCFR
# iterations a re-solve and int8 leaves (docs/dudo-search-serving.md, sections 5-6 and 8): the setting that cuts the
# exact figure of 1v2 / 2v1 2.1-2.7 times with CFR+, about a second of CPU a 5v5 move; DCFR's discounted regrets
# cut the default store's searched 1v2 / 2v1 from 0.00719 / 0.01136 (CFR+) to 0.00631 / 0.00589 at the same
# iterations (research.dudo_exact_searched --regrets); except 5v1 (group {1, 5}), where the
# lookahead responder finds more against the searched policy than against the rows (0.0047 +- 0.0002 against
# 0.0034 +- 0.0002, 100 rounds a seat, docs/dudo-search-serving.md section 8), as on the exact rounds; and the
# exact round 2v1, where the searched policy's exact figure is lower than the rows' (0.00589 against 0.00674; 1v2's
# is higher, 0.00631 against 0.00304): its tables are built with the store, and `builder.measure_search` walks it and
# serves it by search only if that holds for the store built
LARGE_SEARCH = (6, 2, 100, 14, ((1, 5),), "dcfr", ((2, 1),))
DUDO_DEFAULT = DudoParams(max_dice=5, iterations=300, memory_budget=1500 << 20, time_budget=25.0, label="default",
                          iterations_by_total=((5, 200), (6, 200), (7, 100), (8, 50), (9, 45), (10, 60)),
                          bound_memory=1, bound_budget=4 << 30, bound_time_budget=30.0, improve_games=30,
                          memory_by_group=(((2, 2), 4),) + tuple(((a, b), 2) for a, b in (
                              (2, 4), (1, 5), (2, 5), (3, 4), (3, 5), (4, 4), (4, 5), (5, 5))),
                          train_memory_by_group=(((2, 3), 3), ((3, 3), 3)),
                          iterations_by_group=(((2, 3), 100), ((3, 3), 50)),
                          large_search=LARGE_SEARCH)
# the real game with a memory per dice group chosen by budget (games.dudo.build.budget; `python -m
# builder.dudo_report --plan full` prints the plan): at most 2.5 GiB of tables and 900 s of modelled
# training (one core, at the iteration cap) per group, so perfect recall at 1v1 and 1v2, m = 5 at 2v2,
# 4 at 1v3 and 2v3 (but see below), 3 at 1v4, 1v5, 2v4 and 3v3, 2 elsewhere; beyond 4 dice in play each round's
# exploitability is the lower bound of a responder remembering m + 1 claims where its tables fit 3.5 GiB
# and 120 s (modelled), else the abstraction's own (m' = m: 1v5, 4v5 and 5v5).  Two groups of one total run
# at once, so the peak is at most about two groups' tables plus their bounds: modelled 7.1 GB at 8 dice,
# measured about half of that (bench.dudo_cost; the bound of 3v5 at m' = 3: 1.84 GB peak, modelled 3.68).
# Each group trains to its floor (stop_rel: less than 10% better over a doubling of the iterations;
# the iterations per total of dice in play are caps); `builder.dudo_report --plan full` models about 340 min
# on 2 workers at the caps (the model overestimates large groups up to 3x); measured 1 h 51 min (249ef09)
# Two groups take their memory by measurement instead (research.dudo mtable, exact best response, the
# training rule of this profile): 1v3 with m = 6 reaches 3.5e-3 at 128 iterations and 1.7e-3 at 256
# (m = 4: 6.6e-3 at its floor, m = 5: 6.0e-3), 2v2 with m = 6 reaches 0.0108 at 512 and 0.0058 at
# 1024, still 46% better over that doubling (m = 4 and 5 stop at 0.014-0.015), so 2v2 trained up to
# 2048 and 1v3 up to 256; modelled 2,250 and 940 s, in parallel. 2v2 now stops at 1536: the full build of
# 653bf0f measured 0.0102 at 512, 0.0051 at 1024 and 0.0022 at 2048 (in 632 and 1,334 s of training), so 1536
# stays below 0.005 and frees about 350 s of the build's wall for 3v4 below.
# Four more take one claim more than the time budget gave them, by measurement with the perfect-recall
# improvement (games.dudo.measure.lbr, the same responder class for both): 3v3 with m = 4 (this profile's rule, the
# full store's continuations) reaches 0.046 against 0.114 with m = 3, in 528 s of one core for 300 iterations
# (the cost model said 1,218 s: it overestimates these groups about twofold); 3v4, 4v4 and 2v5 go from m = 2 to
# 3 on the same evidence (m = 1 -> 2 halved the default store's bounds there); every one fits the table budget
# (1.7-2.0 GB modelled). Their bound's m + 1 does not fit, so their exact-valued figure is the abstraction's
# own and the improvement is the comparable one.
# Beyond 5 dice in play the groups remember by claim strength (games.dudo.abstraction.infoset.Schedule): one claim more
# while the last claim is low, where windows are few (C(L, k - 1) windows of k claims end at strength L). On
# 3v3 (this profile's rule, the full store's continuations, improvement of the memory-4 responder) m = 3 reaches
# 0.114 with 7,807 windows, 4-18-3 0.079 with 10,867, 4-24-3 0.056 with 18,433 and m = 4 0.046 with 66,712:
# most of the gain of the fourth claim is where the last claim is below 24 of 36. Each schedule below fits
# the table budget (1.2-2.7 GB modelled) at about twice the old group's modelled time per iteration.
# 4v4 remembers 4 claims below strength 24, 3 below 32, then 2 (not 4-16-3), by measurement (research.dudo_memory
# on the default store's continuations, this profile's rule, the improvement of one memory-4-24-3 responder for
# all): 4-16-3 0.2553 +- 0.0010 in 521 s of training, 4-20-3-30-2 0.2472 in 312 s, 4-20-3-36-2 0.2444 in 349 s,
# 4-24-3-32-2 0.2303 +- 0.0011 in 464 s (96 iterations each, the floor): the perfect-recall responder's gain
# lies where the last claim is 18-29 of 48 (research.dudo_lbr --gain-bucket), and claims above 32 are few.
# 3v4 remembers 4-24-3-32-2 (not 4-18-3), by the same measurement (cap 96): 3v4 / 4v3 0.1628 / 0.1590 with 4-18-3
# in 349 s of training, 0.1474 / 0.1467 +- 0.001 with 4-24-3-32-2 in 493 s (2.65 GB modelled).
# 5v5 and 4v5 remember 3 claims below strength 28 (5v5, against 20) and 24 (4v5, against 18): on the full store their
# own shares (research.dudo_lbr --local) were the largest, 0.067 and 0.062, with the gain at strengths 16-35; 1.7x
# and 1.5x the windows (5,107 and 3,510; 2.1 and 2.3 GB modelled), all the 2-hour build had room for
# with 3v4's. Measured by the full build of b4490bb against the cuts at 20 and 18: 5v5 0.123 against 0.128, 5v4
# 0.113 against 0.114, 3v4 0.056 against 0.058, but the own shares of 5v4 and 5v5 stayed 0.062 and 0.067: the gain
# moved above the new cuts.
# 5v5 trains up to 288 iterations: a cap of 150 stopped it there with its own bound still 17% better over its last
# doubling, and on that store's continuations its perfect-recall improvement (research.dudo_curve, 20 games) was
# 0.1312 / 0.1257 / 0.1203 at 72 / 144 / 288 iterations (own bound 0.0995 / 0.0822 / 0.0766), about 700 s more.
# The full build of 249ef09 measured 5v5 0.121 against 0.123 at the cap of 150, in a wall of 1 h 50 min 39 s against
# 1 h 35 min.
DUDO_FULL = DudoParams(max_dice=5, iterations=1000, memory_budget=5 << 29, time_budget=900.0, label="full",
                       memory_by_group=(((1, 3), 6), ((2, 2), 6), ((3, 3), "5-18-4"), ((2, 4), "4-24-3"),
                                        ((3, 4), "4-24-3-32-2"), ((2, 5), "4-14-3"), ((4, 4), "4-24-3-32-2"),
                                        ((3, 5), "3-24-2"), ((4, 5), "3-24-2"), ((5, 5), "3-28-2")),
                       iterations_by_group=(((1, 3), 256), ((2, 2), 1536)),
                       stop_rel=0.1, bound_memory=1, bound_budget=7 << 29, bound_time_budget=120.0,
                       improve_games=100,
                       iterations_by_total=((2, 8000), (3, 400), (4, 1000), (5, 400), (6, 300), (7, 200), (8, 200),
                                            (9, 150), (10, 288)),
                       large_search=LARGE_SEARCH)

# Ganzfried's Table 1 iteration counts for the full fictitious-play baseline. The rollout guesser runs
# in the full profile only (measured in the same load, docs/jotto.md): its double-oracle columns made the
# default 3-letter double oracle about 12 times slower, and with only its figures and the people's
# guesser on 2-3 letters the default Jotto build still took 264 CPU s against 191 (numba compiles its
# kernels in every worker; its trees take minutes at 5 letters). So the default stores' people's guesser
# is GBR against the common words, and their figures are against GBR. The exact best response (2 letters)
# takes seconds to minutes per hider, so only the full profile computes it.
# The default 5-letter double oracle runs 100 rounds (against 30) after 30 fictitious-play iterations (against
# 100; they only seed it) in about the CPU the faster GBR scan and the kept member trees freed (docs/jotto.md;
# serial build with numba's compile, load 4-6: 227 CPU s against 220): its epsilon against GBR 0.325 ->
# 0.198 (the rounds' average hider among the served hider's anchors; 0.193 with 100 fictitious-play
# iterations, 283 CPU s).
_ROLLOUT_DO = ("gbr", "rollout")
_NO_ROLLOUT = dict(people_oracle="gbr")
# Since Hedge (games.jotto.solvers.solve_hedge) the greedy responses to Hedge's hiders seed the double oracle of
# 3-5 letters: at 5 letters 200 Hedge iterations alone reach a restricted-game guarantee of 6.897 in about a
# minute of one core, where 30 fictitious-play iterations and 100 double-oracle rounds reached 7.183 (epsilon
# 0.198); the double oracle's rounds after Hedge add little (its LP over Hedge's columns is slow), so a few
# remain. The 2-letter default is unchanged (epsilon 0 already). The served hider is chosen against GBR and the
# rollout oracle together (robust_hider: five rollout trees, about a minute of one core at 5 letters, paid for
# at 5 letters by 150 Hedge iterations instead of 200 and 3 double-oracle rounds instead of 5): chosen
# against GBR alone, the 3-letter default's hider exploited GBR (epsilon 0.005) and lost to the rollout guesser
# (0.518, the exact epsilon in [0.518, 1.708]; before Hedge 0.178 against GBR and [0.329, 1.240] exact).
# Certification (builder.jotto._certify, docs/jotto-exact.md): the default 2-letter store states the game's value bracket
# [the guesser's exact best response to the served hider, the served guarantee], both ends exact (one exact
# search, a few CPU seconds); the full 2-letter store runs the double oracle with exact oracles on both sides
# (strategy exact_do, served where its guarantee is the smallest) and 3-5 letters state the bracket around the
# served pair with the lower end from a bounded search (labelled with its budget). docs/jotto-exact.md.
# With the bitset kernel (games.jotto.bitset_bb, about 8 CPU s an exact search on 2 letters) and two exact
# trees a round (certify_both), the double oracle seeded with either store's members closed the 2-letter gap
# to under 1e-6 (value 7.689873) in 37-49 exact searches, about 330 CPU s (research.jotto_exact --lp-hider-too,
# docs/jotto-exact.md), so the full profile runs it to the end; the default one keeps one exact search (the
# default set's 10 minutes). The 3-5 letter budgets are not measured yet (no full build ran with them).
# Heuristic pricing (games.jotto.pricing; JottoParams.certify_pricing*, set by no profile) takes the default
# members' guarantee from 7.93 to about 7.70 three times faster, but the exact searches of the end remain: the
# whole run closed in 266.8 CPU s at best against the baseline's ~355 (docs/jotto-exact.md, third pass), above the
# ~90 s the default build could add, so the default 2-letter store kept certify="served".
# With the kernels borrowing their arrays (games.borrow) a cold default build takes about 383 s against 453 without
# (723 CPU s against 851), and the exact search 8 % less: the default 2-letter store runs the full
# profile's exact double oracle to the end (205 s alone for the whole store on one thread, about 185 CPU s of it
# certification, the same settings as the full store's; its second search a round in a second thread), so both
# 2-letter stores serve exact_do at the game's value. The cold default build: 482 s (922 CPU s) alone on the
# machine, against 380-385 s without it (docs/jotto-exact.md, "The default 2-letter store solved too").
# The default 3-5 letter stores state the bracket around their served pair too, with budgets of a few
# CPU seconds (research.jotto_bracket on the default stores: 3 letters [6.037296, 7.263366] in 3.1 CPU s with 4 probes
# of 20,000 states; 4 letters [5.999128, 7.036324] in 7.1 s with 3 of 5,000; 5 letters [5.906988, 6.898188] in 14.1 s
# with 2 of 1,000), so that no `make serve` user reads a greedy-oracle epsilon of 0 as "solved".
DEFAULT = {
    "jotto-en_US80-2-ganzfried": JottoParams(fp_iterations=2000, do_iterations=40, certify="exact",
                                             certify_rounds=200, certify_nodes=20_000_000, certify_both=True,
                                             **_NO_ROLLOUT),
    "jotto-en_US80-3-ganzfried": JottoParams(fp_iterations=300, do_iterations=5, hedge_iterations=150, robust_hider=True,
                                             certify="served", certify_nodes=20_000, certify_steps=4, **_NO_ROLLOUT),
    "jotto-en_US80-4-ganzfried": JottoParams(fp_iterations=50, do_iterations=5, hedge_iterations=200, robust_hider=True,
                                             certify="served", certify_nodes=5_000, certify_steps=3, **_NO_ROLLOUT),
    "jotto-en_US80-5-ganzfried": JottoParams(fp_iterations=30, do_iterations=3, hedge_iterations=150, robust_hider=True,
                                             certify="served", certify_nodes=1_000, certify_steps=2, **_NO_ROLLOUT),
}
# Fictitious play runs Ganzfried's Table 1 iteration counts on 2 and 3 letters; on 4 and 5 letters (where they
# took 2.7 and 15 minutes of one core: fictitious play is sequential) it only seeds the double oracle, and
# Hedge finds the columns: the four stores within 15 minutes on 2 cores (docs/jotto.md). Where the build computes
# rollout figures and the double oracle has no rollout columns (4-5 letters), the served hider is the least
# exploitable by GBR and the rollout oracle together (solvers.select_robust_hider); the double oracle's rounds
# after Hedge (5.5 s each at 5 letters, its LP over Hedge's columns) lowered the guarantee by 0.002 in 20 rounds.
FULL = {
    "jotto-en_US80-2-ganzfried": JottoParams(fp_iterations=22212, do_iterations=150, do_oracles=_ROLLOUT_DO,
                                             rollout_figures=True, exact_max_words=100, hedge_iterations=200,
                                             certify="exact", certify_rounds=200, certify_nodes=20_000_000,
                                             certify_both=True),
    "jotto-en_US80-3-ganzfried": JottoParams(fp_iterations=10694, do_iterations=100, do_oracles=_ROLLOUT_DO,
                                             rollout_figures=True, hedge_iterations=300, certify="served",
                                             certify_nodes=200_000, certify_steps=8),
    "jotto-en_US80-4-ganzfried": JottoParams(fp_iterations=1000, do_iterations=15, rollout_figures=True,
                                             hedge_iterations=400, certify="served", certify_nodes=20_000,
                                             certify_steps=6),
    "jotto-en_US80-5-ganzfried": JottoParams(fp_iterations=300, do_iterations=10, rollout_figures=True,
                                             hedge_iterations=300, certify="served", certify_nodes=5_000,
                                             certify_steps=6),
    # the published guesser figures on this list are against a uniform secret over all its words
    # the people's guesser looks one level further at the states of more than 8 words, trying 16 words
    # (docs/jotto.md, uniform secret, mean / worst guesses: the rollout guesser 6.6137 / 9; lookahead 8 words
    # above 100 words 6.6053 / 10, 24 above 100 6.5979 / 10, 8 above 30 6.6007 / 9, 16 above 8 6.5937 / 9
    # in 355 CPU s; python -m research.jotto_strength people --variant jotto-file.sgb-5-distinct1 --secret uniform)
    "jotto-file.sgb-5-distinct1": JottoParams(fp_iterations=300, do_iterations=20, people_secret="uniform",
                                              rollout_figures=True, people_lookahead=(16, 8), hedge_iterations=300),
}
DEFAULT[DUDO_DEFAULT.variant] = DUDO_DEFAULT
FULL[DUDO_FULL.variant] = DUDO_FULL
# Guess Who (exact DP + a tuned parametric policy) and Symmetric Hangman (word lengths 4..8)
from builder.guesswho import GuessWhoParams  # noqa: E402
from builder.hangman import HangmanParams  # noqa: E402

DEFAULT["guesswho-24"] = GuessWhoParams(24, budget=100_000)
FULL["guesswho-24"] = GuessWhoParams(24, budget=300_000)
# letter-rule parameters for 5 letters: the seed method's pick on a 4000-game budget, raced better than
# the default rule (python -m builder.evaluation.optimisers hangman5 --budget 4000 --cap 300 --seed 1); other lengths
# keep the default
HANGMAN5_TUNED = (1.507, 1.076, 1.319, 1.577, 1.387)
DEFAULT["hangman-en_US50-5"] = HangmanParams(5, theta=HANGMAN5_TUNED, eval_games=100)
for _L in range(4, 9):
    FULL[f"hangman-en_US50-{_L}"] = HangmanParams(_L, theta=HANGMAN5_TUNED if _L == 5 else HangmanParams().theta,
                                                 eval_games=1000)
PROFILES = {"default": DEFAULT, "full": FULL}

# Expected build seconds of the default stores (the build order, smallest first, and the progress file's
# estimates until a build on this root measures its own: games.buildprogress.TIMES_FILE). Jotto: a fresh
# clone's first `make serve` at ca4999c (2 workers, quiet machine, numba's compile included); 2 letters (its exact
# double oracle) `python -m builder --profile default --variant jotto-en_US80-2-ganzfried
# --executor serial` alone at nice 10, numba's cache warm (205.4 s; 54.8 s on the fresh clone of 2c80687 with one
# exact search); 4 letters the
# mean of two such builds on 2026-11-27 (4335129: 46.9 s; 2c80687: 47.1 s); 5 letters since every greedy tree
# scans all test words at once (2bbcaad): the default build of the four Jotto stores by one builder, 2 workers,
# numba's cache warm (60.1 s; 233-294 s before, on fresh clones); Dudo: builder.dudo_estimate.first_build_seconds,
# the training and measuring walls of the fresh clone at 6f3803e scheduled as the pipelined build runs them
# (530.0 s for its 536.8 s; 625.2 s for 643.2 s at 25a98cf; 647.5 s for 660.8 s at 51e144a; before, level by
# level, 755 s for 757 s at 2c80687,
# and a constant 464 s where a fresh clone took 834 s, docs/dudo-speed.md);
# the 3-5 letter figures plus their brackets' certification (3.0 / 5.6 / 8.3 CPU s, the default
# build of the three on 2 workers); Guess Who and Hangman: `python -m builder --profile default --variant V` alone
# at nice 19 on 2 shared cores (load average about 8), wall seconds of the whole command, 2026-11-27.
from builder.dudo_estimate import first_build_seconds  # noqa: E402

EXPECTED_SECONDS = {
    "jotto-en_US80-2-ganzfried": 205.4,
    "jotto-en_US80-3-ganzfried": 16.7,
    "jotto-en_US80-4-ganzfried": 52.6,
    "jotto-en_US80-5-ganzfried": 68.4,
    "dudo-5dice-default": round(first_build_seconds(), 1),
    "guesswho-24": 19.9,
    "hangman-en_US50-5": 25.9,
}
