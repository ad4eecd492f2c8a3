"""A small typed client for the game-strategy service; every call carries a deadline."""
from __future__ import annotations

from dataclasses import dataclass, field

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


class GameStrategyClient:
    def __init__(self, target: str = "127.0.0.1:50051", timeout: float = DEFAULT_TIMEOUT,
                 channel: grpc.Channel | None = None):
        self.channel = channel or grpc.insecure_channel(target)
        self.stub = pb_grpc.GameStrategyStub(self.channel)
        self.timeout = timeout

    def close(self) -> None:
        self.channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def list_variants(self, game: str = "") -> pb.ListVariantsReply:
        return self.stub.ListVariants(pb.ListVariantsRequest(game=game), timeout=self.timeout)

    def stats(self, variant: str = "") -> pb.GetStatsReply:
        return self.stub.GetStats(pb.GetStatsRequest(variant=variant), timeout=self.timeout)

    def jotto_move(self, variant: str, role: str, history: list[tuple[str, int]] = (), seed: int = 0,
                   strategy: str = "", distribution: bool = False, timeout: float | None = None) -> Move:
        """role: "guesser" (next test word after `history` of (word, jots)) or "hider" (a secret word)."""
        roles = {"guesser": pb.JottoState.GUESSER, "hider": pb.JottoState.HIDER}
        if role not in roles:
            raise ValueError(f"role must be guesser or hider, not {role!r}")
        req = pb.SampleMoveRequest(variant=variant, strategy=strategy, game_seed=seed, want_distribution=distribution,
                                   jotto=pb.JottoState(role=roles[role],
                                                       history=[pb.JottoTurn(guess=w, jots=j) for w, j in history]))
        r = self.stub.SampleMove(req, timeout=timeout or self.timeout)
        return Move(r.move, r.probability, pb.SampleMoveReply.Source.Name(r.source).lower(), r.store_version,
                    r.strategy, r.member, r.consistent_words, r.history_on_policy,
                    [(d.move, d.probability) for d in r.distribution])
