"""A small typed client for the game-strategy service; every call carries a deadline."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc

DEFAULT_TIMEOUT = 10.0


@dataclass
class Move:
    move: str
    probability: float
    source: str  # "book" or "live"
    store_version: str
    strategy: str
    member: int
    consistent_words: int
    on_policy: bool
    distribution: list[tuple[str, float]] = field(default_factory=list)


def _read(path) -> bytes | None:
    return Path(path).read_bytes() if path else None


def make_channel(target: str, tls_ca=None, tls_cert=None, tls_key=None, server_name: str | None = None,
                 tls: bool = False) -> grpc.Channel:
    """An insecure channel, or a TLS one when `tls` or any TLS file is given (cert+key: mutual TLS).

    `tls_ca`: PEM file of the CA that signed the server (default: the system roots)."""
    if not (tls or tls_ca or tls_cert or tls_key):
        return grpc.insecure_channel(target)
    if (tls_cert is None) != (tls_key is None):
        raise ValueError("a client certificate and its key go together")
    creds = grpc.ssl_channel_credentials(root_certificates=_read(tls_ca), private_key=_read(tls_key),
                                         certificate_chain=_read(tls_cert))
    options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
    return grpc.secure_channel(target, creds, options=options)


class GameStrategyClient:
    """`token` (default: $GAMESTRATEGY_TOKEN) is sent as `authorization: Bearer <token>` on every call."""

    def __init__(self, target: str = "127.0.0.1:50051", timeout: float = DEFAULT_TIMEOUT,
                 channel: grpc.Channel | None = None, token: str | None = None, tls_ca=None, tls_cert=None,
                 tls_key=None, server_name: str | None = None, tls: bool = False):
        self.channel = channel or make_channel(target, tls_ca, tls_cert, tls_key, server_name, tls)
        self.stub = pb_grpc.GameStrategyStub(self.channel)
        self.timeout = timeout
        token = token if token is not None else os.environ.get("GAMESTRATEGY_TOKEN", "")
        self.metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def close(self) -> None:
        self.channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def list_variants(self, game: str = "") -> pb.ListVariantsReply:
        return self.stub.ListVariants(pb.ListVariantsRequest(game=game), timeout=self.timeout,
                                      metadata=self.metadata)

    def stats(self, variant: str = "") -> pb.GetStatsReply:
        return self.stub.GetStats(pb.GetStatsRequest(variant=variant), timeout=self.timeout, metadata=self.metadata)

    def jotto_move(self, variant: str, role: str, history: list[tuple[str, int]] = (), seed: int = 0,
                   strategy: str = "", distribution: bool = False, timeout: float | None = None) -> Move:
        """role: "guesser" (next test word after `history` of (word, jots)) or "hider" (a secret word)."""
        roles = {"guesser": pb.JottoState.GUESSER, "hider": pb.JottoState.HIDER}
        if role not in roles:
            raise ValueError(f"role must be guesser or hider, not {role!r}")
        req = pb.SampleMoveRequest(variant=variant, strategy=strategy, game_seed=seed, want_distribution=distribution,
                                   jotto=pb.JottoState(role=roles[role],
                                                       history=[pb.JottoTurn(guess=w, jots=j) for w, j in history]))
        return self._move(self.stub.SampleMove(req, timeout=timeout or self.timeout, metadata=self.metadata))

    def sample_moves(self, requests: list[pb.SampleMoveRequest], timeout: float | None = None) -> list:
        """Many moves in one call: a Move, or a (grpc.StatusCode, message) for a request that failed."""
        r = self.stub.SampleMoves(pb.SampleMovesRequest(requests=requests), timeout=timeout or self.timeout,
                                  metadata=self.metadata)
        codes = {c.value[0]: c for c in grpc.StatusCode}
        return [self._move(x.reply) if x.code == 0 else (codes.get(x.code, grpc.StatusCode.UNKNOWN), x.message)
                for x in r.results]

    @staticmethod
    def _move(r: pb.SampleMoveReply) -> Move:
        return Move(r.move, r.probability, pb.SampleMoveReply.Source.Name(r.source).lower(), r.store_version,
                    r.strategy, r.member, r.consistent_words, r.history_on_policy,
                    [(d.move, d.probability) for d in r.distribution])
