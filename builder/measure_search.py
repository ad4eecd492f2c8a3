"""State the served policy's figures of a Dudo store's searched rounds: the lookahead responder
(``games.dudo.serving.respond``) against the policy a server answers (``games.dudo.policy.served.served_policy``: the same
dispatch and tasks as the server, strategy ``search``), each round's own share, both seats summed; published as a
new version of the store (its data unchanged, the figures added to its manifest's rounds), which a server swaps in.

  python -m builder.measure_search [--root stores] [--variant dudo-5dice-default] [--rounds 5v5,4v4] [--games 40]
                                  [--processes 2] [--whole-game]

Each measured round gets ``served_exploitability`` (a lower bound, in win probability, the responder's value
summed over both seats less 1) with ``served_exploitability_stderr``, ``served_games`` (sampled rounds a seat),
``served_responder`` and ``served_kind``; the stored rows' figures stay beside them under their own names.

``--whole-game``: the figure from each round's start with every later round as served (``whole_game``): the
rounds are measured fewest dice first, each on the later rounds' figures as the responder's values there; every
round a game reaches below the given ones gets ``served_game_exploitability`` (its stderr, per-seat values, games
and kind). A bad argument exits 2 with one line.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def served_seat_policy(store, opener: int, other: int, strategy: str = "search"):
    """``policy_for_seat(resp_is_opener) -> policy(hist)`` of the served policy facing the responder in the round
    ``opener`` v ``other`` (strategy ``search``)."""
    from games.dudo.reference import exact_check as xc
    from games.dudo.serving.endgame_store import store_blueprint, store_W
    from games.dudo.abstraction.infoset import history_window
    from games.dudo.serving.large_search import SearchedPolicy
    from games.dudo.search.endgame import EndgamePolicy
    from games.dudo.policy.served import served_policy, served_rounds
    from games.dudo.store import store_memories
    path = str(store.path)
    sr = served_rounds(store.manifest, EndgamePolicy())     # the server's policy (server.backends.dudo.ENDGAME)
    seats: dict = {}

    def large_round(own, opp, hist):
        opened = len(hist) % 2 == 0
        key = (own, opp, opened)
        if key not in seats:
            seats[key] = SearchedPolicy(path, own, opp, opened)
        return seats[key](hist)

    stored = xc.stored_policy(lambda key: store.get("windows", key), store_memories(store.manifest), history_window)
    served = served_policy(stored, store_blueprint(store), store_W(store.manifest), sr.endgame,
                           rounds=sr.resolves, large={r: large_round for r in sr.large}, strategy=strategy)

    def policy_for_seat(resp_is_opener: bool):
        own, opp = (other, opener) if resp_is_opener else (opener, other)
        return lambda hist: served(own, opp, tuple(hist))

    return policy_for_seat, seats


def measure(store, rounds, games: int, seed: int, depth: int, width: int, log=print,
            strategy: str = "search", processes: int = 2) -> dict:
    """{round name: manifest updates} of the served policy's figures in ``rounds``; ``processes`` 2: the two
    seats at once (the same figures)."""
    from games.dudo.serving.respond import respond_on_store
    out = {}
    for opener, other in rounds:
        t0 = time.perf_counter()
        policy_for_seat, seats = served_seat_policy(store, opener, other, strategy)
        r = respond_on_store(policy_for_seat, (opener, other), store, games, seed, depth=depth, width=width,
                             parallel_seats=processes > 1)
        resolves = sum(p.resolves for p in seats.values())
        out[f"{opener}v{other}"] = dict(
            served_exploitability=r["value"], served_exploitability_stderr=r["stderr"], served_games=float(games),
            served_responder=r["responder"],
            served_kind=f"lower bound: {r['responder']} against the searched policy, {games} sampled rounds a seat "
                        f"(the round's own share)")
        log(f"{opener}v{other} ({strategy}): {r['value']:.4f} +- {r['stderr']:.4f} ({r['responder']}, {games} rounds "
            f"a seat, "
            f"{resolves} re-solves{' in one seat' if processes > 1 else ''}, {time.perf_counter() - t0:.0f} s)")
    return out


# sampled rounds a seat by dice in play, from each round's cost (docs/dudo-search-serving.md section 8: a 5v5 round
# about 29 s a seat on one core, a 5v4 15 s, the 6-dice rounds about 1 s)
WHOLE_GAME_GAMES = {2: 200, 3: 200, 4: 200, 5: 100, 6: 100, 7: 60, 8: 40, 9: 24, 10: 48}


def whole_game_games(round_: tuple[int, int]) -> int:
    return WHOLE_GAME_GAMES.get(sum(round_), 24)


def later_rounds(manifest: dict, tops) -> list[tuple[int, int]]:
    """The rounds (opener, other) a game reaches from the rounds ``tops`` (themselves included), fewest dice
    first: after a challenge the loser has lost a die or more, and either player opens the next round."""
    known = {tuple(int(x) for x in name.split("v")) for name in manifest["rounds"]}
    seen, todo = set(), list(tops)
    while todo:
        a, b = todo.pop()
        if (a, b) in seen or (a, b) not in known:
            continue
        seen.add((a, b))
        for k in range(1, max(a, b)):
            todo += [(a - k, b), (b, a - k), (a, b - k), (b - k, a)]
    return sorted(seen, key=lambda r: (sum(r), r))


def exact_as_served(st: dict) -> bool:
    """The round's stated figures are exact and of the policy served there (the stored rows, or an exact round
    searched whose figures are the searched policy's), so a whole-game measurement takes them as they are."""
    from games.dudo.measure.bound import EXACT, kind_of
    from games.dudo.policy.served import SERVED_BOOK, SERVED_SEARCHED, searched_exact
    return kind_of(st) == EXACT and (st.get("served", SERVED_BOOK) in (SERVED_BOOK, SERVED_SEARCHED)
                                     or searched_exact(st))


def exact_candidates(store) -> list[tuple[int, int]]:
    """The exact rounds whose seats' search tables the store keeps (``LargeSearchSpec.exact_rounds``) and whose
    searched policy has no exact figure yet."""
    from games.dudo.serving.large_search import spec_of
    spec, rounds = spec_of(store.manifest), store.manifest["rounds"]
    if spec is None:
        return []
    return [r for r in spec.exact_rounds
            if f"{r[0]}v{r[1]}" in rounds and "search_exploitability" not in rounds[f"{r[0]}v{r[1]}"]]


def exact_searched_round(store, opener: int, other: int, processes: int = 2, log=print) -> dict:
    """Manifest updates of an exact round ``opener`` v ``other`` whose search tables the store keeps: the exact
    perfect-recall best response (``continual.seat_best_response``, every claim history walked) to the searched
    policy the server answers there (``serving.large_search``'s resolver on the store's tables) in each seat, the
    later rounds as the store states them.  Where ``served.serves_search`` takes it (below the rows' exact figure),
    the round is served by search with these figures, the rows' kept as ``stored_*``; else the rows stay served and
    the searched figure is recorded beside them (``search_exploitability``)."""
    from games.dudo.measure.exploit import payoff_tables
    from games.dudo.policy.searched import searched_updates
    from games.dudo.policy.served import SERVED_SEARCH_LARGE
    from games.dudo.search.continual import seat_best_response
    from games.dudo.serving.endgame_store import store_W
    from games.dudo.serving.large_search import seat_resolver, spec_of
    from games.dudo.serving.respond import both_seats_forked
    man = store.manifest
    D = opener + other
    W = {r: v for r, v in store_W(man).items() if sum(r) < D}
    below = {tuple(int(x) for x in k.split("v")): v for k, v in man["rounds"].items()
             if sum(int(x) for x in k.split("v")) < D}
    bo = {r: v["br_opener"] for r, v in below.items()}
    bn = {r: v["br_other"] for r, v in below.items()}
    t0 = time.perf_counter()

    def seat(resp_opens: bool) -> float:
        own, opp = (other, opener) if resp_opens else (opener, other)
        pol, _ = seat_resolver(str(store.path), own, opp, not resp_opens)
        return seat_best_response(pol, payoff_tables(own, opp, W, bo, bn))

    seats = both_seats_forked(seat) if processes > 1 else {s: seat(s) for s in (True, False)}
    figs = dict(br_opener=seats[True], br_other=seats[False], exploitability=seats[True] + seats[False] - 1.0)
    st = man["rounds"][f"{opener}v{other}"]
    upd = searched_updates(st, figs, spec_of(man).label(), SERVED_SEARCH_LARGE)
    upd["search_wall_seconds"] = time.perf_counter() - t0
    log(f"{opener}v{other} searched, exact: {figs['exploitability']:.6g} against the stored rows' "
        f"{st['exploitability']:.6g}: served {'by search' if 'stored_exploitability' in upd else 'by the rows'} "
        f"({upd['search_wall_seconds']:.0f} s)")
    return upd


def whole_game(store, tops, games_of, seed: int, depth: int, width: int, log=print, strategy: str = "search",
               processes: int = 2, seat_policy=served_seat_policy) -> dict:
    """{round name: manifest updates} of the served policy's figure from each round's start to the game's end, for
    every round a game reaches from ``tops``: the rounds fewest dice first, each measured by the lookahead responder
    as ``measure`` does but valuing the later rounds by their own whole-game figures against the served policy
    (the responder's per-seat winning probabilities there: its leaf tables and its payoffs at the round's end), so
    the responder is one strategy for the whole game and its value a lower bound of the served policy's
    exploitability from the round's start.  A round with an exact figure of the policy served there
    (``exact_as_served``) enters with that figure's seats.  ``games_of(round)``: sampled rounds a seat; ``seat_policy(store, opener, other,
    strategy) -> (policy_for_seat, searched seats)``: the policy measured (``served_seat_policy``).

    The later rounds' figures enter a seat's value linearly, with weights (the probabilities of reaching them)
    summing to at most one, so whatever their correlation the error they carry in has a standard deviation of at
    most the largest of theirs, M; it is independent of the round's own sampling, so a seat's standard error is
    sqrt(own^2 + M^2) and the two seats' sum sqrt(own_opener^2 + own_other^2 + (2 M)^2)."""
    import numpy as np

    from games.dudo.serving.respond import respond_on_store
    resp_open, resp_other, seat_err, out = {}, {}, {}, {}
    for a, b in later_rounds(store.manifest, tops):
        st = store.manifest["rounds"][f"{a}v{b}"]
        if exact_as_served(st):
            resp_open[(a, b)], resp_other[(a, b)], seat_err[(a, b)] = st["br_opener"], st["br_other"], 0.0
            continue
        carried = max((seat_err[r] for r in later_rounds(store.manifest, [(a, b)]) if r != (a, b)), default=0.0)
        games = games_of((a, b))
        t0 = time.perf_counter()
        policy_for_seat, seats = seat_policy(store, a, b, strategy)
        r = respond_on_store(policy_for_seat, (a, b), store, games, seed, resp_open=dict(resp_open),
                             resp_other=dict(resp_other), depth=depth, width=width, parallel_seats=processes > 1)
        resp_open[(a, b)], resp_other[(a, b)] = r["br_opener"], r["br_other"]
        seat_err[(a, b)] = float(np.hypot(max(r["br_opener_stderr"], r["br_other_stderr"]), carried))
        stderr = float(np.hypot(r["stderr"], 2 * carried))
        out[f"{a}v{b}"] = dict(
            served_game_exploitability=r["value"], served_game_stderr=stderr,
            served_game_br_opener=r["br_opener"], served_game_br_other=r["br_other"], served_game_games=float(games),
            served_game_own_stderr=r["stderr"],
            served_game_kind=f"lower bound: {r['responder']} against the served policy from the round's start to the "
                             f"game's end, every later round as served (measured the same way, fewest dice first; "
                             f"exact rounds by their exact figures), {games} sampled rounds a seat in this round")
        log(f"{a}v{b} whole game ({strategy}): {r['value']:.4f} +- {stderr:.4f} (own {r['stderr']:.4f}; "
            f"opener {r['br_opener']:.4f}, other {r['br_other']:.4f}; {games} rounds a seat, "
            f"{sum(p.resolves for p in seats.values())} re-solves, {time.perf_counter() - t0:.0f} s)")
    return out


def publish_with(store, root: Path, updates: dict) -> Path:
    """A new version of ``store`` under ``root``: every database copied, the manifest's rounds updated."""
    def update(man: dict) -> None:
        for name, upd in updates.items():
            man["rounds"][name].update(upd)
    return publish_changed(store, root, update)


def publish_changed(store, root: Path, change) -> Path:
    """A new version of ``store`` under ``root``: every database copied, the manifest as ``change(manifest)`` leaves
    a copy of it."""
    import json

    from games.storage import StoreWriter
    man = json.loads(json.dumps(store.manifest))
    change(man)
    for k in ("content_hash", "store_version", "build_time", "format_version"):
        man.pop(k, None)
    with store.env.begin() as txn:
        names = sorted(k.decode() for k, _ in txn.cursor() if k != b"meta")
    with StoreWriter(root, "dudo", man["variant"]) as writer:
        for name in names:
            writer.put_many(name, store.items(name))
        return writer.publish(man)


def _rounds(text: str):
    try:
        return [tuple(int(x) for x in r.split("v")) for r in text.split(",") if r]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: rounds as OPENERvOTHER, comma-separated (5v5,4v5)") from None


def main(argv=None) -> int:
    from games.storage import Store, StoreError, current_stores, stores_root
    ap = argparse.ArgumentParser(prog="python -m builder.measure_search", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="the store root (default: stores/)")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--rounds", type=_rounds, default=None, help="rounds to measure (default: every searched one)")
    ap.add_argument("--games", type=int, default=None, help="sampled rounds a seat (default 40; with --whole-game "
                    "by dice in play, 48 at 5v5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--depth", type=int, default=1, help="the responder's lookahead depth")
    ap.add_argument("--width", type=int, default=4, help="the responder's replies looked at")
    ap.add_argument("--processes", type=int, choices=(1, 2), default=2, help="2: the two seats at once")
    ap.add_argument("--whole-game", action="store_true", help="the figure from each round's start to the game's "
                    "end, every later round as served, for every round a game reaches from --rounds (sampled rounds "
                    "a seat by dice in play unless --games is given)")
    ap.add_argument("--rows", action="store_true", help="measure the stored rows (strategy fsicfr) with the same "
                    "responder instead, for comparison: printed, nothing published")
    ap.add_argument("--unmeasured", action="store_true", help="every Dudo store under --root whose searched rounds "
                    "have no whole-game figure yet, measured with --whole-game and published one after another "
                    "(none: nothing to do, exit 0); what `make serve` runs after its build")
    a = ap.parse_args(argv)
    if a.games is not None and a.games < 2:
        print(f"measure_search: --games {a.games}: at least 2 sampled rounds a seat (a standard error needs two)",
              file=sys.stderr)
        return 2
    root = a.root or stores_root()
    if a.unmeasured:
        return _measure_unmeasured(root, a)
    path = current_stores(root, "dudo").get(a.variant)
    if path is None:
        print(f"measure_search: no Dudo store {a.variant!r} under {root}", file=sys.stderr)
        return 2
    try:
        store = Store(path)
    except StoreError as e:
        print(f"measure_search: {e}", file=sys.stderr)
        return 2
    large = searched_rounds(store)
    rounds = a.rounds or large
    if not large or any(r not in large for r in rounds):
        print(f"measure_search: {a.variant} searches the rounds {', '.join(f'{x}v{y}' for x, y in large) or 'none'}",
              file=sys.stderr)
        return 2
    return _measure_and_publish(store, root, rounds, a)


def searched_rounds(store) -> list[tuple[int, int]]:
    """The rounds searched on the store's tables that the responder measures: those without an exact figure of the
    searched policy."""
    from games.dudo.policy.served import served_rounds
    from games.dudo.search.endgame import EndgamePolicy
    rounds = store.manifest["rounds"]
    return sorted(r for r in served_rounds(store.manifest, EndgamePolicy()).large
                  if not exact_as_served(rounds[f"{r[0]}v{r[1]}"]))


def _measure_and_publish(store, root: Path, rounds, a) -> int:
    strategy = "fsicfr" if a.rows else "search"
    if a.whole_game:
        games_of = whole_game_games if a.games is None else (lambda r: a.games)
        updates = whole_game(store, rounds, games_of, a.seed, a.depth, a.width, strategy=strategy,
                             processes=a.processes)
    else:
        updates = measure(store, rounds, 40 if a.games is None else a.games, a.seed, a.depth, a.width,
                          strategy=strategy, processes=a.processes)
    if a.rows:
        return 0
    print(f"published {publish_with(store, root, updates)}", flush=True)
    return 0


def _walk_exact_rounds(store, root: Path, processes: int):
    """The store with its exact candidate rounds' searched figures stated (``exact_searched_round``), published as a
    new version where there were any; else the store itself."""
    from games.storage import Store
    todo = exact_candidates(store)
    if not todo:
        return store
    print(f"measure_search: walking {store.manifest['variant']}'s searched policy on the exact rounds "
          f"{', '.join(f'{x}v{y}' for x, y in todo)}", flush=True)
    updates = {f"{x}v{y}": exact_searched_round(store, x, y, processes, log=lambda m: print(m, flush=True))
               for x, y in todo}
    path = publish_with(store, root, updates)
    print(f"published {path}", flush=True)
    return Store(path)


def _measure_unmeasured(root: Path, a) -> int:
    from games.storage import Store, StoreError, current_stores
    a.whole_game, a.rows = True, False
    todo = []
    for variant, path in sorted(current_stores(root, "dudo").items()):
        try:
            store = _walk_exact_rounds(Store(path), root, a.processes)
        except StoreError as e:
            print(f"measure_search: {variant}: {e}; not measured", flush=True)
            continue
        large = searched_rounds(store)
        if large and any("served_game_exploitability" not in store.manifest["rounds"][f"{x}v{y}"] for x, y in large):
            todo.append((variant, store, large))
    if not todo:
        print("measure_search: every searched Dudo round's figure is stated; nothing to do", flush=True)
        return 0
    for variant, store, large in todo:
        print(f"measure_search: measuring {variant}'s served policy, the whole game from each searched round "
              f"({len(large)} rounds)", flush=True)
        _measure_and_publish(store, root, large, a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
