"""One match runner for every game: strategy A against strategy B, seats alternated, reproducible.

Game ``i`` of a match with seed ``s`` draws its randomness from ``numpy.random.Generator(PCG64(
SeedSequence([s, i])))``; A moves first in the even games and second in the odd ones. Games are played in
batches on the builder's executor (``builder.executor``: a process pool, or Dask with ``--executor dask``
/ ``--scheduler``) and fed to the race in game order, so the result does not depend on the number of
workers or where they run. A game object has ``play(first, second, rng) -> score of first in [0, 1]``
(1 win, 1/2 draw, 0 loss); strategies are picklable objects; one with a ``for_game(rng)`` method (a
mixture, a randomised baseline) picks the member playing each game from that game's generator.

CLI::

    python -m builder.evaluation.arena guesswho:optimal guesswho:bisection --delta 0.05 --cap 20000
    python -m builder.evaluation.arena hangman5:ours hangman5:seed --cap 4000 --workers 2
    python -m builder.evaluation.arena jotto-en_US80-3-ganzfried:double_oracle jotto-en_US80-3-ganzfried:benchmark
    python -m builder.evaluation.arena dudo5:dudo-5dice-default dudo5:random
    python -m builder.evaluation.arena --list
"""
from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from builder.evaluation.race import BernsteinRace, RaceResult
from builder.executor import KINDS, make_executor
from games.seeding import game_rng


def play_games(game, a, b, seed: int, start: int, stop: int) -> list[float]:
    """Scores of A in games start..stop-1 (A first in even games)."""
    out = []
    for i in range(start, stop):
        rng = game_rng(seed, i)
        ga, gb = for_game(a, rng), for_game(b, rng)
        if i % 2 == 0:
            out.append(float(game.play(ga, gb, rng)))
        else:
            out.append(1.0 - float(game.play(gb, ga, rng)))
    return out


def for_game(strategy, rng):
    """A strategy that is a mixture (or draws its parameters per game) picks its member here."""
    pick = getattr(strategy, "for_game", None)
    return pick(rng) if pick is not None else strategy


@dataclass
class MatchResult(RaceResult):
    a: str = ""
    b: str = ""
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __str__(self) -> str:
        return (f"{self.a} vs {self.b}: {super().__str__()}; W/D/L {self.wins}/{self.draws}/{self.losses}")


_POOLS: dict[int, Executor] = {}
_DEFAULT = None


def use_executor(executor) -> None:
    """Run every match's game batches on ``executor`` (a ``builder.executor`` executor)."""
    global _DEFAULT
    _DEFAULT = executor


def _pool(workers: int):
    if _DEFAULT is not None:
        return _DEFAULT
    if workers not in _POOLS:
        import atexit
        _POOLS[workers] = make_executor("process", workers)
        atexit.register(_POOLS[workers].close)
    return _POOLS[workers]


def add_executor_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--executor", choices=KINDS, default="process")
    ap.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run games on this Dask scheduler")


def start_executor(args) -> None:
    """Install the executor the CLI flags ask for (``--executor dask`` / ``--scheduler``)."""
    if args.executor == "dask" or args.scheduler:
        use_executor(make_executor("dask", args.workers, args.scheduler))


def match(game, a, b, seed: int = 0, delta: float = 0.05, cap: int = 10_000, workers: int = 1,
          batch: int = 64, executor: Executor | None = None, min_games: int = 2) -> MatchResult:
    """Play A against B until the empirical Bernstein race separates them or ``cap`` games."""
    race = BernsteinRace(delta=delta, cap=cap, min_games=min_games)
    scores: list[float] = []
    ex = executor if executor is not None else (_pool(workers) if workers > 1 or _DEFAULT is not None else None)
    nxt = 0
    while not race.done:
        if ex is None:
            chunks = [play_games(game, a, b, seed, nxt, min(nxt + batch, cap))]
            nxt = min(nxt + batch, cap)
        else:
            futs = []
            nw = workers if executor is None else max(workers, 1)
            for _ in range(nw):
                if nxt >= cap:
                    break
                futs.append(ex.submit(play_games, game, a, b, seed, nxt, min(nxt + batch, cap)))
                nxt = min(nxt + batch, cap)
            chunks = [f.result() for f in futs]
        for chunk in chunks:
            for x in chunk:
                if race.done:
                    break
                race.add(x)
                scores.append(x)
        if nxt >= cap and not race.done:  # cannot happen: the race stops at the cap
            break
    r = race.result()
    s = np.asarray(scores)
    return MatchResult(r.verdict, r.games, r.score, r.low, r.high, r.delta,
                       a=getattr(a, "name", str(a)), b=getattr(b, "name", str(b)),
                       wins=int((s == 1).sum()), draws=int((s == 0.5).sum()), losses=int((s == 0).sum()))


def mean_score(game, a, b, games: int, seed: int = 0, workers: int = 1) -> float:
    """Plain average score of A over a fixed number of games (seats alternated)."""
    if workers <= 1 and _DEFAULT is None:
        return float(np.mean(play_games(game, a, b, seed, 0, games)))
    ex = _pool(workers)
    step = -(-games // workers)
    futs = [ex.submit(play_games, game, a, b, seed, s, min(s + step, games)) for s in range(0, games, step)]
    return float(np.mean([x for f in futs for x in f.result()]))


# ------------------------------------------------------------------------------ served Jotto strategies
@dataclass(frozen=True)
class JottoServed:
    """A guesser strategy (and its hider) of a published Jotto store, by name ("" = the served one)."""
    name: str = ""


class JottoStore:
    """The strategies of a published Jotto store, played as the server plays them on their own path: the
    game seed draws the mixture member, which answers from the book where it has an entry, else live."""

    def __init__(self, store):
        from games.jotto.dictionary import Variant, dictionary_from_words
        from games.jotto.oracle import JottoOracle
        from games.jotto.store import COMMON, read_strategies

        m = store.manifest
        self.store = store
        self.dictionary = dictionary_from_words(Variant.parse(m["variant"]), list(m["words"]),
                                                common=store.array(COMMON))
        self.oracle = JottoOracle(self.dictionary)
        self.strategies = read_strategies(store)
        self.served = m["served"]

    def hider_word(self, strategy: str, seed: int) -> int:
        return self.strategies[strategy or self.served].hider_word(seed)

    def guesses(self, strategy: str, seed: int, secret: int) -> int:
        """Guesses the strategy's member for ``seed`` needs to find ``secret``."""
        from games.jotto.store import book_moves

        s = self.strategies[strategy or self.served]
        c = s.member_for_seed(seed)
        guesses, answers = [], []
        for n in range(1, 200):
            state = self.oracle.consistent(guesses, answers)
            mv = (book_moves(self.store, s.name, self.oracle.D, state) or {}).get(c)
            if mv is None:
                mv = s.move(self.oracle, c, state)
            if mv == secret:
                return n
            guesses.append(mv)
            answers.append(int(self.oracle.C[mv, secret]))
        raise RuntimeError("guesser did not finish")


_JOTTO: dict = {}


@dataclass(frozen=True)
class JottoStoreGame:
    """Jotto between two served strategies of one store: each hides a word (its hider distribution) for
    the other and guesses the other's word with its guesser; fewer guesses wins, equal is a draw. The store
    is opened in each process on first use (LMDB never crosses a fork)."""
    variant: str
    root: str = ""
    name: str = "jotto"

    def reader(self) -> JottoStore:
        key = (self.root, self.variant)
        if key not in _JOTTO:
            _JOTTO[key] = JottoStore(_open_store(self.root, "jotto", self.variant))
        return _JOTTO[key]

    def play(self, first, second, rng) -> float:
        r = self.reader()
        sa, sb = (int(x) for x in rng.integers(0, 2**62, size=2))
        for_first = r.hider_word(second.name, sb)
        for_second = r.hider_word(first.name, sa)
        n1 = r.guesses(first.name, sa, for_first)
        n2 = r.guesses(second.name, sb, for_second)
        return 1.0 if n1 < n2 else 0.5 if n1 == n2 else 0.0


def _open_store(root: str, game: str, variant: str):
    from games.storage import Store, current_stores, stores_root

    r = stores_root(root)
    path = current_stores(r, game).get(variant)
    if path is None:
        raise ValueError(f"no published {game} store {variant!r} under {r}")
    return Store(path)


# ------------------------------------------------------------------------------- served Dudo strategies
@dataclass(frozen=True)
class DudoServed:
    """The strategy of a published Dudo store (``variant``), or ``random`` (uniform over legal moves)."""
    variant: str
    root: str = ""

    @property
    def name(self) -> str:
        return self.variant


class DudoStore:
    """The strategy of a published Dudo store, played as the server plays it: the stored row of the
    information set, or (a round the store's games never reach) the game solved live with enough dice."""

    def __init__(self, store):
        from games.dudo.build.params import DudoParams
        from games.dudo.store import store_memories

        self.store = store
        self.params = DudoParams(**store.manifest["parameters"])
        self.memories = store_memories(store.manifest)
        self._live: dict = {}

    def distribution(self, own: int, opp: int, roll, history, opened: bool):
        from games.dudo.abstraction.dag import round_reachable
        from games.dudo.rules import MAX_DICE
        from games.dudo.build.solve_game import solve_params
        from games.dudo.build.params import DudoParams
        from games.dudo.store import read_row

        opener, other = (own, opp) if opened else (opp, own)
        need = next(d for d in range(max(own, opp), MAX_DICE + 1) if round_reachable(opener, other, d))
        if need <= self.params.max_dice:
            return read_row(self.store, self.memories, own, opp, tuple(sorted(roll)), history)
        if need not in self._live:
            p = self.params
            self._live[need] = solve_params(DudoParams(max_dice=need, iterations=p.iterations, memory=p.memory,
                                                       perfect_recall_total=p.perfect_recall_total,
                                                       exact_br_total=0), progress=False)
        dist = self._live[need].action_distribution(own, opp, tuple(sorted(roll)), history)
        return np.array([a for a, _ in dist]), np.array([q for _, q in dist])


_DUDO: dict = {}


def _dudo_store(root: str, variant: str) -> DudoStore:
    key = (root, variant)
    if key not in _DUDO:
        _DUDO[key] = DudoStore(_open_store(root, "dudo", variant))
    return _DUDO[key]


@dataclass(frozen=True)
class DudoGame:
    """Two-player Dudo from ``dice`` dice each (rules: games/dudo/rules.py): rounds of claims until a
    "dudo"; the challenge's loser loses dice and its winner opens the next round; a player without dice
    has lost. ``first`` opens the first round. A strategy is a :class:`DudoServed` (its store answers
    every decision, drawn with a seed from the game's generator as a SampleMove call would)."""
    dice: int = 1
    name: str = "dudo"

    def _act(self, strategy, own, opp, roll, history, opened, rng) -> int:
        from games.dudo.rules import num_claims
        from games.seeding import seeded_pick

        total = own + opp
        if strategy.variant == "random":
            legal = list(range(history[-1] + 1 if history else 0, num_claims(total)))
            if history:
                legal.append(-1)
            return int(legal[rng.integers(len(legal))])
        seed = int(rng.integers(0, 2**62))
        actions, probs = _dudo_store(strategy.root, strategy.variant).distribution(own, opp, roll, history, opened)
        return int(actions[seeded_pick(probs, seed, 100 + len(history))])

    def play(self, first, second, rng) -> float:
        from games.dudo.rules import claim, count_for, next_position

        players, dice, opener = (first, second), [self.dice, self.dice], 0
        while True:
            rolls = [tuple(sorted(int(x) for x in rng.integers(1, 7, size=dice[i]))) for i in (0, 1)]
            history: list[int] = []
            mover = opener
            while True:
                a = self._act(players[mover], dice[mover], dice[1 - mover], rolls[mover], history,
                              mover == opener, rng)
                if a >= 0:
                    if history and a <= history[-1]:
                        raise ValueError(f"{players[mover].name}: claim {a} not above {history[-1]}")
                    history.append(a)
                    mover = 1 - mover
                    continue
                if not history:
                    raise ValueError(f"{players[mover].name}: dudo with no claim")
                n, r = claim(history[-1], dice[0] + dice[1])
                counts = np.zeros(6, dtype=int)
                for roll in rolls:
                    for f in roll:
                        counts[f - 1] += 1
                challenger, claimant = mover, 1 - mover
                who, win_dice, lose_dice = next_position(dice[challenger], dice[claimant], n, count_for(counts, r))
                winner = challenger if who == "challenger" else claimant
                if lose_dice <= 0:
                    return 1.0 if winner == 0 else 0.0
                dice[winner], dice[1 - winner] = win_dice, lose_dice
                opener = winner
                break


# ------------------------------------------------------------------------------------------ registry
def _published(game: str, variant: str) -> None:
    """Fail early (in the parent, without opening LMDB) when a store is not published."""
    from games.storage import current_stores, stores_root

    root = stores_root()
    have = current_stores(root, game)
    if variant not in have:
        raise ValueError(f"no published {game} store {variant!r} under {root} (have: {', '.join(sorted(have)) or 'none'})")


def resolve(spec: str):
    """``game:strategy`` -> (game, strategy). Games: guesswho[N], hangman<L> (e.g. hangman5), and a
    published Jotto store by variant name (``jotto-en_US80-3-ganzfried:fp``)."""
    if ":" not in spec:
        raise ValueError(f"{spec!r}: expected GAME:STRATEGY")
    gname, sname = spec.split(":", 1)
    if gname.startswith("jotto-"):
        _published("jotto", gname)
        return JottoStoreGame(gname), JottoServed("" if sname in ("", "served") else sname)
    if gname.startswith("dudo"):
        if sname != "random":
            _published("dudo", sname)
        return DudoGame(int(gname[len("dudo"):] or 1)), DudoServed(sname)
    if gname.startswith("guesswho"):
        from games.guesswho import game as gw
        n = int(gname[len("guesswho"):] or gw.N_DEFAULT)
        game = gw.GuessWhoGame(n)
        fixed = {"bisection": gw.Bisection(), "optimal": gw.ExactOptimal(), "random": gw.RandomBaseline(),
                 "random-parametric": gw.RandomParametric(), "nica": gw.Parametric.nica()}
        if sname in fixed:
            return game, fixed[sname]
        if sname.startswith("param="):
            theta = tuple(float(x) for x in sname[len("param="):].split(","))
            return game, gw.Parametric(theta, name=sname)
        raise ValueError(f"guesswho strategy {sname!r}: one of {sorted(fixed)} or param=a,b,c,d")
    if gname.startswith("hangman"):
        from builder.evaluation import hangman
        return hangman.resolve(gname, sname)
    raise ValueError(f"unknown game {gname!r} (guesswho, hangman<L>)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.evaluation.arena", description=__doc__.split("\n\n")[0])
    ap.add_argument("a", nargs="?")
    ap.add_argument("b", nargs="?")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--cap", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--list", action="store_true", help="list the strategy names")
    add_executor_args(ap)
    args = ap.parse_args(argv)
    if args.list or not (args.a and args.b):
        print("guesswho[N]:{bisection,optimal,random,random-parametric,nica,param=behind,shift,frac,pow2}")
        print("hangman<L>[m<misses>]:{seed,ours,<seedwords|uniform|hardwords>+<seedletters|scored|scored=a,b,k,d,e>}")
        print("<jotto variant of a published store>:{served,double_oracle,fp,benchmark,beeler}")
        print("dudo<D>:{random,<dudo variant of a published store, e.g. dudo-5dice-default>}")
        return 0 if args.list else 2
    try:
        game_a, a = resolve(args.a)
        game_b, b = resolve(args.b)
    except ValueError as e:
        print(f"builder.evaluation.arena: {e}", file=sys.stderr)
        return 2
    if game_a != game_b:
        print(f"{args.a} and {args.b} are not strategies of the same game", file=sys.stderr)
        return 2
    try:
        start_executor(args)
    except RuntimeError as e:
        print(f"builder.evaluation.arena: {e}", file=sys.stderr)
        return 2
    r = match(game_a, a, b, seed=args.seed, delta=args.delta, cap=args.cap, workers=args.workers, batch=args.batch)
    print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
