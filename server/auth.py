"""The bearer-token check shared by the gRPC interceptor and the HTTP API."""
from __future__ import annotations

import hmac

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
