"""Why a call could not reach the service, in one line a person can act on.

gRPC reports every failure to connect as UNAVAILABLE with a transport string ("Socket closed", "Tls
handshake failed ..."): :func:`explain_unavailable` reads that string and, where it says too little (a
plain client on a TLS port, a missing or refused client certificate), tries one TLS handshake itself."""
from __future__ import annotations

import socket
import ssl

TLS_HINT = "pass --tls-ca CA.pem (the CA that signed its certificate)"
MTLS_HINT = "pass --tls-cert and --tls-key (a client certificate signed by the CA the server trusts)"


def answered_by_service(e) -> bool:
    """An UNAVAILABLE the service answered itself (a variant still being built: retry; server.service marks it
    in the trailing metadata), not a connection that failed."""
    try:
        return any(k == "gamestrategy-retry" for k, _ in (e.trailing_metadata() or ()))
    except Exception:  # noqa: BLE001 - an error raised before any call has no metadata
        return False


def split_target(target: str) -> tuple[str, int] | None:
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def probe_tls(host: str, port: int, cert=None, key=None, timeout: float = 2.0) -> str:
    """One TLS handshake (no verification of the server): "tls" (it speaks TLS and took us),
    "client_cert_required", "client_cert_refused", "plain" (no TLS there), or "unreachable"."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2", "http/1.1"])  # a gRPC server closes a TLS connection that offers no h2
    if cert and key:
        try:
            ctx.load_cert_chain(str(cert), str(key))
        except (OSError, ssl.SSLError):
            return "unreachable"
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with ctx.wrap_socket(raw, server_hostname=host) as s:
                s.settimeout(0.5)
                try:  # under TLS 1.3 a refused client certificate ends the connection after the handshake
                    if s.recv(1) == b"":
                        return "client_cert_refused" if cert else "client_cert_required"
                except (TimeoutError, socket.timeout):
                    pass
                return "tls"
    except ssl.SSLError as e:
        text = str(e).upper()
        if "CERTIFICATE_REQUIRED" in text or "PEER DID NOT RETURN A CERTIFICATE" in text:
            return "client_cert_required"
        if "UNKNOWN_CA" in text or "BAD_CERTIFICATE" in text or "CERTIFICATE_UNKNOWN" in text:
            return "client_cert_refused"
        return "plain" if "WRONG_VERSION_NUMBER" in text or "RECORD_LAYER" in text else "tls"
    except ConnectionResetError:
        return "client_cert_required" if not cert else "client_cert_refused"
    except OSError:
        return "unreachable"


def explain_unavailable(target: str, details: str, tls: bool, client_cert=None, client_key=None) -> str:
    """One line: why `target` could not be reached (gRPC's `details` of an UNAVAILABLE), and what to pass."""
    d = details or ""
    if "Connection refused" in d or "Failed to connect to remote host" in d or "DNS resolution failed" in d:
        return f"cannot reach the service at {target}: nothing answers there; is it running? (make serve)"
    if "WRONG_VERSION_NUMBER" in d:
        return f"the server at {target} does not speak TLS: drop --tls, --tls-ca, --tls-cert and --tls-key"
    if "CERTIFICATE_VERIFY_FAILED" in d:
        return (f"the server at {target} speaks TLS, but its certificate is not signed by the CA in --tls-ca "
                "(or does not name the host: see --server-name)")
    where = split_target(target)
    probe = probe_tls(*where, cert=client_cert, key=client_key) if where else "unreachable"
    if probe == "tls" and not tls:
        return f"the server at {target} speaks TLS: {TLS_HINT}"
    if probe == "client_cert_required":
        if not tls:
            return f"the server at {target} speaks TLS and wants a client certificate: {TLS_HINT} and {MTLS_HINT}"
        return f"the server at {target} requires a client certificate (mutual TLS): {MTLS_HINT}"
    if probe == "client_cert_refused":
        return (f"the server at {target} refused the client certificate: it is not signed by the CA the "
                "server trusts (--tls-client-ca on the server)")
    return f"cannot reach the service at {target} (UNAVAILABLE: {d[:200]}); is it running? (make serve)"
