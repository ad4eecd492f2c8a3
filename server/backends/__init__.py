"""Game backends: one module per game behind one interface, registered here (game -> backend class).

A backend is built from an open store (``cls(store)``; StoreError when it cannot serve it) and has
``game``, ``variant``, ``version``, ``store``, ``manifest`` and the methods of :class:`Backend`; a class
whose live work runs functions of ``games`` modules names them in ``live_modules`` (the server's live
pool imports them once for all its workers).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from games.storage import Store, StoreError
from server.live import NO_LIVE, LiveCall


class BadRequest(ValueError):
    """Invalid input; the message names the fault (INVALID_ARGUMENT)."""


class NotServed(LookupError):
    """A variant this server does not serve: ``status`` NOT_FOUND (unknown) or UNAVAILABLE (being built: a
    temporary state, retry); the message names the variant and what is served."""

    def __init__(self, message: str, status: str, retry: str = "building"):
        super().__init__(message)
        self.status = status
        self.retry = retry    # why an UNAVAILABLE is temporary (the ``gamestrategy-retry`` metadata's value)


class DeadlineExceeded(RuntimeError):
    pass


def quote(value: str, limit: int = 48) -> str:
    """repr of a caller's value for an error message, clipped (a status message stays small)."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + f"... ({len(value)} characters)"


@dataclass
class MoveResult:
    move: str
    probability: float
    distribution: list[tuple[str, float]] = field(default_factory=list)
    source: str = "book"  # or "live"
    strategy: str = ""
    member: int = 0
    consistent_words: int = 0
    on_policy: bool = True
    # the encoded SampleMoveReply, set by the server the first time it answers with this result: a backend
    # that returns the same (immutable) result object again is answered without building the reply again
    wire: bytes | None = field(default=None, compare=False, repr=False)


class Backend(Protocol):
    game: str
    variant: str
    version: str
    store: Store
    manifest: dict

    def warm(self) -> None:
        """Compile or load what the first request would otherwise pay for."""

    def probe(self) -> None:
        """One request through the real paths, at load: raises if the store cannot be served."""

    def sample(self, request, deadline: float | None, live: LiveCall = NO_LIVE) -> MoveResult:
        """The move for a SampleMoveRequest; BadRequest naming the fault, DeadlineExceeded. Work the store
        does not answer goes through ``live.submit`` (a worker process, never this thread), which raises
        server.live's Refused / Stopped / LiveError."""

    def variant_info(self, v) -> None:
        """Fill a pb.VariantInfo (strategies served)."""

    def stats(self, v) -> None:
        """Fill a pb.VariantStats from the store's figures."""


# the registration (after the names above: the backend modules import them)
from server.backends.dudo import DudoBackend  # noqa: E402
from server.backends.guesswho import GuessWhoBackend  # noqa: E402
from server.backends.hangman import HangmanBackend  # noqa: E402
from server.backends.jotto import JottoBackend  # noqa: E402

BACKENDS: dict[str, type] = {"jotto": JottoBackend, "dudo": DudoBackend, "guesswho": GuessWhoBackend,
                             "hangman": HangmanBackend}


def backend_for(store: Store) -> Backend:
    game = store.manifest.get("game")
    cls = BACKENDS.get(game)
    if cls is None:
        raise StoreError(f"store {store.path}: game {game!r} is not served (known: {', '.join(sorted(BACKENDS))})")
    return cls(store)
