"""gamestrategy-play: play Jotto, Dudo or Symmetric Hangman against the service in a terminal.

  python -m clients.play jotto   [--variant V] [--level equilibrium|people|beeler|benchmark] [--seed N]
  python -m clients.play dudo    [--variant V] [--seed N]
  python -m clients.play hangman [--variant V] [--level ours|seed] [--seed N]

Only the public gRPC API is used (ListVariants, GetWords, SampleMove, AnalyzeGame); the client referees (rolls the
dice, counts jots, reveals letters). After a Jotto or Dudo game the transcript is saved (--save-dir, --no-save)
and the review (AnalyzeGame) is offered. Ctrl-C or end of input leaves at any prompt.
"""
from __future__ import annotations

import argparse
import os

# gRPC core logs a failed TLS handshake at INFO on stderr; the command says it in one line of its own
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
import random
import signal
import sys

import grpc

from clients.client import GameStrategyClient
from clients.diagnose import answered_by_service, explain_unavailable
from clients.play.review_screen import default_save_dir
from clients.play.service import NoVariant, Service
from clients.play.ui import UI, Quit

GAMES = ("jotto", "dudo", "hangman")


def _args(argv):
    ap = argparse.ArgumentParser(prog="gamestrategy-play", description="play a game against the game-strategy service")
    ap.add_argument("game", choices=GAMES)
    ap.add_argument("--target", default=f"{os.environ.get('GAMESTRATEGY_HOST', '127.0.0.1')}:"
                                        f"{os.environ.get('GAMESTRATEGY_PORT', '50051')}",
                    help="address of the service (default 127.0.0.1:50051)")
    ap.add_argument("--variant", help="a served variant (default: the 5-letter Jotto / Hangman, the Dudo store)")
    ap.add_argument("--level", help="jotto: equilibrium (the served strategy), people, beeler, benchmark; "
                                    "hangman: ours, seed (default: equilibrium / ours)")
    ap.add_argument("--seed", type=int, help="fixes the service's secrets, draws and dice (default: random)")
    ap.add_argument("--no-color", action="store_true", help="no colour even on a terminal (also: NO_COLOR)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per call")
    ap.add_argument("--save-dir", help="save each finished game's transcript here for `gamestrategy review` "
                                       "(default: $XDG_DATA_HOME/gamestrategy/games, ~/.local/share/... without it)")
    ap.add_argument("--no-save", action="store_true", help="do not save finished games (the review is still offered)")
    ap.add_argument("--token-file", help="bearer token for a service that requires one")
    ap.add_argument("--tls", action="store_true", help="TLS with the system roots (implied by --tls-ca/--tls-cert)")
    ap.add_argument("--tls-ca", help="PEM file of the CA that signed the server certificate")
    ap.add_argument("--tls-cert", help="client certificate (PEM), for mutual TLS")
    ap.add_argument("--tls-key", help="client private key (PEM), for mutual TLS")
    ap.add_argument("--server-name", help="expected name in the server certificate (default: the target host)")
    args = ap.parse_args(argv)
    levels = {"jotto": ("equilibrium", "people", "beeler", "benchmark"), "hangman": ("ours", "seed"), "dudo": ("equilibrium",)}
    if args.level is None:
        args.level = levels[args.game][0]
    elif args.level not in levels[args.game]:
        ap.error(f"--level for {args.game}: one of {', '.join(levels[args.game])}")
    if (args.tls_cert is None) != (args.tls_key is None):
        ap.error("--tls-cert and --tls-key go together")
    if args.no_save:
        args.save_dir = None
    elif args.save_dir is None:
        args.save_dir = default_save_dir()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    elif args.seed < 0:
        ap.error("--seed is a whole number >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    if sys.stdin.isatty():
        # Ctrl-C leaves at any prompt even when whoever started us ignored SIGINT (a background job of a
        # script, a test run started with `&`): Python keeps an inherited SIG_IGN, and Ctrl-C did nothing
        signal.signal(signal.SIGINT, signal.default_int_handler)
    args = _args(argv)
    ui = UI(color=not args.no_color)
    token = open(args.token_file).read().strip() if args.token_file else None
    client = GameStrategyClient(args.target, args.timeout, token=token, tls_ca=args.tls_ca, tls_cert=args.tls_cert,
                                tls_key=args.tls_key, server_name=args.server_name, tls=args.tls)
    service = Service(client)
    try:
        if args.game == "jotto":
            from clients.play.jotto import LEVELS, Jotto

            v = service.choose_variant("jotto", args.variant, ["jotto-en_US80-5-ganzfried"])
            strategies = {s.name for s in v.strategies}
            if LEVELS[args.level] and LEVELS[args.level] not in strategies:
                ui.error(f"{v.variant} has no {args.level} strategy (it has {', '.join(sorted(strategies))}).")
                return 2
            Jotto(ui, service, v.variant, args.level, args.seed, args.save_dir).run()
        elif args.game == "dudo":
            from clients.play.dudo import Dudo

            v = service.choose_variant("dudo", args.variant, ["dudo-5dice-default"])
            Dudo(ui, service, v.variant, args.seed, args.save_dir).run()
        else:
            from clients.play.hangman import Hangman

            v = service.choose_variant("hangman", args.variant, ["hangman-en_US50-5"])
            Hangman(ui, service, v.variant, v.word_length, args.level, args.seed).run()
        ui.say("Bye.")
        return 0
    except NoVariant as e:
        ui.error(str(e))
        return 2
    except Quit:
        ui.say("Bye.")
        return 0
    except EOFError:
        ui.say("\nBye.")
        return 0
    except KeyboardInterrupt:
        ui.say("\nInterrupted. Bye.")
        return 130
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.UNAVAILABLE and not answered_by_service(e):
            tls = bool(args.tls or args.tls_ca or args.tls_cert)
            ui.error(explain_unavailable(args.target, e.details(), tls, args.tls_cert, args.tls_key))
        else:
            ui.error(f"the service at {args.target} answered {e.code().name}: {e.details()}")
        return 1
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
