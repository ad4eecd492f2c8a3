"""The bearer-token check shared by the gRPC interceptor and the HTTP API, and what keeps refused callers
cheap: echoed text clipped, refusal logs on a budget."""
from __future__ import annotations

import hmac
import threading
import time

import grpc


def check_bearer(value: str | None, tokens: list[bytes]) -> tuple[grpc.StatusCode, str] | None:
    """None when `value` (the ``authorization`` metadata or header) carries an accepted token; else the
    refusal: UNAUTHENTICATED when missing or malformed, PERMISSION_DENIED when the token is not accepted.
    Tokens are compared in constant time."""
    if value is None:
        return grpc.StatusCode.UNAUTHENTICATED, "missing `authorization: Bearer <token>` metadata"
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return grpc.StatusCode.UNAUTHENTICATED, "authorization metadata must be `Bearer <token>`"
    t = token.strip().encode()
    if not any(hmac.compare_digest(t, ok) for ok in tokens):
        return grpc.StatusCode.PERMISSION_DENIED, "the bearer token is not accepted"
    return None


def clip(text: str, limit: int = 80) -> str:
    """Caller-supplied text as it may be echoed in a reply or a log line: at most `limit` characters."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class LogBudget:
    """At most `burst` log lines a `window` seconds for one kind of event that callers can cause at will
    (refused credentials); the lines held back are counted and reported by the next line let through."""

    def __init__(self, burst: int = 10, window: float = 60.0, clock=time.monotonic):
        self.burst, self.window, self.clock = burst, window, clock
        self._lock = threading.Lock()
        self._start, self._used, self.suppressed = clock(), 0, 0

    def take(self) -> int | None:
        """None when this event is not to be logged; else how many were held back before it."""
        with self._lock:
            now = self.clock()
            if now - self._start >= self.window:
                self._start, self._used = now, 0
            if self._used >= self.burst:
                self.suppressed += 1
                return None
            self._used += 1
            held, self.suppressed = self.suppressed, 0
            return held
