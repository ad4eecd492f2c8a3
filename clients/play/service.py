"""The public gRPC calls the terminal games make (ListVariants, GetWords, SampleMove)."""
from __future__ import annotations

import re

import grpc
from google.protobuf import json_format

from clients.client import GameStrategyClient
from protos import gamestrategy_pb2 as pb


class NoVariant(Exception):
    pass


class Service:
    def __init__(self, client: GameStrategyClient):
        self.client = client

    def _call(self, method, request):
        return method(request, timeout=self.client.timeout, metadata=self.client.metadata)

    def variants(self, game: str) -> list[pb.VariantInfo]:
        return list(self.client.list_variants(game).variants)

    def choose_variant(self, game: str, wanted: str | None, preferred: list[str]) -> pb.VariantInfo:
        vs = self.variants(game)
        if not vs:
            raise NoVariant(f"the service serves no {game} variant")
        by_name = {v.variant: v for v in vs}
        if wanted:
            if wanted not in by_name:
                raise NoVariant(f"{wanted!r} is not a served {game} variant (served: {', '.join(sorted(by_name))})")
            return by_name[wanted]
        for name in preferred:
            if name in by_name:
                return by_name[name]
        return vs[0]

    # ---------------------------------------------------------------- Jotto, Hangman
    def words(self, variant: str) -> pb.GetWordsReply:
        return self._call(self.client.stub.GetWords, pb.GetWordsRequest(variant=variant))

    def jotto_secret(self, variant: str, strategy: str, seed: int) -> pb.SampleMoveReply:
        return self._call(self.client.stub.SampleMove, pb.SampleMoveRequest(
            variant=variant, strategy=strategy, game_seed=seed,
            jotto=pb.JottoState(role=pb.JottoState.HIDER, common_secret=True)))

    def jotto_guess(self, variant: str, strategy: str, seed: int, history) -> pb.SampleMoveReply:
        return self._call(self.client.stub.SampleMove, pb.SampleMoveRequest(
            variant=variant, strategy=strategy, game_seed=seed,
            jotto=pb.JottoState(role=pb.JottoState.GUESSER,
                                history=[pb.JottoTurn(guess=w, jots=j) for w, j in history])))

    # ---------------------------------------------------------------- Dudo
    def dudo_move(self, variant: str, seed: int, own: int, opp: int, roll, history, opened: bool) -> str:
        r = self._call(self.client.stub.SampleMove, pb.SampleMoveRequest(
            variant=variant, game_seed=seed, dudo=pb.DudoState(
                own_dice=own, opponent_dice=opp, roll=list(roll),
                history=[pb.DudoClaim(count=n, face=f) for n, f in history], requester_opened=opened)))
        return r.move

    # ---------------------------------------------------------------- review
    def analyze(self, body: dict, seconds: float = 120.0) -> pb.AnalyzeGameReply:
        """A finished game's transcript (AnalyzeGameRequest's JSON form) reviewed; a review waits at least
        ``seconds`` (it is live work on the server)."""
        request = json_format.ParseDict(body, pb.AnalyzeGameRequest())
        return self.client.stub.AnalyzeGame(request, timeout=max(self.client.timeout, seconds),
                                            metadata=self.client.metadata)

    # ---------------------------------------------------------------- Hangman
    def hangman_word(self, variant: str, strategy: str, seed: int) -> str:
        return self._call(self.client.stub.SampleMove, pb.SampleMoveRequest(
            variant=variant, strategy=strategy, game_seed=seed,
            hangman=pb.HangmanState(action=pb.HangmanState.CHOOSE_WORD))).move

    def hangman_letter(self, variant: str, strategy: str, seed: int, opponent_word: str, asked: str,
                       own_pattern: str) -> str:
        return self._call(self.client.stub.SampleMove, pb.SampleMoveRequest(
            variant=variant, strategy=strategy, game_seed=seed,
            hangman=pb.HangmanState(action=pb.HangmanState.CHOOSE_LETTER, opponent_word=opponent_word,
                                    asked=asked, own_pattern=own_pattern))).move


def invalid(e: grpc.RpcError) -> bool:
    return e.code() == grpc.StatusCode.INVALID_ARGUMENT


def dice_of(variant: str, default: int = 2) -> int:
    m = re.search(r"-(\d+)dice", variant)
    return int(m.group(1)) if m else default
