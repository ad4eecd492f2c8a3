"""gamestrategy: command line for the service, every game.

  gamestrategy variants [--json]
  gamestrategy sample VARIANT [--seed N] [--strategy S] [--distribution] [--json] and the game's state:
    Jotto      --role guesser --history tears:2,lions:1  |  --role hider [--common-secret]
    Dudo       --roll 3,5 --opponent-dice 2 [--own-dice 2] [--claims 1x4,2x6] [--opened me|opponent]
    Hangman    --action word  |  --action letter --opponent-word WORD --asked LETTERS --pattern PATTERN
    Guess Who  --own-count 7 --opponent-count 12
  gamestrategy stats [VARIANT] [--all] [--json]
  gamestrategy review TRANSCRIPT.json [--json]   (an AnalyzeGameRequest in JSON: docs/review.md; waits at least
                                                 REVIEW_SECONDS unless --timeout is longer)

A variant's game is its name's first part (jotto-, dudo-, hangman-, guesswho-). --json prints the reply in
the protobuf JSON mapping (as the HTTP API does). A bad argument exits 2 with one line on stderr; a fault
the service reports exits 2 (INVALID_ARGUMENT, NOT_FOUND: an unknown variant) or 1 (UNAVAILABLE: a variant still
being built, retry) with its status on one line; a closed output pipe
(`gamestrategy variants | head -1`) ends quietly with 141, as a process ended by SIGPIPE; output that cannot
be written (a full disk) exits 1 with one line.
"""
from __future__ import annotations

import argparse
import json
import os
import re

# gRPC core logs a failed TLS handshake at INFO on stderr; the command says it in one line of its own
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
import sys

import grpc
from google.protobuf import json_format

from clients.client import (GameStrategyClient, dudo_request, guesswho_request, hangman_request,
                            jotto_request)
from clients.diagnose import answered_by_service, explain_unavailable
from clients.tables import building_lines, number as _number, review_lines, table as _table
from protos import gamestrategy_pb2 as pb

GAMES = {"jotto": "Jotto", "dudo": "Dudo", "hangman": "Hangman", "guesswho": "Guess Who"}
# sample's options of each game (dest names)
STATE_OPTIONS = {"jotto": ("role", "history", "common_secret"),
                 "dudo": ("roll", "own_dice", "opponent_dice", "claims", "opened"),
                 "hangman": ("action", "opponent_word", "asked", "pattern"),
                 "guesswho": ("own_count", "opponent_count")}
# stats: the figures (or labels) each game shows in its table, when a strategy has them
COLUMNS = {"jotto": ("guarantee", "hider_vs_gbr", "epsilon_hider", "epsilon_guesser", "epsilon", "gap",
                     "mixture_size"),
           "dudo": ("served", "memory", "iterations", "value", "exploitability", "br_opener", "br_other", "br_kind",
                    "improved_exploitability", "improved_stderr"),
           "hangman": ("mean_solo_asks", "mean_solo_asks_scored", "ours_vs_seed", "ours_vs_seed_games",
                       "hard_words", "words"),
           "guesswho": ("vs_optimal", "vs_bisection", "optimal_first_mover")}
SIGPIPE_EXIT = 141
REVIEW_SECONDS = 120.0  # a review is live work: it waits at least this long


class UsageError(Exception):
    """A bad argument: one line on stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints the usage too and exits; one line is the rule here
        raise UsageError(f"{self.prog}: {message}")


def _history(text: str) -> list[tuple[str, int]]:
    out = []
    for item in filter(None, text.split(",")):
        word, sep, jots = item.partition(":")
        if not sep or not jots.strip().isdigit():
            raise argparse.ArgumentTypeError(f"history item {item!r} must be WORD:JOTS")
        out.append((word.strip(), int(jots)))
    return out


def _seed(text: str) -> int:
    if not re.fullmatch(r"\d+", text.strip()) or int(text) >= 2 ** 64:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed: a whole number 0..2**64-1")
    return int(text)


def _count(text: str) -> int:
    if not re.fullmatch(r"\d{1,9}", text.strip()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a count: a whole number 0 or more")
    return int(text)


def _roll(text: str) -> list[int]:
    faces = [x.strip() for x in text.split(",")] if text.strip() else []
    if not all(re.fullmatch(r"\d", f) for f in faces):
        raise argparse.ArgumentTypeError(f"roll {text!r} must be your dice's faces, 1..6, separated by commas (3,5)")
    return [int(f) for f in faces]


def _claims(text: str) -> list[tuple[int, int]]:
    out = []
    for item in filter(None, (x.strip() for x in text.split(","))):
        m = re.fullmatch(r"(\d{1,3})\s*[xX]\s*(\d)", item)
        if not m:
            raise argparse.ArgumentTypeError(f"claim {item!r} must be COUNTxFACE (2x5: two fives), claims "
                                             f"separated by commas, oldest first")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def _timeout(text: str) -> float:
    try:
        t = float(text)
    except ValueError:
        t = -1.0
    if not 0 < t < 1e6:
        raise argparse.ArgumentTypeError(f"{text!r} is not a timeout: seconds, more than 0")
    return t


def parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="gamestrategy", description="client of the game-strategy service")
    ap.add_argument("--target", default="127.0.0.1:50051", metavar="HOST:PORT",
                    help="the server's gRPC address (default: %(default)s, what `make serve` listens on)")
    ap.add_argument("--timeout", type=_timeout, default=10.0, metavar="SECONDS",
                    help="each call's deadline in seconds (default: %(default)s; review waits at least "
                         f"{REVIEW_SECONDS:.0f})")
    ap.add_argument("--tls", action="store_true", help="TLS with the system roots (implied by --tls-ca/--tls-cert)")
    ap.add_argument("--tls-ca", help="PEM file of the CA that signed the server certificate")
    ap.add_argument("--tls-cert", help="client certificate (PEM), for mutual TLS")
    ap.add_argument("--tls-key", help="client private key (PEM), for mutual TLS")
    ap.add_argument("--server-name", help="expected name in the server certificate (default: the target host)")
    ap.add_argument("--token-file", help="file holding the bearer token (default: $GAMESTRATEGY_TOKEN)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    va = sub.add_parser("variants", help="list the served variants and strategies")
    va.add_argument("--json", action="store_true", help="the ListVariants reply as JSON")
    sp = sub.add_parser("sample", help="sample a move of any game",
                        description="One move of the variant's strategy at a state of its game.")
    sp.add_argument("variant", help="a served variant (`gamestrategy variants` lists them): jotto-..., dudo-..., "
                                    "hangman-..., guesswho-...")
    sp.add_argument("--seed", type=_seed, default=0,
                    help="game seed, 0..2**64-1 (default 0): the same seed and state give the same move, drawn from "
                         "the strategy's distribution, so an unlikely move can come out; another seed draws again, "
                         "--distribution shows every move's probability")
    sp.add_argument("--strategy", default="", help="one of the variant's strategies (`gamestrategy variants` lists "
                                                   "them; default: the one it serves); another name is refused")
    sp.add_argument("--distribution", action="store_true", help="also the whole move distribution")
    sp.add_argument("--json", action="store_true", help="the SampleMove reply as JSON")
    g = sp.add_argument_group("Jotto")
    g.add_argument("--role", choices=["guesser", "hider"], help="guesser (default): the next test word; hider: a secret")
    g.add_argument("--history", type=_history, help="the test words so far with their jots: WORD:JOTS,WORD:JOTS,...")
    g.add_argument("--common-secret", action="store_true", default=None, help="hider: draw among the common words")
    g = sp.add_argument_group("Dudo")
    g.add_argument("--roll", type=_roll, help="your dice's faces, 1..6: 3,5")
    g.add_argument("--own-dice", type=_count, help="your dice (default: as many as --roll has faces)")
    g.add_argument("--opponent-dice", type=_count, help="the opponent's dice")
    g.add_argument("--claims", type=_claims, help="the round's claims so far, oldest first: 1x4,2x6")
    g.add_argument("--opened", choices=["me", "opponent"],
                   help="who made the round's first claim (default: you are to move, so you opened when the "
                        "claims are even in number)")
    g = sp.add_argument_group("Hangman")
    g.add_argument("--action", choices=["word", "letter"],
                   help="word: the word your opponent must complete; letter: your next letter (default: letter "
                        "with --opponent-word, else word)")
    g.add_argument("--opponent-word", help="letter: the word your opponent must complete (you chose it)")
    g.add_argument("--asked", help="letter: every letter asked so far by either player")
    g.add_argument("--pattern", help="letter: your word as revealed, _ for a hidden letter: _a__")
    g = sp.add_argument_group("Guess Who")
    g.add_argument("--own-count", type=_count, help="your candidates still possible")
    g.add_argument("--opponent-count", type=_count, help="the opponent's candidates still possible")
    st = sub.add_parser("stats", help="each game's figures of the served strategies")
    st.add_argument("variant", nargs="?", default="", help="one served variant (default: every one)")
    st.add_argument("--all", action="store_true", help="every figure and label of every strategy")
    st.add_argument("--json", action="store_true", help="the GetStats reply as JSON")
    rv = sub.add_parser("review", help="review a finished game move by move (AnalyzeGame)",
                        description="A finished game's transcript (an AnalyzeGameRequest in the protobuf JSON "
                                    "mapping, as the HTTP API takes it: docs/review.md) reviewed move by move.")
    rv.add_argument("transcript", help="the transcript's JSON file (- = standard input)")
    rv.add_argument("--json", action="store_true", help="the AnalyzeGame reply as JSON")
    return ap


def review_request(path: str) -> pb.AnalyzeGameRequest:
    """The transcript file as an AnalyzeGameRequest; UsageError naming what is wrong with the file."""
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as e:
        raise UsageError(f"gamestrategy review: cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"gamestrategy review: {path} is not UTF-8 text") from None
    try:
        return json_format.Parse(text, pb.AnalyzeGameRequest())
    except json_format.ParseError as e:
        raise UsageError(f"gamestrategy review: {path} is not an AnalyzeGameRequest in JSON: {e}") from None


def game_of(variant: str) -> str | None:
    g = variant.split("-", 1)[0]
    return g if g in GAMES else None


def sample_request(args) -> pb.SampleMoveRequest:
    """The SampleMoveRequest of `sample`'s arguments; UsageError naming a missing or misplaced option."""
    game = game_of(args.variant)
    if game is None:
        raise UsageError(f"gamestrategy sample: {args.variant!r} names no game: a variant starts with "
                         f"{', '.join(g + '-' for g in GAMES)}")
    for other, dests in STATE_OPTIONS.items():
        given = [d for d in dests if getattr(args, d) is not None]
        if other != game and given:
            raise UsageError(f"gamestrategy sample: --{given[0].replace('_', '-')} is a {GAMES[other]} option; "
                             f"{args.variant} is a {GAMES[game]} variant")
    common = dict(seed=args.seed, strategy=args.strategy, distribution=args.distribution)
    if game == "jotto":
        req = jotto_request(args.variant, args.role or "guesser", args.history or [], **common)
        req.jotto.common_secret = bool(args.common_secret)
        return req
    if game == "dudo":
        for d, what in (("roll", "your dice's faces (--roll 3,5)"), ("opponent_dice", "the opponent's dice")):
            if getattr(args, d) is None:
                raise UsageError(f"gamestrategy sample: a Dudo state needs --{d.replace('_', '-')}: {what}")
        own = len(args.roll) if args.own_dice is None else args.own_dice
        opened = None if args.opened is None else args.opened == "me"
        return dudo_request(args.variant, own, args.opponent_dice, args.roll, args.claims or [], opened, **common)
    if game == "hangman":
        action = args.action or ("letter" if args.opponent_word is not None else "word")
        return hangman_request(args.variant, action, args.opponent_word or "", args.asked or "", args.pattern or "",
                               **common)
    for d in ("own_count", "opponent_count"):
        if getattr(args, d) is None:
            raise UsageError(f"gamestrategy sample: a Guess Who state needs --{d.replace('_', '-')}")
    return guesswho_request(args.variant, args.own_count, args.opponent_count, **common)


def as_json(message) -> str:
    return json.dumps(json_format.MessageToDict(message, always_print_fields_with_no_presence=True), indent=2)


# a Dudo round's `served` label, shortly (the legend under the table gives it whole)
SERVED_SHORT = {"stored rows": "book", "stored rows, endgames re-solved live": "re-solved",
                "continual re-solving on the stored rows": "searched",
                "depth-limited continual re-solving on the stored rows": "searched"}
GLOSSARY = "docs/glossary.md"


def _cell(s: pb.StrategyStats, key: str) -> str:
    if key == "served" and key in s.labels:
        return next((short for long, short in sorted(SERVED_SHORT.items(), key=lambda kv: -len(kv[0]))
                     if s.labels[key].startswith(long)), s.labels[key])
    if key in s.labels:
        return s.labels[key]
    return _number(s.figures[key]) if key in s.figures else "-"


def _headlines(v: pb.VariantStats) -> tuple[dict[str, str], list[str]]:
    """{strategy: its headline cell 'figure [k]'} and the legend of the kinds [k] and the headlines' figures."""
    kinds: dict[str, str] = {}
    cells = {}
    for s in v.strategies:
        if not s.headline:
            cells[s.strategy] = f"-[{kinds.setdefault(s.headline_kind or 'not measured', chr(97 + len(kinds)))}]"
            continue
        tag = kinds.setdefault(s.headline_kind, chr(97 + len(kinds)))
        cells[s.strategy] = f"{_number(s.figures[s.headline])}[{tag}]"
    figures = sorted({(s.headline, s.units.get(s.headline, "")) for s in v.strategies if s.headline})
    legend = ["  headline: " + "; ".join(f"{k} ({u})" if u else k for k, u in figures) + f" ({GLOSSARY})"] if figures else []
    legend += [f"    [{tag}] {kind}" for kind, tag in kinds.items()]
    return cells, legend


def _units(v: pb.VariantStats, keys) -> list[str]:
    """'units: win probability: value, br_opener; guesses: ...' of the figures shown."""
    by_unit: dict[str, list[str]] = {}
    for k in keys:
        unit = next((s.units[k] for s in v.strategies if k in s.units), "")
        if unit:
            by_unit.setdefault(unit, []).append(k)
    return [f"  units: " + "; ".join(f"{u}: {', '.join(ks)}" for u, ks in by_unit.items())] if by_unit else []


def _rows_figures(v: pb.VariantStats) -> list[str]:
    """Which columns of which searched rounds are the stored rows' figures, not the served policy's (the rounds'
    ``rows_figures`` label), the rounds listed after each."""
    rounds: dict[str, list[str]] = {}
    for s in v.strategies:
        if "rows_figures" in s.labels:
            rounds.setdefault(s.labels["rows_figures"], []).append(s.strategy.removeprefix("round "))
    return [f"  rows' figures: {label} in {', '.join(names)}" for label, names in rounds.items()]


def stats_lines(v: pb.VariantStats, every: bool = False) -> list[str]:
    """One variant's figures: each strategy's (round's) headline figure and its kind, a table of its game's main
    figures (those its strategies have), their units, the names of the others; or `every` figure and label of
    every strategy."""
    game = game_of(v.variant)
    words = f"  words {v.words}" if v.words else ""
    out = [f"{v.variant}  store {v.store_version}  served: {v.served_strategy}{words}"]
    keys = {k for s in v.strategies for k in (*s.figures, *s.labels)}
    if every:
        for s in v.strategies:
            out.append(f"  {s.strategy}" + (f"  ({s.description})" if s.description else ""))
            if s.headline:
                out.append(f"    headline {s.headline} = {_number(s.figures[s.headline])}  ({s.headline_kind})")
            out += [f"    figure {k} = {_number(s.figures[k])}" + (f"  ({s.units[k]})" if k in s.units else "")
                    for k in sorted(s.figures)]
            out += [f"    label  {k} = {s.labels[k]}" for k in sorted(s.labels)]
        return out
    cols = [k for k in COLUMNS.get(game, ()) if k in keys] or sorted(keys)
    heads, legend = _headlines(v)
    rows = [[s.strategy, heads[s.strategy]] + [_cell(s, k) for k in cols] for s in v.strategies]
    cols = ["headline"] + cols
    widths = [max(len(r[i]) for r in [["strategy"] + cols] + rows) for i in range(len(cols) + 1)]
    for r in [["strategy"] + cols] + rows:
        out.append("  " + r[0].ljust(widths[0]) + "".join(c.rjust(w + 2) for c, w in zip(r[1:], widths[1:])))
    certified = min((s for s in v.strategies if "value_bracket" in s.labels), default=None,
                    key=lambda s: (s.strategy != v.served_strategy, s.strategy))   # the served strategy's first
    if certified is not None:   # the proven value of the game beside the greedy-oracle epsilons, which only bound theirs
        out.append(f"  game value bracket (certified): {certified.labels['value_bracket']}")
    out += legend + _units(v, cols[1:])
    served: dict[str, list[str]] = {}
    for s in v.strategies:
        if "served" in s.labels:
            served.setdefault(_cell(s, "served"), []).append(s.labels["served"])
    if served:
        out.append("  served: " + "; ".join(f"{short} = {' or '.join(dict.fromkeys(longs))}"
                                            for short, longs in served.items()))
    out += _rows_figures(v)
    rest = sorted(keys - set(cols))
    if rest:
        out.append(f"  also: {', '.join(rest)} (stats --all)")
    return out


def run(c: GameStrategyClient, args) -> None:
    if args.cmd == "variants":
        reply = c.list_variants()
        if args.json:
            print(as_json(reply))
            return
        for v in reply.variants:
            strategies = ", ".join(s.name + ("*" if s.served_default else "") for s in v.strategies)
            words = f"{v.words:6d} words" if v.words else " " * 12
            print(f"{v.variant:32s} {words}  store {v.store_version}  strategies: {strategies}")
        for line in building_lines(reply.building):
            print(line)
    elif args.cmd == "sample":
        r = c.sample_move(sample_request(args))
        if args.json:
            print(as_json(r))
            return
        game = game_of(args.variant)
        extra = f"  member={r.member}  consistent={r.consistent_words}" if game == "jotto" else \
            f"  consistent={r.consistent_words}" if game == "hangman" else ""
        print(f"{r.move}  p={r.probability:.4f}  source={pb.SampleMoveReply.Source.Name(r.source).lower()}"
              f"  strategy={r.strategy}{extra}  seed={args.seed}  store={r.store_version}")
        for d in r.distribution[:20]:
            print(f"  {d.move:10s} {d.probability:.4f}")
    elif args.cmd == "review":
        reply = c.analyze_game(args.request, timeout=max(c.timeout, REVIEW_SECONDS))
        if args.json:
            print(as_json(reply))
            return
        print("\n".join(review_lines(reply)))
    else:
        reply = c.stats(args.variant)
        if args.json:
            print(as_json(reply))
            return
        for v in reply.variants:
            print("\n".join(stats_lines(v, args.all)))
        if reply.building:
            print("\n".join(building_lines(reply.building)))


def _main(argv: list[str] | None) -> int:
    try:
        args = parser().parse_args(argv)
        if args.cmd == "sample":
            sample_request(args)  # a bad or misplaced state option fails before any connection
        if args.cmd == "review":
            args.request = review_request(args.transcript)
        try:
            token = open(args.token_file).read().strip() if args.token_file else None
        except OSError as e:
            raise UsageError(f"gamestrategy: --token-file: cannot read {args.token_file}: {e.strerror}") from None
        try:
            client = GameStrategyClient(args.target, args.timeout, token=token, tls_ca=args.tls_ca,
                                        tls_cert=args.tls_cert, tls_key=args.tls_key,
                                        server_name=args.server_name, tls=args.tls)
        except OSError as e:
            raise UsageError(f"gamestrategy: cannot read {e.filename}: {e.strerror}") from None
        except ValueError as e:
            raise UsageError(f"gamestrategy: {e}") from None
    except UsageError as e:
        print(e, file=sys.stderr)
        return 2
    with client as c:
        try:
            run(c, args)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNAVAILABLE and not answered_by_service(e):
                tls = bool(args.tls or args.tls_ca or args.tls_cert)
                print(f"gamestrategy: {explain_unavailable(args.target, e.details(), tls, args.tls_cert, args.tls_key)}",
                      file=sys.stderr)
                return 1
            print(f"gamestrategy: {e.code().name}: {e.details()}", file=sys.stderr)
            return 2 if e.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND) else 1
    sys.stdout.flush()  # a closed pipe shows here, inside main, not at the interpreter's exit
    return 0


def _drop_stdout() -> None:
    """Nothing more reaches stdout: the interpreter's last flush must not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader is gone (`| head -1`): nothing to say to anyone
        _drop_stdout()
        return SIGPIPE_EXIT
    except OSError as e:  # the output cannot be written (a full disk)
        _drop_stdout()
        print(f"gamestrategy: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gamestrategy: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
