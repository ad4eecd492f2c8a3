"""gamestrategy: command line for the service.

  python -m clients.cli variants
  python -m clients.cli sample VARIANT --role guesser --history tears:2,lions:1 [--seed N] [--strategy S] [--distribution]
  python -m clients.cli stats [VARIANT]
"""
from __future__ import annotations

import argparse
import os

# gRPC core logs a failed TLS handshake at INFO on stderr; the command says it in one line of its own
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
import sys

import grpc

from clients.client import GameStrategyClient
from clients.diagnose import explain_unavailable


def _history(text: str) -> list[tuple[str, int]]:
    out = []
    for item in filter(None, text.split(",")):
        word, sep, jots = item.partition(":")
        if not sep or not jots.strip().isdigit():
            raise argparse.ArgumentTypeError(f"history item {item!r} must be WORD:JOTS")
        out.append((word.strip(), int(jots)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gamestrategy", description="client of the game-strategy service")
    ap.add_argument("--target", default="127.0.0.1:50051")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--tls", action="store_true", help="TLS with the system roots (implied by --tls-ca/--tls-cert)")
    ap.add_argument("--tls-ca", help="PEM file of the CA that signed the server certificate")
    ap.add_argument("--tls-cert", help="client certificate (PEM), for mutual TLS")
    ap.add_argument("--tls-key", help="client private key (PEM), for mutual TLS")
    ap.add_argument("--server-name", help="expected name in the server certificate (default: the target host)")
    ap.add_argument("--token-file", help="file holding the bearer token (default: $GAMESTRATEGY_TOKEN)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("variants", help="list the served variants and strategies")
    sp = sub.add_parser("sample", help="sample a move")
    sp.add_argument("variant")
    sp.add_argument("--role", choices=["guesser", "hider"], default="guesser")
    sp.add_argument("--history", type=_history, default=[], help="WORD:JOTS,WORD:JOTS,...")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--strategy", default="")
    sp.add_argument("--distribution", action="store_true")
    st = sub.add_parser("stats", help="exploitability figures")
    st.add_argument("variant", nargs="?", default="")
    args = ap.parse_args(argv)
    token = open(args.token_file).read().strip() if args.token_file else None
    with GameStrategyClient(args.target, args.timeout, token=token, tls_ca=args.tls_ca, tls_cert=args.tls_cert,
                            tls_key=args.tls_key, server_name=args.server_name, tls=args.tls) as c:
        try:
            if args.cmd == "variants":
                for v in c.list_variants().variants:
                    strategies = ", ".join(s.name + ("*" if s.served_default else "") for s in v.strategies)
                    print(f"{v.variant:32s} {v.words:6d} words  store {v.store_version}  strategies: {strategies}")
            elif args.cmd == "sample":
                m = c.jotto_move(args.variant, args.role, args.history, args.seed, args.strategy, args.distribution)
                print(f"{m.move}  p={m.probability:.4f}  source={m.source}  strategy={m.strategy}  member={m.member}"
                      f"  consistent={m.consistent_words}  store={m.store_version}")
                for w, p in m.distribution[:20]:
                    print(f"  {w:10s} {p:.4f}")
            else:
                for v in c.stats(args.variant).variants:
                    print(f"{v.variant}  store {v.store_version}  served: {v.served_strategy}  words {v.words}")
                    keys = ["guarantee", "hider_vs_gbr", "epsilon_hider", "epsilon_guesser", "epsilon", "gap", "mixture_size"]
                    print(f"  {'strategy':14s}" + "".join(f"{k:>16s}" for k in keys))
                    for s in v.strategies:
                        print(f"  {s.strategy:14s}" + "".join(f"{s.figures.get(k, float('nan')):16.4f}" for k in keys))
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNAVAILABLE:
                tls = bool(args.tls or args.tls_ca or args.tls_cert)
                print(f"gamestrategy: {explain_unavailable(args.target, e.details(), tls, args.tls_cert, args.tls_key)}",
                      file=sys.stderr)
                return 1
            print(f"gamestrategy: {e.code().name}: {e.details()}", file=sys.stderr)
            return 2 if e.code() == grpc.StatusCode.INVALID_ARGUMENT else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
