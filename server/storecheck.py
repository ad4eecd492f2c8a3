"""A store verified before this process maps it: its LMDB structure read here with plain reads, then its
content hash recomputed in a child process of its own (games.storeverify), so that a damaged page that
crashes LMDB kills the check and not the server. Worker processes share their verdicts: the first to
check a file (by path, inode, size and times) does it under a file lock and the others read its verdict.

  python -m server.storecheck PATH    the check the server runs: prints the content hash (exit 0), or one
                                      line naming the fault (exit 1)
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from games.storage import StoreError
from games.storeverify import Identity, check_structure, verify

REPO_ROOT = Path(__file__).resolve().parent.parent
VERDICTS_ENV = "GAMESTRATEGY_VERIFY_DIR"  # set by server.__main__ for its workers
CHECK_NICE = 10  # the hash competes with serving threads for the cores: it yields to them
# the child is killed past MIN + size / RATE: a check far slower than the hash's measured throughput
# (docs/serving.md) is stuck, not busy
CHECK_MIN_SECONDS = 60.0
CHECK_FLOOR_BYTES_PER_SECOND = 20 << 20
MESSAGE_CHARS = 400


class CheckUnfinished(StoreError):
    """The check did not finish (too slow on a busy machine, or could not start): nothing is known of the store, so
    nothing is recorded; the next refresh checks it again, with twice the time."""


_ATTEMPTS: dict[str, int] = {}   # unfinished checks of a file so far (by path and identity): its next time limit


def file_identity(path: Path) -> Identity:
    return Identity.of(os.stat(Path(path) / "data.mdb"))


def verified(path: Path) -> tuple[str, Identity]:
    """The store's content hash and the identity of the file it was computed from; StoreError naming the
    fault when the store must not be served."""
    path = Path(path)
    size = check_structure(path)  # a short file is refused before any process maps it
    try:
        ident = file_identity(path)
    except OSError as e:
        raise StoreError(f"store {path}: cannot stat data.mdb ({e.strerror or e})") from e
    shared = os.environ.get(VERDICTS_ENV)
    key = hashlib.sha256(f"{path}\0{tuple(ident)}".encode()).hexdigest()[:32]
    if not shared:
        return _check_in_child(path, size, key), ident
    with open(Path(shared) / key, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes
        f.seek(0)
        verdict = f.read()
        if not verdict:
            try:
                verdict = "ok " + _check_in_child(path, size, key)
            except CheckUnfinished:
                raise                   # no verdict: the next look checks again
            except StoreError as e:
                verdict = "bad " + str(e)
            f.write(verdict)
            f.flush()
    kind, _, text = verdict.partition(" ")
    if kind != "ok":
        raise StoreError(text)
    return text, ident


def check_seconds(size: int, attempt: int) -> float:
    """The time a check of ``size`` bytes may take at its ``attempt``-th try (0 first): doubled at each try."""
    return (CHECK_MIN_SECONDS + size / CHECK_FLOOR_BYTES_PER_SECOND) * 2 ** min(attempt, 4)


def _check_in_child(path: Path, size: int, key: str | None = None) -> str:
    key = str(path) if key is None else key
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    attempt = _ATTEMPTS.get(key, 0)
    timeout = check_seconds(size, attempt)
    try:
        r = subprocess.run([sys.executable, "-m", "server.storecheck", str(path)], capture_output=True, text=True,
                           timeout=timeout, env=env, cwd=REPO_ROOT)
    except subprocess.TimeoutExpired:
        _ATTEMPTS[key] = attempt + 1
        raise CheckUnfinished(f"store {path}: its content check did not finish in {timeout:.0f} s (a busy "
                              f"machine); checked again at the next refresh with {check_seconds(size, attempt + 1):.0f} s")
    except OSError as e:
        _ATTEMPTS[key] = attempt + 1
        raise CheckUnfinished(f"store {path}: cannot start its content check ({e}); checked again at the next "
                              "refresh") from e
    _ATTEMPTS.pop(key, None)
    if r.returncode == 0:
        return r.stdout.strip()
    if r.returncode < 0:
        name = signal.Signals(-r.returncode).name
        raise StoreError(f"store {path}: its content check died of {name} (damaged pages)")
    lines = r.stderr.strip().splitlines()
    reason = lines[-1] if lines else f"exit code {r.returncode}"
    raise StoreError(reason[:MESSAGE_CHARS])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m server.storecheck PATH", file=sys.stderr)
        return 2
    os.nice(CHECK_NICE)
    try:
        print(verify(Path(argv[0])))
    except StoreError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
