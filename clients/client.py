"""A small typed client for the game-strategy service; every call carries a deadline."""
from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterable, Iterator
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
    source: str  # "book", "live" or "degraded" (the book where the server could not compute it live)
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


def jotto_request(variant: str, role: str, history: list[tuple[str, int]] = (), seed: int = 0, strategy: str = "",
                  distribution: bool = False) -> pb.SampleMoveRequest:
    """A Jotto SampleMoveRequest (for SampleMoves and the streams)."""
    roles = {"guesser": pb.JottoState.GUESSER, "hider": pb.JottoState.HIDER}
    if role not in roles:
        raise ValueError(f"role must be guesser or hider, not {role!r}")
    return pb.SampleMoveRequest(variant=variant, strategy=strategy, game_seed=seed, want_distribution=distribution,
                                jotto=pb.JottoState(role=roles[role],
                                                    history=[pb.JottoTurn(guess=w, jots=j) for w, j in history]))


def dudo_request(variant: str, own_dice: int, opponent_dice: int, roll, claims=(), requester_opened: bool | None = None,
                 seed: int = 0, strategy: str = "", distribution: bool = False) -> pb.SampleMoveRequest:
    """A Dudo SampleMoveRequest: the requester's `roll` (faces 1..6), the round's `claims` so far as
    (count, face), oldest first. `requester_opened` None: the requester is to move, so it opened when the
    number of claims is even."""
    opened = len(claims) % 2 == 0 if requester_opened is None else requester_opened
    return pb.SampleMoveRequest(variant=variant, strategy=strategy, game_seed=seed, want_distribution=distribution,
                                dudo=pb.DudoState(own_dice=own_dice, opponent_dice=opponent_dice, roll=list(roll),
                                                  history=[pb.DudoClaim(count=n, face=f) for n, f in claims],
                                                  requester_opened=opened))


def hangman_request(variant: str, action: str, opponent_word: str = "", asked: str = "", own_pattern: str = "",
                    seed: int = 0, strategy: str = "", distribution: bool = False) -> pb.SampleMoveRequest:
    """A Hangman SampleMoveRequest: action "word" (the service picks the word the opponent must complete)
    or "letter" (the next letter to ask, knowing `opponent_word`, every letter `asked` and `own_pattern`)."""
    actions = {"word": pb.HangmanState.CHOOSE_WORD, "letter": pb.HangmanState.CHOOSE_LETTER}
    if action not in actions:
        raise ValueError(f"action must be word or letter, not {action!r}")
    return pb.SampleMoveRequest(variant=variant, strategy=strategy, game_seed=seed, want_distribution=distribution,
                                hangman=pb.HangmanState(action=actions[action], opponent_word=opponent_word,
                                                        asked=asked, own_pattern=own_pattern))


def guesswho_request(variant: str, own_count: int, opponent_count: int, seed: int = 0, strategy: str = "",
                     distribution: bool = False) -> pb.SampleMoveRequest:
    """A Guess Who SampleMoveRequest: the candidates still possible for the requester and the opponent."""
    return pb.SampleMoveRequest(variant=variant, strategy=strategy, game_seed=seed, want_distribution=distribution,
                                guesswho=pb.GuessWhoState(own_count=own_count, opponent_count=opponent_count))


_CODES = {c.value[0]: c for c in grpc.StatusCode}
_CLOSE = object()


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
        req = jotto_request(variant, role, history, seed, strategy, distribution)
        return self._move(self.stub.SampleMove(req, timeout=timeout or self.timeout, metadata=self.metadata))

    def analyze_game(self, request: pb.AnalyzeGameRequest, timeout: float | None = None) -> pb.AnalyzeGameReply:
        """AnalyzeGame: a finished game's transcript reviewed move by move (docs/review.md)."""
        return self.stub.AnalyzeGame(request, timeout=timeout or self.timeout, metadata=self.metadata)

    def sample_move(self, request: pb.SampleMoveRequest, timeout: float | None = None) -> pb.SampleMoveReply:
        """One SampleMove of any game (the request builders above), the reply as the service sent it."""
        return self.stub.SampleMove(request, timeout=timeout or self.timeout, metadata=self.metadata)

    def sample_moves(self, requests: list[pb.SampleMoveRequest], timeout: float | None = None) -> list:
        """Many moves in one call: a Move, or a (grpc.StatusCode, message) for a request that failed."""
        r = self.stub.SampleMoves(pb.SampleMovesRequest(requests=requests), timeout=timeout or self.timeout,
                                  metadata=self.metadata)
        return [self._result(x) for x in r.results]

    def sample_move_stream(self, requests: Iterable[pb.SampleMoveRequest], timeout: float | None = None) -> Iterator:
        """Moves on one SampleMoveStream call, one per request, in order, as they arrive: a Move, or a
        (grpc.StatusCode, message) for a request that failed (the stream goes on). `requests` is read
        lazily, so it may be a generator; `timeout` bounds the whole stream (default: none). A call-level
        fault (credentials, deadline, the server's stream limit) raises grpc.RpcError."""
        for x in self.stub.SampleMoveStream(iter(requests), timeout=timeout, metadata=self.metadata):
            yield self._result(x)

    def open_move_stream(self, timeout: float | None = None) -> "MoveStream":
        """A stream for lockstep play (self-play, evaluation): `ask(request)` sends one request and waits
        for its answer, so the next request can depend on it. Close it (or use `with`) when done."""
        return MoveStream(self, timeout)

    @classmethod
    def _result(cls, x: pb.SampleMoveResult):
        if x.code == 0:
            return cls._move(x.reply)
        return _CODES.get(x.code, grpc.StatusCode.UNKNOWN), x.message

    @staticmethod
    def _move(r: pb.SampleMoveReply) -> Move:
        return Move(r.move, r.probability, pb.SampleMoveReply.Source.Name(r.source).lower(), r.store_version,
                    r.strategy, r.member, r.consistent_words, r.history_on_policy,
                    [(d.move, d.probability) for d in r.distribution])


class MoveStream:
    """One open SampleMoveStream: `ask` a request, get its Move or (grpc.StatusCode, message)."""

    def __init__(self, client: GameStrategyClient, timeout: float | None = None):
        self._out: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._sent = 0
        self._replies = client.stub.SampleMoveStream(iter(self._out.get, _CLOSE), timeout=timeout,
                                                     metadata=client.metadata)
        self._result = client._result

    def ask(self, request: pb.SampleMoveRequest):
        with self._lock:  # one request in flight: its reply is the next one on the stream
            self._out.put(request)
            self._sent += 1
            return self._result(next(self._replies))

    def close(self) -> None:
        self._out.put(_CLOSE)
        for _ in self._replies:  # the server ends the stream after the last reply
            pass

    def cancel(self) -> None:
        self._replies.cancel()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.close()
        else:
            self.cancel()
