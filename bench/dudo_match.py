"""Whole Dudo games as a client plays them: the served policy against another player, every one of its moves a
``SampleMove`` over gRPC, and its share of the games won.

  python -m bench.dudo_match [--root stores | --target HOST:PORT] [--variant dudo-5dice-default]
                             [--strategy search] [--opponent heuristic] [--pairs 50] [--seed 0]

The games are played in pairs on the same dice with the seats swapped (a duplicate match): in each round a player's
roll is the first of its dice in a row of five drawn for that seat, game and round, and the seat that opens the first
round opens it in both games, so the dice's luck mostly cancels within a pair and the pair's score (0, 0.5 or 1 for
the served side) carries the skill. The served side's win rate is the mean of the pairs' scores, +- their standard
error. Every move's ``game_seed`` is drawn from ``--seed``: the same command plays the same games.

The opponents (``--opponent``):
- ``heuristic``: a player of the kind people write first, here in the client (``heuristic_move``): it counts its
  own dice for each claim, takes the opponent's dice as binomial (a die counts for a face with probability 1/3, for
  ones 1/6), says dudo when the last claim is less likely true than ``HEURISTIC_DOUBT``, and otherwise claims the
  strongest claim at least that likely (with probability ``HEURISTIC_SPREAD`` another such claim, drawn uniformly).
- ``fsicfr`` or ``search``: the same server's other strategy (the stored rows, or the searched policy).

Without ``--target`` the bench starts a server on ``--root`` (as ``bench.dudo_search_served`` does) and waits for its
live workers before the first game. Printed: the games, the served side's wins and win rate by who opened the
first round, its answers by source (``DEGRADED``: a stored row where the policy would have searched) and the calls
that failed (each ends its game, which then counts for neither side).
"""
from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from games.dudo.rules import FACES, MAX_DICE, claim_table, count_for, next_position, strength

HEURISTIC_DOUBT = 0.5       # says dudo when the last claim is true with less than this probability
HEURISTIC_SPREAD = 0.3      # the share of its claims drawn among the plausible ones instead of the strongest


def claim_probability(roll, opponent_dice: int, n: int, face: int) -> float:
    """The probability that ``n x face`` holds, given the own ``roll`` and ``opponent_dice`` unseen dice, each
    counting for ``face`` with probability 1/3 (1/6 for ones)."""
    counts = np.bincount(np.asarray(roll, dtype=np.int64) - 1, minlength=FACES)
    need = n - count_for(counts, face)
    if need <= 0:
        return 1.0
    p = 1.0 / FACES if face == 1 else 2.0 / FACES
    return sum(math.comb(opponent_dice, k) * p ** k * (1 - p) ** (opponent_dice - k)
               for k in range(need, opponent_dice + 1))


def heuristic_move(roll, opponent_dice: int, history, rng: np.random.Generator) -> str:
    """The heuristic player's move: ``dudo`` or a claim ``NxR`` stronger than the last of ``history``."""
    total = len(roll) + opponent_dice
    if history and claim_probability(roll, opponent_dice, *history[-1]) < HEURISTIC_DOUBT:
        return "dudo"
    last = strength(*history[-1], total) if history else -1
    legal = claim_table(total)[last + 1:]
    plausible = [c for c in legal if claim_probability(roll, opponent_dice, *c) >= HEURISTIC_DOUBT]
    if not plausible:
        if history:
            return "dudo"
        plausible = [max(legal, key=lambda c: claim_probability(roll, opponent_dice, *c))]
    n, r = plausible[int(rng.integers(len(plausible)))] if rng.random() < HEURISTIC_SPREAD else plausible[-1]
    return f"{n}x{r}"


@dataclass
class Match:
    served_wins: Counter = field(default_factory=Counter)     # first opener ('served', 'opponent') -> games won
    games: Counter = field(default_factory=Counter)           # first opener -> games finished
    pair_scores: list = field(default_factory=list)
    sources: Counter = field(default_factory=Counter)          # the served side's answers by source
    failed: Counter = field(default_factory=Counter)


def ask_server(stub, variant: str, strategy: str, deadline: float):
    """A player whose moves are the server's answers: (move, source name) of a position."""
    from protos import gamestrategy_pb2 as pb

    def move(own, opp, roll, history, opened, seed):
        r = stub.SampleMove(pb.SampleMoveRequest(
            variant=variant, strategy=strategy, game_seed=seed,
            dudo=pb.DudoState(own_dice=own, opponent_dice=opp, roll=list(roll), requester_opened=opened,
                              history=[pb.DudoClaim(count=n, face=f) for n, f in history])), timeout=deadline)
        return r.move, pb.SampleMoveReply.Source.Name(r.source)
    return move


def heuristic_player(rng: np.random.Generator):
    def move(own, opp, roll, history, opened, seed):
        return heuristic_move(roll, opp, history, rng), "CLIENT"
    return move


def play_game(players, max_dice: int, first_opener: int, dice_rng_seed: tuple, move_rng: np.random.Generator,
              on_answer=None) -> int:
    """One game from max_dice v max_dice; ``players[s](own, opp, roll, history, opened, seed)`` -> (move, source).
    Seat s's roll in round k: the first of its dice in five drawn from ``(*dice_rng_seed, k, s)``. The winner's
    seat; ``on_answer(seat, source)`` for every move."""
    dice = [max_dice, max_dice]
    opener = first_opener
    for rnd in range(4 * max_dice):
        rolls = [tuple(sorted(np.random.default_rng((*dice_rng_seed, rnd, s)).integers(1, FACES + 1, 5)[:dice[s]]))
                 for s in (0, 1)]
        history: list[tuple[int, int]] = []
        mover = opener
        while True:
            move, source = players[mover](dice[mover], dice[1 - mover], rolls[mover], history, mover == opener,
                                          int(move_rng.integers(1 << 31)))
            if on_answer:
                on_answer(mover, source)
            if move != "dudo":
                history.append(tuple(int(x) for x in move.split("x")))
                mover = 1 - mover
                continue
            n, face = history[-1]
            counts = np.bincount(np.asarray(rolls[0] + rolls[1], dtype=np.int64) - 1, minlength=FACES)
            claimant = 1 - mover
            winner, _, loser_dice = next_position(dice[mover], dice[claimant], n, count_for(counts, face))
            win_seat = mover if winner == "challenger" else claimant
            dice[1 - win_seat] = loser_dice
            if loser_dice <= 0:
                return win_seat
            opener = win_seat
            break
    raise RuntimeError("a game of Dudo lasted longer than its dice allow")


def play_match(served, opponent, max_dice: int, pairs: int, seed: int) -> Match:
    """``pairs`` pairs of games between ``served`` and ``opponent`` (players as ``play_game`` takes them), the
    seats swapped within a pair on the same dice."""
    import grpc
    m = Match()
    move_rng = np.random.default_rng(seed)
    for p in range(pairs):
        first = p % 2                  # the seat opening the first round: 0 and 1 alternately, the same in the pair
        score, done = 0.0, 0
        for served_seat in (0, 1):
            players = [served, opponent] if served_seat == 0 else [opponent, served]

            def answered(seat, source, served_seat=served_seat):
                if seat == served_seat:
                    m.sources[source] += 1
            try:
                winner = play_game(players, max_dice, first, (seed, p), move_rng, answered)
            except grpc.RpcError as e:
                m.failed[e.code().name] += 1
                continue
            opened = "served" if first == served_seat else "opponent"
            m.games[opened] += 1
            m.served_wins[opened] += winner == served_seat
            score += winner == served_seat
            done += 1
        if done == 2:
            m.pair_scores.append(score / 2)
    return m


def report(m: Match, title: str) -> str:
    s = np.asarray(m.pair_scores, dtype=np.float64)
    rate = f"{s.mean():.3f} +- {s.std(ddof=1) / math.sqrt(len(s)) if len(s) > 1 else float('nan'):.3f}" if len(s) \
        else "-"
    by = ", ".join(f"opening the first round: {k} {m.served_wins[k]}/{m.games[k]}" for k in ("served", "opponent")
                   if m.games[k])
    return (f"{title}: {sum(m.games.values())} games, the served side won {sum(m.served_wins.values())}; win rate "
            f"{rate} over {len(s)} pairs on the same dice ({by}); its answers by source "
            f"{dict(sorted(m.sources.items()))}; failed calls {dict(sorted(m.failed.items())) or 'none'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.dudo_match", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="start a server on this store root (default: stores/)")
    ap.add_argument("--target", help="play against a running server at HOST:PORT instead")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--strategy", default="search", help="the served side's strategy (default: search)")
    ap.add_argument("--opponent", default="heuristic", help="heuristic, or the server's strategy fsicfr or search")
    ap.add_argument("--pairs", type=int, default=50, help="pairs of games, each pair on the same dice (default 50)")
    ap.add_argument("--deadline", type=float, default=10.0, help="each move's deadline, seconds (default 10)")
    ap.add_argument("--max-dice", type=int, default=None, help="each player's dice at the start (default: the "
                    "variant's, from its name: dudo-5dice-... 5)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.pairs < 1:
        ap.error("--pairs must be at least 1")
    named = re.search(r"-(\d+)dice", a.variant)
    max_dice = a.max_dice or (int(named.group(1)) if named else 0)
    if not 1 <= max_dice <= MAX_DICE:
        ap.error(f"--max-dice: 1..{MAX_DICE} (the variant's name does not say)")
    import grpc

    from bench.load import _start, _stop
    from games.storage import current_stores, stores_root
    from protos import gamestrategy_pb2_grpc as pb_grpc
    with tempfile.TemporaryDirectory(prefix="dudo-match-") as tmp, open(Path(tmp) / "server.log", "wb") as log:
        sp = None
        if a.target:
            target = a.target
        else:
            root = a.root or stores_root()
            stores = current_stores(root, "dudo")
            if a.variant not in stores:
                print(f"bench.dudo_match: {a.variant} is not built under {root}", file=sys.stderr)
                return 2
            sp, port = _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--metrics-port",
                               "-1", "--http-port", "-1", "--port-file", str(Path(tmp) / "server.json")],
                              Path(tmp) / "server.json", log)
            target = f"127.0.0.1:{port}"
        try:
            ch = grpc.insecure_channel(target)
            stub = pb_grpc.GameStrategyStub(ch)
            served = ask_server(stub, a.variant, a.strategy, a.deadline)

            def opponent():
                return heuristic_player(np.random.default_rng((a.seed, 1))) if a.opponent == "heuristic" else \
                    ask_server(stub, a.variant, a.opponent, a.deadline)
            if sp is not None:      # the live workers start as the store comes online: play once before counting
                play_match(served, opponent(), max_dice, 1, a.seed + 10_000)
            t0 = time.perf_counter()
            m = play_match(served, opponent(), max_dice, a.pairs, a.seed)
            print(report(m, f"{a.variant} {a.strategy} against {a.opponent} ({time.perf_counter() - t0:.0f} s)"))
            ch.close()
        finally:
            if sp is not None:
                _stop(sp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
